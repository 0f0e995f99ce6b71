package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/runtest"
	"github.com/wptest/wptest/results"
)

// "Does it reproduce?" reads at a glance: a line per claim with its badge,
// the published ratio and this run's with its range over the repetitions
// (each repetition's own ratio), and the cause of a difference in a few
// words; what explains it is folded under the line in report.html, and
// the ratio claims are drawn on one log axis with their bands.
func TestClaimsAtAGlance(t *testing.T) {
	dir := t.TempDir()
	// corehttpd's pages per second drift by repetition (-10%, 0, +10%);
	// cPanel's do not: this run's ratio is 1.35, 1.5 and 1.65.
	drift := func(rec *results.Record) {
		if rec.Column == "corehttpd" && rec.Run != nil {
			rec.Run.RPS *= 1 + 0.1*float64(rec.Rep-2)
		}
	}
	claim := func(id string, published, within float64) results.Claim {
		return results.Claim{ID: id, Source: "the cPanel vs corehttpd post", Quote: "corehttpd served more pages", Scenario: "page", Visitors: 8,
			Metric: "rps", Unit: "pages/s", Ratio: &results.Ratio{Num: "corehttpd", Den: "cpanel-apache", Published: published, Within: within}}
	}
	run := runtest.Run{ID: "c", Reps: 3, Edit: drift, Manifest: func(m *results.Manifest) {
		m.Claims = []results.Claim{claim("pages", 1.5, 1.2), claim("pages-10x", 15, 1.5)}
	}}.Write(t, dir)
	if _, err := Write(run); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(run, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"|  | claim | published | this run | why it differs |",
		"| ✗ | pages per second, page c=8 (pages-10x) | 15.0x | 1.50x (1.35–1.65x) | CPUs unrecorded |",
		"| ✓ | pages per second, page c=8 (pages) | 1.50x | 1.50x (1.35–1.65x) | – |",
		"**✗ pages per second, page c=8 (pages-10x)**",
		"- differs: corehttpd / cpanel-apache is 1.50x, published 15x: not within a factor of 1.50.",
		"- This run: corehttpd: 6,000 pages/s (5,400–6,600); cpanel-apache: 4,000 pages/s.",
		"- Ratio: published 1.50x; this run 1.50x, 1.35–1.65x by repetition (corehttpd / cpanel-apache).",
		// The ratios section: each repetition's own ratio too.
		"| page c=8: requests/s, column ÷ cpanel-apache | 1.50x (1.35–1.65) |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	html, err := os.ReadFile(filepath.Join(run, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	verdict, _, _ := strings.Cut(string(html), `</section>`)
	for _, want := range []string{
		`<details class="differs"><summary><span class="badge">✗</span><span>pages per second, page c=8 (pages-10x)</span>`,
		`<details class="holds"><summary><span class="badge">✓</span>`,
		`<figure id="chart-claims">`,
		"stroke:#CFE8D6", // the band
		"fill:#116329",   // a ratio that holds
		"fill:#B3261E",   // one that differs
	} {
		if !strings.Contains(verdict, want) {
			t.Errorf("report.html's verdict lacks %q", want)
		}
	}
	// The verdict first, then in short with the headline chart (the first
	// chart of the scenario it speaks of), then the rest.
	sections := regexp.MustCompile(`<section id="([^"]+)"`).FindAllStringSubmatch(string(html), 3)
	if len(sections) < 3 || sections[0][1] != "claims" || sections[1][1] != "in-short" {
		t.Errorf("report.html's first sections: %v, want claims then in-short", sections)
	}
	short, _, _ := strings.Cut(string(html)[strings.Index(string(html), `<section id="in-short">`):], "</section>")
	if !strings.Contains(short, `<figure id="chart-cpu-page`) {
		t.Error("in short has no headline chart")
	}
}

// A run directory is a file anyone can edit: a rate of 0 or below makes a
// ratio no log axis shows. The report is written, the claim judged in
// words, and the chart leaves the ratio out (it drew nothing and panicked,
// or never ended, before).
func TestClaimsChartWithRatiosNoLogAxisShows(t *testing.T) {
	for _, rps := range []float64{0, -5} {
		dir := t.TempDir()
		edit := func(rec *results.Record) {
			if rec.Column == "corehttpd" && rec.Run != nil {
				rec.Run.RPS = rps
			}
		}
		claim := results.Claim{ID: "pages", Source: "the cPanel vs corehttpd post", Quote: "q", Scenario: "page", Visitors: 8,
			Metric: "rps", Unit: "pages/s", Ratio: &results.Ratio{Num: "corehttpd", Den: "cpanel-apache", Published: 1.5, Within: 1.2}}
		run := runtest.Run{ID: "z", Reps: 2, Edit: edit, Manifest: func(m *results.Manifest) { m.Claims = []results.Claim{claim} }}.Write(t, dir)
		if _, err := Write(run); err != nil {
			t.Fatalf("rps %v: %v", rps, err)
		}
		html, err := os.ReadFile(filepath.Join(run, "report.html"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(html), `<figure id="chart-claims">`) || !strings.Contains(string(html), `<details class="differs">`) {
			t.Errorf("rps %v: a claims chart drawn, or the claim not judged: differs", rps)
		}
	}
}

// A line's causes are a few words: up to three named, else the first two
// and how many more the fold names.
func TestFewWords(t *testing.T) {
	for _, c := range []struct {
		tags []string
		want string
	}{
		{nil, ""},
		{[]string{"a stand-in"}, "a stand-in"},
		{[]string{"a", "b", "c"}, "a, b, c"},
		{[]string{"the source's stylesheet", "a stand-in", "the setup of Caddy", "shared CPUs"}, "the source's stylesheet, a stand-in and 2 more"},
	} {
		if got := fewWords(c.tags); got != c.want {
			t.Errorf("fewWords(%q) = %q, want %q", c.tags, got, c.want)
		}
	}
}
