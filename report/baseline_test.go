package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/runtest"
	"github.com/wptest/wptest/results"
)

// wptest report runs/B --baseline runs/A: the report gets wptest compare's
// table, one per scenario, with only the changed point's change shown.
func TestReportBaselineSection(t *testing.T) {
	dir := t.TempDir()
	a := runtest.Run{ID: "a", Reps: 5, Jitter: []float64{0, 1, -1, 2, -2}}.Write(t, dir)
	b := runtest.Run{ID: "b", Reps: 5, Jitter: []float64{1, -2, 2, 0, -1}, Vars: map[string]string{"workers": "<8>"},
		Edit: func(r *results.Record) {
			if r.Column == "corehttpd" && r.Scenario == "page" && r.Step == "c=2" {
				r.Run.RPS *= 2
			}
		}}.Write(t, dir)

	out, err := WriteWith(b, Options{Baseline: a})
	if err != nil {
		t.Fatal(err)
	}
	md := read(t, out.Markdown)
	i := strings.Index(md, "## Compared with run a\n")
	if i < 0 {
		t.Fatalf("no baseline section:\n%s", md)
	}
	sec := md[i:]
	sec = sec[:strings.Index(sec[3:], "\n## ")+3]
	for _, want := range []string{"A is run a (experiment quick, 5 repetitions), the baseline; B is this run.",
		`What differs from A to B: var workers: unset → "\<8>".`,
		"**page (page)**", "**crowd (crowd)**", "**kit (kit)**",
		"| point | column | metric | A | B | change | p |",
		"| c=2 | corehttpd | pages per second | 1,500 | 3,000 | +100.0% | p=0.008 n=5+5 |",
		"| c=2 | cpanel-apache | pages per second | 1,000 | 1,000 | ~ | p=1.000 n=5+5 |"} {
		if !strings.Contains(sec, want) {
			t.Errorf("section lacks %q:\n%s", want, sec)
		}
	}
	if n := strings.Count(sec, "%"+" | p="); n != 1 {
		t.Errorf("%d changes shown, want 1:\n%s", n, sec)
	}
	// The HTML has it too, the variable's value escaped as text.
	h := read(t, out.HTML)
	for _, want := range []string{"<h2>Compared with run a</h2>", ">&#43;100.0%</td>", "&lt;8&gt;"} {
		if !strings.Contains(h, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(h, "<8>") {
		t.Errorf("report.html has the variable's value unescaped")
	}

	// Without --baseline, no such section.
	out, err = Write(b)
	if err != nil {
		t.Fatal(err)
	}
	if md := read(t, out.Markdown); strings.Contains(md, "Compared with") {
		t.Errorf("a report without a baseline has the section")
	}
	// A baseline that is not a run is an error naming it.
	if _, err := WriteWith(b, Options{Baseline: filepath.Join(dir, "nope")}); err == nil || !strings.Contains(err.Error(), "baseline "+filepath.Join(dir, "nope")) {
		t.Errorf("missing baseline: %v", err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
