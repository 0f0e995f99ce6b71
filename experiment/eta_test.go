package experiment

import (
	"fmt"
	"testing"
	"time"

	"github.com/wptest/wptest/results"
)

// A run in which every part takes k times its plan (each group's apply
// and warm-up, each point) has, when each point begins, an ETA of exactly
// the time still to go: the run's ETA sets the time taken against the
// plan of the same parts. The first profile is applied before measuring
// (as applyFirst does), so its first group is a swap back.
func TestETAIsTheTimeStillToGo(t *testing.T) {
	sp, err := Load("est.hcl", []byte(fmt.Sprintf(estimateHCL, "4s")), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plan := sp.Plan()
	for _, k := range []float64{0.5, 1, 3} {
		scale := func(d time.Duration) time.Duration { return time.Duration(k * float64(d)) }
		e := newETA(sp)
		e.applyDone(plan[0].Profile)
		applied := map[string]bool{plan[0].Profile: true}
		done := map[string]bool{}
		var elapsed time.Duration
		at := map[string]time.Duration{} // elapsed when each point began
		etas := map[string]time.Duration{}
		for i, p := range plan {
			if startsGroup(plan, i) {
				apply := estNewProf.d
				if applied[p.Profile] {
					apply = estSwap.d
				}
				applied[p.Profile] = true
				e.group(p.Profile)
				elapsed += scale(apply + sp.Warmup)
			}
			at[p.Key], etas[p.Key] = elapsed, e.left(plan, p.Key, func(key string) bool { return done[key] }, elapsed)
			sc := sp.scenario(p.Scenario)
			elapsed += scale(pointTime(sc, p, nil))
			done[p.Key] = true
			e.point(sc, p, results.Record{Point: p})
		}
		for _, p := range plan {
			want := elapsed - at[p.Key]
			if d := etas[p.Key] - want; d < -time.Millisecond || d > time.Millisecond {
				t.Errorf("k=%g: ETA at %s is %s, want %s (the time still to go)", k, p.Key, etas[p.Key], want)
			}
		}
	}
}

// A resumed run counts neither the points done before it nor the groups
// they filled: what is left is the rest's points and their groups.
func TestETASkipsWhatWasDone(t *testing.T) {
	sp, err := Load("est.hcl", []byte(fmt.Sprintf(estimateHCL, "4s")), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plan := sp.Plan()
	// The first repetition done: only the second's groups and points are left.
	done := map[string]bool{}
	var want time.Duration
	applied := map[string]bool{}
	for i, p := range plan {
		if p.Rep == 1 {
			done[p.Key] = true
			continue
		}
		if startsGroup(plan, i) {
			if applied[p.Profile] {
				want += estSwap.d + sp.Warmup
			} else {
				want += estNewProf.d + sp.Warmup
			}
			applied[p.Profile] = true
		}
		want += pointTime(sp.scenario(p.Scenario), p, nil)
	}
	var first results.Point
	for _, p := range plan {
		if !done[p.Key] {
			first = p
			break
		}
	}
	// Measured from before the first group: the ETA is the plan itself.
	e := newETA(sp)
	if got := e.left(plan, first.Key, func(key string) bool { return done[key] }, 0); got != want-estNewProf.d-sp.Warmup {
		t.Errorf("ETA of a run resumed after the first repetition: %s, want %s (the rest's points and its later groups)", got, want-estNewProf.d-sp.Warmup)
	}
}
