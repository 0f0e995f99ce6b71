package results

import (
	"reflect"
	"strings"
	"testing"

	"github.com/wptest/wptest/bench/result"
)

// A term column@visitors is that column at another step of the claim's
// scenario: the figures come from that step's records, the report names
// the step, a bench-limited point at either step leaves the claim not
// measured, and a stand-in column answers for its column at both steps.
func TestClaimAcrossSteps(t *testing.T) {
	rec := func(col, step string, rps float64) Record {
		return Record{Point: Point{Column: col, Scenario: "static", Step: step},
			Set: result.Set{Run: &result.Run{RPS: rps, Attempts: 10, Outcomes: result.Outcomes{OK: 10}}}}
	}
	man := func(order ...string) *Manifest {
		return &Manifest{Columns: []Column{{ID: "t", Label: "Tuned", Enabled: true}, {ID: "caddy", Label: "Caddy", Enabled: true}, {ID: "nginx", Label: "nginx", Enabled: true}},
			Scenarios: []Scenario{{Name: "static", Kind: "static", Visitors: []int{100, 200}}}, Machine: &MachineInfo{OwnMachine: true},
			Claims: []Claim{{ID: "fell", Scenario: "static", Visitors: 200, Metric: "rps", Unit: "req/s", Order: order,
				StandIns: []StandIn{{For: "core", Columns: []string{"caddy", "nginx"}}}}}}
	}
	fell := []Record{rec("t", "c=100", 900), rec("t", "c=200", 600)}
	got := EvaluateClaims(man("t", "t@100"), fell)[0]
	if got.Verdict != Holds || got.Point != "static c=100 and 200" {
		t.Fatalf("a fall from 900 to 600: %s (%s) at %q", got.Verdict, got.How, got.Point)
	}
	want := []Measured{{Term: "t", Column: "t", Label: "Tuned", Scenario: "static", Value: 600, N: 1},
		{Term: "t@100", Column: "t", Label: "Tuned, at 100 visitors", Scenario: "static", Visitors: 100, Value: 900, N: 1}}
	if !reflect.DeepEqual(got.Measured, want) {
		t.Errorf("measured %+v, want %+v", got.Measured, want)
	}
	if got.Holds != "Tuned < Tuned, at 100 visitors" {
		t.Errorf("holds means %q", got.Holds)
	}

	// A fall by less than order_by is the run's noise, not "fell off".
	by := man("t", "t@100")
	by.Claims[0].OrderBy = 1.25
	if got := EvaluateClaims(by, []Record{rec("t", "c=100", 900), rec("t", "c=200", 800)})[0]; got.Verdict != Differs || !strings.Contains(got.How, "is below Tuned, at 100 visitors (900 req/s) by 1.12x, not 1.25x") {
		t.Errorf("a fall of 11%% with order_by 1.25: %s (%s)", got.Verdict, got.How)
	}
	if got := EvaluateClaims(by, fell)[0]; got.Verdict != Holds || got.Holds != "Tuned < Tuned, at 100 visitors by 1.25x or more" {
		t.Errorf("a fall of a third with order_by 1.25: %s (%s), holds means %q", got.Verdict, got.How, got.Holds)
	}

	climbed := []Record{rec("t", "c=100", 600), rec("t", "c=200", 900)}
	if got := EvaluateClaims(man("t", "t@100"), climbed)[0]; got.Verdict != Differs || !strings.Contains(got.How, "Tuned (900 req/s) is not below Tuned, at 100 visitors (600 req/s)") {
		t.Errorf("a climb: %s (%s)", got.Verdict, got.How)
	}

	limited := append([]Record{}, fell...)
	limited[0].Run = &result.Run{RPS: 900, Attempts: 10, Outcomes: result.Outcomes{OK: 5, HTTP5xx: 5}}
	if got := EvaluateClaims(man("t", "t@100"), limited)[0]; got.Verdict != NotMeasured || !strings.Contains(got.How, "Tuned at static c=100: 50% of requests failed") {
		t.Errorf("half the requests at 100 failed: %s (%s)", got.Verdict, got.How)
	}

	// Caddy fell, nginx did not: each stand-in is judged at both steps on
	// its own, never Caddy at one step against nginx at the other.
	sub := []Record{rec("caddy", "c=100", 900), rec("caddy", "c=200", 600), rec("nginx", "c=100", 500), rec("nginx", "c=200", 800)}
	got = EvaluateClaims(man("core", "core@100"), sub)[0]
	if got.Verdict != Differs || !strings.Contains(got.How, "nginx (800 req/s) is not below nginx, at 100 visitors (500 req/s)") || strings.Contains(got.How, "Caddy") {
		t.Errorf("stand-ins: %s (%s)", got.Verdict, got.How)
	}
	if len(got.Measured) != 4 {
		t.Errorf("measured %+v, want each stand-in at each step", got.Measured)
	}
}

func TestSplitTerm(t *testing.T) {
	for in, want := range map[string]struct {
		name string
		at   int
	}{
		"tuned-400@200": {"tuned-400", 200}, "caddy": {"caddy", 0}, "a@0": {"a@0", 0}, "a@-1": {"a@-1", 0},
		"a@x": {"a@x", 0}, "a@020": {"a@020", 0}, "a@": {"a@", 0},
	} {
		if n, at := SplitTerm(in); n != want.name || at != want.at {
			t.Errorf("SplitTerm(%q) = %q, %d; want %q, %d", in, n, at, want.name, want.at)
		}
	}
}
