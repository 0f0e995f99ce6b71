// Package runtest writes run directories for tests of what reads them
// (compare, report, the CLI): a manifest and results.jsonl through
// package results' own writers, with records shaped as the runner writes
// them (page sweeps, static files, a crowd, the kit, server figures).
package runtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/results"
)

// Run describes one run to write.
type Run struct {
	ID   string
	Reps int
	// Jitter is each repetition's noise, in percent, by repetition
	// (cycled); the same values in another order make a run whose
	// samples are the same set.
	Jitter []float64
	Vars   map[string]string
	// Edit, if set, changes each record before it is written.
	Edit func(*results.Record)
	// Machine is what the run recorded of the server's machine (nil:
	// nothing, as runs before it was recorded).
	Machine *results.MachineInfo
	// Scenarios, if set, are the run's scenarios instead of Scenarios
	// (of the kinds record writes: page, static, crowd, kit, browse).
	Scenarios []results.Scenario
	// Columns, if set, are the run's column ids instead of Columns.
	Columns []string
	// Manifest, if set, changes the manifest before it is written.
	Manifest func(*results.Manifest)
}

// Columns and scenarios of every run written here.
var (
	Columns   = []string{"cpanel-apache", "corehttpd"}
	Scenarios = []results.Scenario{
		{Name: "page", Kind: "page", Path: "/", Visitors: []int{2, 8}, Proto: "h1", KeepAlive: true},
		{Name: "crowd", Kind: "crowd", Path: "/", Visitors: []int{100}, Proto: "h1"},
		{Name: "kit", Kind: "kit", Path: "/", Visitors: []int{50}, Proto: "h1"},
	}
)

// Write writes r under parent/r.ID and returns the directory.
func (r Run) Write(t testing.TB, parent string) string {
	t.Helper()
	dir := filepath.Join(parent, r.ID)
	ids := r.Columns
	if ids == nil {
		ids = Columns
	}
	var cols []results.Column
	for _, c := range ids {
		cols = append(cols, results.Column{ID: c, Profile: c, Label: c, Vars: map[string]string{}, Enabled: true})
	}
	vars := r.Vars
	if vars == nil {
		vars = map[string]string{}
	}
	scs := r.Scenarios
	if scs == nil {
		scs = Scenarios
	}
	plan := results.Plan(r.Reps, cols, scs)
	m := &results.Manifest{Format: results.ManifestFormat, ID: r.ID, Experiment: "quick", File: "experiments/quick.hcl",
		ExperimentHash: strings.Repeat("ab", 32), PlanHash: strings.Repeat("cd", 32), Vars: vars, Target: "local",
		Tool: "wptest test", Columns: cols, Scenarios: scs, Repetitions: r.Reps, Points: len(plan),
		Start: "2025-01-01T00:00:00Z", End: "2025-01-01T01:00:00Z", Complete: true, Machine: r.Machine}
	if r.Manifest != nil {
		r.Manifest(m)
	}
	if err := mkdir(dir); err != nil {
		t.Fatal(err)
	}
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	s, _, err := results.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, p := range plan {
		j := 1.0
		if len(r.Jitter) > 0 {
			j = 1 + r.Jitter[(p.Rep-1)%len(r.Jitter)]/100
		}
		rec := record(p, j)
		if r.Edit != nil {
			r.Edit(&rec)
		}
		if err := s.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// record is a point's record with figures that depend on the column and
// the visitors, times j.
func record(p results.Point, j float64) results.Record {
	base := 1000.0
	if p.Column == "corehttpd" {
		base = 1500
	}
	rec := results.Record{Point: p, Start: "2025-01-01T00:00:00Z", End: "2025-01-01T00:00:10Z",
		Server:            &result.Server{WindowMs: 10000, CPUBusyPct: 50 * j, CPUMsPerRequest: 2 * j},
		ServerCPUMsPerReq: 1.8 * j, WebPHPCPUMsPerReq: 1.2 * j, DBCPUMsPerReq: 0.6 * j, PSSKB: int64(200000 * j)}
	run := func(rps float64, visitors int) result.Run {
		n := int64(rps * 10)
		return result.Run{Name: fmt.Sprintf("c=%d", visitors), Model: "closed", Proto: "h1", URL: "http://127.0.0.1/",
			Method: "GET", Visitors: visitors, KeepAlive: true, ElapsedMs: 10000, Attempts: n,
			Outcomes: result.Outcomes{OK: n}, RPS: rps, AttemptRate: rps,
			Latency: result.Latency{Count: uint64(n), Min: 1, Mean: 4 * j, P50: 3 * j, P90: 6 * j, P95: 7 * j, P99: 9 * j, Max: 20 * j}}
	}
	switch p.Kind {
	case "page":
		r := run(base*j*float64(p.Visitors)/2, p.Visitors)
		rec.Run = &r
	case "static":
		r := run(base*j*(4+float64(p.Visitors)/50), p.Visitors)
		rec.Run = &r
	case "crowd":
		rec.Crowd = &result.Crowd{Visitors: p.Visitors, ClickEveryMs: 1000, ProbeEveryMs: 200, GiveUpMs: 10000,
			Background: run(100*j, p.Visitors), Wait: result.Latency{Count: 50, P50: 12 * j, P99: 40 * j}}
	case "browse":
		rec.Browse = &result.Browse{Name: fmt.Sprintf("c=%d", p.Visitors), Proto: "h1", Visitors: p.Visitors, PageViews: 100, PageViewsOK: 100,
			PageViewsPerSec: base * j / 100, PageView: result.Latency{Count: 100, P50: 30 * j, P90: 50 * j, P99: 80 * j},
			WireIn: result.Count{Mean: 250000 * j}}
	case "kit":
		rec.Kit = &result.Kit{Throughput: run(base*j, p.Visitors), KeepAliveX: 3 * j,
			Errors: result.Run{Attempts: 4000, Outcomes: result.Outcomes{OK: 4000}}}
	}
	return rec
}

func mkdir(dir string) error { return os.MkdirAll(dir, 0o755) }

// Scenario reads a scenario as a manifest recorded it (s: its JSON, of any
// format a manifest ever had), then writes and reads it again as a
// manifest does now, failing t where the second reading differs.
func Scenario(t testing.TB, s string) results.Scenario {
	t.Helper()
	var sc results.Scenario
	if err := json.Unmarshal([]byte(s), &sc); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(sc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var again results.Scenario
	if err := json.Unmarshal(b, &again); err != nil || !reflect.DeepEqual(again, sc) {
		t.Fatalf("written again: %+v (%v), want %+v", again, err, sc)
	}
	return again
}
