package report

import (
	"strings"
	"testing"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/provision/hostmanifest"
	"github.com/wptest/wptest/results"
)

// A column measured on a server changed by hand (run --accept-drift) says
// so in the setup, in the drift's words; the other column does not.
func TestReportNamesAcceptedDrift(t *testing.T) {
	dir := t.TempDir()
	sc := results.Scenario{Name: "ab", Kind: "ab", Path: "/", Visitors: []int{4}, Requests: 100, Proto: "h1"}
	cols := []results.Column{{ID: "cpanel", Profile: "cpanel-apache", Label: "cPanel", Enabled: true}, {ID: "tuned", Profile: "tuned-apache", Label: "Tuned", Enabled: true}}
	sp := &testSpec{Name: "drift", Repetitions: 1, Scenarios: []results.Scenario{sc}, Columns: cols}
	edit := "kept (the apply did not put it back; now in the drift record): /etc/php/8.4/cgi/php.ini (php-cgi) changed since up: memory_limit = 128M → 256M"
	man := results.Manifest{Format: results.ManifestFormat, ID: "test-run", Experiment: "drift", PlanHash: sp.PlanHash(),
		Columns: cols, Scenarios: sp.Scenarios, Repetitions: 1, Points: len(sp.Plan()), Complete: true,
		Hosts: map[string]*hostmanifest.Manifest{"cpanel": {Profile: "cpanel-apache"}, "tuned": {Profile: "tuned-apache"}},
		Drift: map[string][]string{"cpanel": {edit}}}
	var recs []results.Record
	for _, p := range sp.Plan() {
		recs = append(recs, results.Record{Point: p, Set: result.Set{Run: &result.Run{RPS: 500, ElapsedMs: 200, Outcomes: result.Outcomes{OK: 100}}}})
	}
	md := writeReport(t, dir, man, recs)
	want := "cPanel was measured on a server changed by hand since its apply (run --accept-drift): " + edit + "."
	if !strings.Contains(md, want) {
		t.Errorf("report.md's setup lacks %q:\n%s", want, md)
	}
	if strings.Contains(md, "Tuned was measured on a server changed") {
		t.Errorf("report.md names drift for a column without:\n%s", md)
	}
}
