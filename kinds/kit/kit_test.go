package kit_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/internal/runtest"
	"github.com/wptest/wptest/kinds/kit"
	"github.com/wptest/wptest/provision/hostmanifest"
	"github.com/wptest/wptest/report"
	"github.com/wptest/wptest/results"
)

// Every kit metric the kit's table shows is a metric of the registry that
// apache-kit.hcl's claims name: one value behind the PASS/FAIL and the claims.
func TestKitMetricsInRegistry(t *testing.T) {
	for _, m := range kit.KitMetrics {
		if _, ok := results.MetricOf(kit.Name, m.Metric); !ok {
			t.Errorf("kit metric %d %q: not in results.Metrics", m.N, m.Metric)
		}
	}
}

// The kit table's targets are the experiment's claims where it states a
// bound on the kit's metric (as apache-kit.hcl does), so a target moved
// there moves the table's PASS/FAIL with "Does it reproduce?"; a claim
// limited to some columns sets only theirs, and the rest keep the kit's
// default.
func TestKitTargetsFromClaims(t *testing.T) {
	sc := results.Scenario{Name: "kit", Kind: kit.Name, Path: "/", Visitors: []int{10}, Duration: time.Second,
		Own: json.RawMessage(`{"levels":[1,10],"error_clients":4}`)}
	claims := []results.Claim{
		{ID: "kit-throughput", Source: "the Apache kit", Scenario: "kit", Visitors: 10, Metric: "rps", Unit: "req/s",
			AtLeast: &results.Figure{Text: "5,000 req/s", Value: 5000}},
		{ID: "b-p95", Source: "the Apache kit", Scenario: "kit", Visitors: 10, Metric: "p95_ms", Unit: "ms", Columns: []string{"b"},
			AtMost: &results.Figure{Text: "10 ms", Value: 10}},
	}
	dir := runtest.Run{ID: "targets", Reps: 1, Columns: []string{"a", "b"}, Scenarios: []results.Scenario{sc},
		Manifest: func(m *results.Manifest) {
			m.Columns[0].Label, m.Columns[1].Label = "A", "B"
			m.Claims = claims
			m.Hosts = map[string]*hostmanifest.Manifest{"a": {Profile: "a"}, "b": {Profile: "b"}}
		},
		Edit: func(rec *results.Record) {
			rec.Kit = &result.Kit{Throughput: result.Run{RPS: 3000, Outcomes: result.Outcomes{OK: 3000}, Latency: result.Latency{Count: 3000, P95: 20, P99: 30}}}
		}}.Write(t, t.TempDir())
	out, err := report.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out.Markdown)
	rows := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		for _, name := range []string{"| 2 | Throughput", "| 3 | Latency p95"} {
			if strings.HasPrefix(l, name) {
				rows[name] = l
			}
		}
	}
	for name, want := range map[string]string{
		"| 2 | Throughput":  "| ≥ 5,000 req/s (claim kit-throughput) | 3,000 FAIL | 3,000 FAIL |",
		"| 3 | Latency p95": "| A: ≤ 50; B: ≤ 10 ms (claim b-p95) | 20.0 PASS | 20.0 FAIL |",
	} {
		if !strings.Contains(rows[name], want) {
			t.Errorf("kit row %q lacks %q:\n%s", name, want, rows[name])
		}
	}
}
