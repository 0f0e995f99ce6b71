package report

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/internal/golden"
	"github.com/wptest/wptest/results"
)

// browseRun: two columns, a browse scenario over h1 (6 connections) and
// one over h2; the second column does not serve h2 (n/a); the h1 points of
// the first column were split between two load generators.
func browseRun() (*results.Manifest, []results.Record) {
	scs := []results.Scenario{
		{Name: "browse-h1", Kind: "browse", Path: "/", Proto: "h1", Visitors: []int{10}, Duration: 20 * time.Second, Warmup: 5 * time.Second, Own: json.RawMessage(`{"conns":6}`)},
		{Name: "browse-h2", Kind: "browse", Path: "/", Proto: "h2", Visitors: []int{10}, Duration: 20 * time.Second, Warmup: 5 * time.Second, Own: json.RawMessage(`{"conns":1,"think":1000000000}`)},
	}
	profs := []results.Column{{ID: "nginx", Profile: "nginx", Label: "nginx", Enabled: true}, {ID: "old", Profile: "old", Label: "h1 only", Enabled: true}}
	sp := &testSpec{Name: "browse", Repetitions: 2, Scenarios: scs, Columns: profs}
	m := &results.Manifest{Format: results.ManifestFormat, ID: "browse-run", Experiment: "browse", PlanHash: sp.PlanHash(),
		Columns: profs, Scenarios: scs, Repetitions: 2, Points: len(sp.Plan()), Complete: true}
	var recs []results.Record
	for _, p := range sp.Plan() {
		if p.Column == "old" && p.Scenario == "browse-h2" {
			recs = append(recs, results.Record{Point: p, NotApplicable: "old serves h1, not h2"})
			continue
		}
		f := float64(p.Rep)
		view := 40.0 + f // h1
		if p.Scenario == "browse-h2" {
			view = 30.0 + f
		}
		if p.Column == "old" {
			view += 100
		}
		b := &result.Browse{Name: p.Step, Proto: "h1", Visitors: 10, PageViews: 100, PageViewsOK: 99, PageViewsFailed: 1, PageViewsPerSec: 5 * f,
			PageView: result.Latency{Count: 100, P50: view, P90: view + 10, P99: view + 20}, TTFB: result.Latency{Count: 100, P50: 3},
			WireIn: result.Count{Count: 100, Mean: 123456}, Assets: result.Count{Count: 100, Mean: 14}}
		rec := results.Record{Point: p, Set: result.Set{Browse: b}, ServerCPUMsPerReq: 2}
		if p.Column == "nginx" && p.Scenario == "browse-h1" {
			half := *b
			half.Visitors, half.PageViews = 5, 50
			rec.Generators = []results.GeneratorResult{{Host: "lg1", Visitors: 5, Set: result.Set{Browse: &half}}, {Host: "lg2", Visitors: 5, Set: result.Set{Browse: &half}}}
		}
		recs = append(recs, rec)
	}
	return m, recs
}

// The browse sections show the page-view times and bytes per view in each
// column, both scenarios side by side in the first section's table and
// chart, n/a where the column's server does not serve the protocol, and a
// split point's shares beside their merge.
func TestBrowseSection(t *testing.T) {
	m, recs := browseRun()
	md, h, err := newReport("", m, recs).render()
	if err != nil {
		t.Fatal(err)
	}
	s := string(md)
	for _, w := range []string{
		"A visitor's page view (browse-h1: /, h1, up to 6 connections per visitor)",
		"A visitor's page view (browse-h2: /, h2, one connection per visitor, multiplexed)",
		"| page view, p50 (ms) | 41.5 (41.0–42.0) | 142 (141–142) |",
		"| browse-h2 (h2, one connection per visitor, multiplexed) c=10: page view, p50 (ms) | 31.5 (31.0–32.0) | n/a |",
		"| browse-h1 (h1, up to 6 connections per visitor) c=10: bytes on the wire per page view | 123,456 | 123,456 |",
		"| nginx, c=10, rep 1 | lg1 | 5 | 50 |",
		"| nginx, c=10, rep 1 | merged | 10 | 100 |",
		"1s between page views",
	} {
		if !strings.Contains(s, w) {
			t.Errorf("report.md lacks %q", w)
		}
	}
	// The chart is drawn: its title and both scenarios' legends are SVG text.
	for _, w := range []string{"Page view, p50", "browse-h1 (h1 ×6)", "browse-h2 (h2 ×1)"} {
		if !strings.Contains(string(h), w) {
			t.Errorf("report.html's chart lacks %q", w)
		}
	}
	golden.File(t, filepath.Join("testdata", "browse.md"), md)
}
