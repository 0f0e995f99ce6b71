package experiment

import (
	"testing"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/results"
)

// A crowd point's line says how many newcomers gave up of how many; when
// none was answered it says so rather than show a median wait of 0 ms.
func TestCrowdHeadlineSaysWhoGaveUp(t *testing.T) {
	probes := make([]result.Probe, 60)
	for _, c := range []struct {
		crowd result.Crowd
		want  string
	}{
		{result.Crowd{Probes: probes, GaveUp: 60}, "no newcomer answered, 60 of 60 gave up"},
		{result.Crowd{Probes: probes, GaveUp: 2, Wait: result.Latency{Count: 58, P50: 12.34}}, "newcomer wait p50 12.3 ms, 2 of 60 gave up"},
	} {
		if got := headline(results.Record{Set: result.Set{Crowd: &c.crowd}}); got != c.want {
			t.Errorf("headline %q, want %q", got, c.want)
		}
	}
}
