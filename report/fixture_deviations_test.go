package report

import (
	"github.com/wptest/wptest/results"
	"strings"
	"testing"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// The seeded site's deviations from the fixture's pins (an archive the
// lock lacks, a plugin not installed) are in the report, not only in the
// run's manifest.
func TestReportNamesSiteDeviations(t *testing.T) {
	dir := t.TempDir()
	sc := results.Scenario{Name: "ab", Kind: "ab", Path: "/", Visitors: []int{4}, Requests: 100, Proto: "h1"}
	sp := &testSpec{Name: "deviations", Repetitions: 1, Scenarios: []results.Scenario{sc},
		Columns: []results.Column{{ID: "tuned-apache", Profile: "tuned-apache", Label: "Tuned", Enabled: true}},
		Fixture: results.FixtureSpec{Profile: "agency", Seed: 1}}
	devs := []string{"archive elementor 4.3.2 (https://downloads.wordpress.org/plugin/elementor.4.3.2.zip): sha256 ab12 is not in the lock",
		"plugin updraftplus 1.25.9: not installed (no connection)"}
	man := results.Manifest{Format: results.ManifestFormat, ID: "test-run", Experiment: "deviations", PlanHash: sp.PlanHash(),
		Columns: sp.Columns, Scenarios: sp.Scenarios, Repetitions: 1, Points: len(sp.Plan()), Complete: true,
		Hosts:   map[string]*hostmanifest.Manifest{"tuned-apache": {Profile: "tuned-apache"}},
		Fixture: &results.FixtureRecord{Profile: "agency", Seed: 1, Root: strings.Repeat("ab", 32), Deviations: devs}}
	var recs []results.Record
	for _, p := range sp.Plan() {
		recs = append(recs, results.Record{Point: p, Set: result.Set{Run: &result.Run{RPS: 500, ElapsedMs: 200, Outcomes: result.Outcomes{OK: 100}}}})
	}
	md := writeReport(t, dir, man, recs)
	var line string // in the setup's words, not only in the manifest the report appends
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "Site deviations from the fixture's pins: ") {
			line = l
		}
	}
	for _, d := range devs {
		if !strings.Contains(line, d) {
			t.Errorf("report.md's setup lacks the site deviation %q:\n%s", d, md)
		}
	}
}
