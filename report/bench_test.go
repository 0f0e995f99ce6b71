package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/compare"
	"github.com/wptest/wptest/internal/runtest"
	"github.com/wptest/wptest/results"
)

// A point whose requests failed (MariaDB stopped: HTTP 500 for all) is no
// figure of the server: its cells read "bench", the bench section says
// why, a claim on it is not measured, and compare leaves it out.
func TestPointsThatMeasuredTheBench(t *testing.T) {
	dir := t.TempDir()
	broken := func(rec *results.Record) {
		if rec.Column == "corehttpd" && rec.Scenario == "page" && rec.Step == "c=8" && rec.Run != nil {
			rec.Run.Outcomes.HTTP5xx += rec.Run.Outcomes.OK
			rec.Run.Outcomes.OK = 0
		}
	}
	claim := results.Claim{ID: "pages", Source: "the cPanel vs corehttpd post", Quote: "q", Scenario: "page", Visitors: 8, Metric: "rps",
		Unit: "req/s", Order: []string{"cpanel-apache", "corehttpd"}}
	run := runtest.Run{ID: "b", Reps: 3, Edit: broken, Manifest: func(m *results.Manifest) { m.Claims = []results.Claim{claim} }}.Write(t, dir)
	if _, err := Write(run); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(run, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"## Points that measured the bench, not the server",
		"| r1/corehttpd/page/c=8 | 100% of requests failed (HTTP 5xx) |",
		"not measured: corehttpd at page c=8: 100% of requests failed (HTTP 5xx)",
		"| failed |",
		"(none was stated for this run: no point was judged on its link)",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	a := runtest.Run{ID: "a", Reps: 3}.Write(t, dir)
	ca, _ := compare.Load(a)
	cb, _ := compare.Load(run)
	c, err := compare.Compare(ca, cb)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.BenchB) != 3 || len(c.BenchA) != 0 {
		t.Errorf("compare's bench lists: A %v, B %v", c.BenchA, c.BenchB)
	}
	for _, row := range c.Rows {
		if row.Column == "corehttpd" && row.Scenario == "page" && row.Step == "c=8" {
			t.Errorf("a row from points that measured the bench: %+v", row)
		}
	}
}

// A point whose load generator's link carried more than 90% of the
// bandwidth the run states for it is marked with the reason in the bench
// section, its claim is not measured, and compare leaves it out; a run
// that stated none says its links were not judged.
func TestPointsWhoseLinkWasFull(t *testing.T) {
	dir := t.TempDir()
	full := func(rec *results.Record) {
		if rec.Column == "corehttpd" && rec.Scenario == "page" && rec.Step == "c=8" && rec.Run != nil {
			rec.Run.Bytes.WireIn = int64(950e6 / 8 * rec.Run.ElapsedMs / 1000) // 950 Mbit/s
		}
	}
	claim := results.Claim{ID: "pages", Source: "the cPanel vs corehttpd post", Quote: "q", Scenario: "page", Visitors: 8, Metric: "rps",
		Unit: "req/s", Order: []string{"cpanel-apache", "corehttpd"}}
	report := func(id string, mbps int) string {
		run := runtest.Run{ID: id, Reps: 1, Edit: full, Machine: &results.MachineInfo{OwnMachine: true, LoadGenLinkMbps: mbps},
			Manifest: func(m *results.Manifest) { m.Claims = []results.Claim{claim} }}.Write(t, dir)
		if _, err := Write(run); err != nil {
			t.Fatal(err)
		}
		md, err := os.ReadFile(filepath.Join(run, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(md)
	}
	md := report("gig", 1000)
	why := "the load generator's link carried 95"
	for _, want := range []string{
		"| r1/corehttpd/page/c=8 | " + why,
		"% of its stated 1,000 Mbit/s |",
		"not measured: corehttpd at page c=8: " + why,
		"or its link carried more than 90% of the bandwidth the machines block states for it (load_generator_link_mbps).",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if md := report("unstated", 0); strings.Contains(md, why) || strings.Contains(md, "none was stated") {
		t.Errorf("with no bandwidth stated, a link was judged (or a bench section written without a point in it):\n%s", md)
	}
	ca, _ := compare.Load(filepath.Join(dir, "gig"))
	cb, _ := compare.Load(filepath.Join(dir, "unstated"))
	c, err := compare.Compare(ca, cb)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.BenchA) != 1 || !strings.Contains(c.BenchA[0], why) || len(c.BenchB) != 0 {
		t.Errorf("compare's bench lists: A %v, B %v", c.BenchA, c.BenchB)
	}
}
