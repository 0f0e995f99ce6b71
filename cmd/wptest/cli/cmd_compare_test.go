package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/runtest"
	"github.com/wptest/wptest/results"
)

// twoRuns writes run A and run B (5 repetitions each, the same noise in
// another order); B's cpanel-apache page c=8 answers twice as fast.
func twoRuns(t *testing.T) (a, b string) {
	dir := t.TempDir()
	a = runtest.Run{ID: "a", Reps: 5, Jitter: []float64{0, 1, -1, 2, -2}}.Write(t, dir)
	b = runtest.Run{ID: "b", Reps: 5, Jitter: []float64{2, 0, -2, 1, -1}, Vars: map[string]string{"workers": "8"},
		Edit: func(r *results.Record) {
			if r.Column == "cpanel-apache" && r.Scenario == "page" && r.Step == "c=8" {
				r.Run.RPS *= 2
			}
		}}.Write(t, dir)
	return a, b
}

func TestCompareText(t *testing.T) {
	a, b := twoRuns(t)
	// Flags after the runs as well as before.
	for _, args := range [][]string{{"compare", a, b}, {"compare", "-o", "text", a, b}, {"compare", a, b, "-o", "text"}} {
		code, out, stderr := runCLI(t, nil, args...)
		if code != 0 {
			t.Fatalf("%q: code %d: %s", args, code, stderr)
		}
		for _, want := range []string{"A: " + a + " (experiment quick, run a, 5 repetitions)\n",
			"differs: var workers: unset → \"8\"\n", "\npage (page)\npoint  column", "\ncrowd (crowd)\n", "\nkit (kit)\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("%q: output lacks %q:\n%s", args, want, out)
			}
		}
		var changed []string
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 3 && strings.HasPrefix(f[len(f)-3], "+") {
				changed = append(changed, l)
			}
		}
		if len(changed) != 1 || !strings.Contains(changed[0], "cpanel-apache") || !strings.Contains(changed[0], "pages per second") ||
			!strings.Contains(changed[0], "+100.0%") || !strings.HasPrefix(changed[0], "c=8 ") {
			t.Errorf("%q: changed lines %q, want only cpanel-apache c=8 pages per second +100.0%%:\n%s", args, changed, out)
		}
		if strings.Count(out, "  ~  ") < 20 {
			t.Errorf("%q: fewer than 20 ~ lines:\n%s", args, out)
		}
	}
}

func TestCompareJSON(t *testing.T) {
	a, b := twoRuns(t)
	code, out, stderr := runCLI(t, nil, "compare", "-o", "json", a, b)
	if code != 0 {
		t.Fatalf("code %d: %s", code, stderr)
	}
	var got struct {
		A, B        struct{ Dir, ID, Experiment string }
		Alpha       float64
		Differences []string
		Rows        []struct {
			Scenario, Step, Column, Metric string
			A, B                           []float64
			AMedian                        float64  `json:"a_median"`
			BMedian                        float64  `json:"b_median"`
			ChangePct                      *float64 `json:"change_pct"`
			P                              float64
			Significant                    bool
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if got.A.Dir != a || got.B.ID != "b" || got.Alpha != 0.05 || len(got.Differences) != 1 || len(got.Rows) < 20 {
		t.Fatalf("header: %+v %+v α=%v %q, %d rows", got.A, got.B, got.Alpha, got.Differences, len(got.Rows))
	}
	sig := 0
	for _, r := range got.Rows {
		if len(r.A) != 5 || len(r.B) != 5 {
			t.Errorf("%+v: want 5 samples a side", r)
		}
		if r.Significant {
			sig++
			if r.Column != "cpanel-apache" || r.Step != "c=8" || r.Metric != "rps" || r.P >= 0.05 || r.ChangePct == nil ||
				*r.ChangePct != 100 || r.BMedian != 2*r.AMedian {
				t.Errorf("significant row %+v is not the doubled point", r)
			}
		} else if r.P < 0.05 {
			t.Errorf("%+v: p < 0.05 but not significant", r)
		}
	}
	if sig != 1 {
		t.Errorf("%d significant rows, want 1", sig)
	}
}

// Missing or unreadable runs, a wrong count of runs, runs with nothing in
// common and a bad -o are usage errors (exit 2) that say what is wrong.
func TestCompareBadInput(t *testing.T) {
	a, b := twoRuns(t)
	other := runtest.Run{ID: "other", Reps: 1, Edit: func(r *results.Record) { r.Column, r.Profile = "nginx", "nginx" }}.Write(t, t.TempDir())
	missing := filepath.Join(t.TempDir(), "nope")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", a}, "want two runs (A, the baseline, then B), got 1; see 'wptest compare --help'"},
		{[]string{"compare", a, b, a}, "want two runs (A, the baseline, then B), got 3"},
		{[]string{"compare", missing, b}, "run A: no such run: " + missing + " (runs are in "},
		{[]string{"compare", a, missing}, "run B: no such run: " + missing + " (runs are in "},
		{[]string{"compare", a, other}, "no point (column, scenario, step) in common"},
		{[]string{"compare", "-o", "yaml", a, b}, "want text or json"},
	} {
		code, out, stderr := runCLI(t, nil, c.args...)
		if code != 2 || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: code %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, stderr, c.want)
		}
	}
}

// wptest report runs/B --baseline runs/A writes the report with the
// comparison; a baseline that is not a run is a usage error.
func TestReportBaseline(t *testing.T) {
	a, b := twoRuns(t)
	code, out, stderr := runCLI(t, nil, "report", b, "--baseline", a)
	if code != 0 || out != filepath.Join(b, "report.md")+"\n"+filepath.Join(b, "report.html")+"\n"+filepath.Join(b, "claims.json")+"\n" {
		t.Fatalf("code %d, stdout %q, stderr %s", code, out, stderr)
	}
	md, err := os.ReadFile(filepath.Join(b, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## Compared with run a\n") ||
		!strings.Contains(string(md), "| c=8 | cpanel-apache | pages per second | 4,000 | 8,000 | +100.0% | p=0.008 n=5+5 |") {
		t.Errorf("report.md lacks the comparison:\n%s", md)
	}
	missing := filepath.Join(t.TempDir(), "nope")
	if code, _, stderr := runCLI(t, nil, "report", b, "--baseline", missing); code != 2 || !strings.Contains(stderr, "--baseline: no such run: "+missing) {
		t.Errorf("missing baseline: code %d, stderr %q", code, stderr)
	}
}
