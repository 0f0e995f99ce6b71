package experiment

import (
	"github.com/wptest/wptest/results"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/exitcode"
)

// A machine that may be off by more than the tolerance fails the run:
// |offset| + uncertainty against the warm-up, either sign; the message
// names the machine, its offset, the warm-up and the remedy.
func TestCheckClocks(t *testing.T) {
	warm := clockTolerance{d: 3 * time.Second, scenario: "page"}
	for _, tc := range []struct {
		name string
		c    results.ClockOffset
		tol  clockTolerance
		want []string // "" = no error
	}{
		{"in time", results.ClockOffset{Host: "srv", OffsetMs: 1.5, UncertaintyMs: 0.4}, warm, nil},
		{"off but within the warm-up", results.ClockOffset{Host: "srv", OffsetMs: -2900, UncertaintyMs: 0.4}, warm, nil},
		{"ahead by more", results.ClockOffset{Host: "srv", OffsetMs: 3100, UncertaintyMs: 0.4}, warm,
			[]string{"[srv] its clock is +3.100 s ± 0.4 ms from this host's", `warm-up of scenario "page", 3s`, "NTP", "--resume"}},
		{"behind by more", results.ClockOffset{Host: "lg-2", OffsetMs: -3100, UncertaintyMs: 0.4}, warm,
			[]string{"[lg-2] its clock is -3.100 s"}},
		{"within only without its uncertainty", results.ClockOffset{Host: "srv", OffsetMs: 2990, UncertaintyMs: 20}, warm,
			[]string{"+2.990 s ± 20.0 ms"}},
		{"no warm-up: the sample interval", results.ClockOffset{Host: "srv", OffsetMs: 600, UncertaintyMs: 1},
			clockTolerance{d: results.SampleEvery, scenario: "kit", floor: true},
			[]string{`the sample interval, 500ms (scenario "kit"'s warm-up is shorter)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkClocks([]results.ClockOffset{{Host: "other", OffsetMs: 0.1, UncertaintyMs: 0.2}, tc.c}, tc.tol)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			if exitcode.Of(err) != exitcode.Provision {
				t.Errorf("exit code %d, want %d", exitcode.Of(err), exitcode.Provision)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if strings.Contains(err.Error(), "[other]") {
				t.Errorf("error names the machine in time:\n%v", err)
			}
		})
	}
}

// The tolerance is the smallest warm-up of the scenarios the run
// measures, never under the sample interval.
func TestClockTolerance(t *testing.T) {
	sc := func(name string, w time.Duration) results.Scenario {
		return results.Scenario{Name: name, Kind: "page", Visitors: []int{2}, Warmup: w}
	}
	for _, tc := range []struct {
		scs  []results.Scenario
		want clockTolerance
	}{
		{[]results.Scenario{sc("a", 3*time.Second), sc("b", 2*time.Second)}, clockTolerance{d: 2 * time.Second, scenario: "b"}},
		{[]results.Scenario{sc("a", 3*time.Second), sc("k", 100*time.Millisecond)}, clockTolerance{d: results.SampleEvery, scenario: "k", floor: true}},
	} {
		sp := &Spec{Repetitions: 1, Columns: []results.Column{{ID: "p", Profile: "p", Enabled: true}}, Scenarios: tc.scs}
		if got := planOf(sp).clockTolerance(sp); got != tc.want {
			t.Errorf("%v: tolerance %+v, want %+v", tc.scs, got, tc.want)
		}
	}
}
