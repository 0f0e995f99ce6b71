package cli

import (
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/wptest/wptest/internal/golden"
	"github.com/wptest/wptest/internal/runtest"
	"github.com/wptest/wptest/results"
)

// testdata/run_summary.txtar: the summary a run's stderr ends with, from
// run directories as the runner writes them (internal/runtest): a run
// without claims whose every point is sound, and one whose claims hold,
// differ (with their causes' tags, or none) and cannot be measured, with a
// point that measured the bench.
func TestRunSummaryGolden(t *testing.T) {
	runs := t.TempDir()
	cases := []struct {
		name string
		run  runtest.Run
	}{
		{"no-claims", runtest.Run{ID: "r-plain", Reps: 2, Jitter: []float64{-5, 5}}},
		{"claims-and-bench", runtest.Run{ID: "r-claims", Reps: 2, Jitter: []float64{-5, 5}, Manifest: withSummaryClaims, Edit: breakKit}},
	}
	a := &txtar.Archive{Comment: []byte("runSummary of runtest's run directories (go test -update rewrites this file)\n")}
	for _, c := range cases {
		dir := c.run.Write(t, runs)
		got, err := runSummary(dir, filepath.Join("runs", c.run.ID, "report.md"), filepath.Join("runs", c.run.ID, "report.html"))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		a.Files = append(a.Files, txtar.File{Name: c.name, Data: []byte(got + "\n")})
	}
	golden.Archive(t, "testdata/run_summary.txtar", a)
}

// withSummaryClaims gives the run a claim that holds, one that differs
// on a scenario four deviations name (the summary names three), one no
// run can measure (its long reason shortened), and one that differs with
// nothing to explain it.
func withSummaryClaims(m *results.Manifest) {
	m.Claims = []results.Claim{
		{ID: "more-pages", Source: "the post", Quote: "corehttpd served more pages", Scenario: "page", Visitors: 2, Metric: "rps", Unit: "req/s",
			Order: []string{"cpanel-apache", "corehttpd"}},
		{ID: "three-times", Source: "the post", Quote: "three times as many pages", Scenario: "page", Visitors: 8, Metric: "rps", Unit: "req/s",
			Order: []string{"cpanel-apache", "corehttpd"}, Ratio: &results.Ratio{Num: "corehttpd", Den: "cpanel-apache", Published: 3, Within: 1.25}},
		{ID: "kit-errors", Source: "the post", Quote: "no error at all", Scenario: "kit", Visitors: 50, Metric: "rps", Unit: "req/s",
			NotMeasured: "the post gives no figure a run can be held to, only that the kit's error run ended without any error at all, which the kit's own rate counts"},
		{ID: "crowd-wait", Source: "the post", Quote: "Apache kept newcomers waiting longer", Scenario: "crowd", Visitors: 100, Metric: "wait_p50_ms", Unit: "ms",
			Order: []string{"corehttpd", "cpanel-apache"}},
	}
	for _, id := range []string{"site", "php", "cpus", "network"} { // more causes than the summary names
		m.SourceDeviations = append(m.SourceDeviations, results.SourceDeviation{ID: id, Source: "the post", Says: "the post's " + id + " differed", Scenarios: []string{"page"}})
	}
	m.Machine = &results.MachineInfo{OwnMachine: true}
}

// breakKit has cPanel's Apache's database stop during the kit's second
// repetition: a point the report marks.
func breakKit(r *results.Record) {
	if r.Column == "cpanel-apache" && r.Scenario == "kit" && r.Rep == 2 {
		r.Broken = "the database server stopped during the point"
	}
}
