package experiment

import (
	"time"

	"github.com/wptest/wptest/results"
)

// eta keeps what the run's ETA needs: the planned time of what has run
// (each group's apply and warm-up, each point) to set against the time it
// took, and the request rates measured so far. Both sides count the
// groups' applies and warm-ups: leaving them out of the plan but not out
// of the time taken once made the ETA after a run's first point three
// times the truth.
type eta struct {
	sp      *Spec
	applied map[string]bool // profiles applied in this session
	planned time.Duration   // planned time of the groups begun and the points measured
	rates   Rates           // request rates measured so far (pointTime)
	started time.Time       // when measuring began (stepMeasure)
}

func newETA(sp *Spec) *eta { return &eta{sp: sp, applied: map[string]bool{}} }

// overhead is the planned time of a group before its first point: its
// profile's apply (a first one in this session, or a swap back) and the
// warm-up.
func (e *eta) overhead(profile string, applied map[string]bool) time.Duration {
	d := estNewProf.d
	if applied[profile] {
		d = estSwap.d
	}
	return d + e.sp.Warmup
}

// applyDone notes a profile applied outside the groups (the first one,
// before the site is seeded): the group that follows swaps back to it.
func (e *eta) applyDone(profile string) { e.applied[profile] = true }

// group notes a group of profile begun.
func (e *eta) group(profile string) {
	e.planned += e.overhead(profile, e.applied)
	e.applied[profile] = true
}

// point notes point p measured: a request-count point's rate per visitor
// (for the points of its column and scenario still to come), then its
// planned time at that rate.
func (e *eta) point(sc results.Scenario, p results.Point, rec results.Record) {
	if sc.Duration == 0 && rec.Run != nil && rec.Run.AttemptRate > 0 {
		if e.rates == nil {
			e.rates = Rates{}
		}
		e.rates[p.Column+"/"+sc.Name] = rec.Run.AttemptRate / float64(max(p.Visitors, 1))
	}
	e.planned += pointTime(e.sp.scenario(sc.Name), p, e.rates)
}

// left is the time still to go when point cur begins, elapsed after the
// measuring began: the planned time of the points not done (cur's
// included) and of each later group's apply and warm-up, scaled by how
// the time taken so far compared with its plan.
func (e *eta) left(plan []results.Point, cur string, done func(string) bool, elapsed time.Duration) time.Duration {
	var left time.Duration
	applied := map[string]bool{}
	for k, v := range e.applied {
		applied[k] = v
	}
	past := true // in the groups up to cur's, begun already
	for i, q := range plan {
		if startsGroup(plan, i) && !past && groupTodo(plan[i:], done) {
			left += e.overhead(q.Profile, applied)
			applied[q.Profile] = true
		}
		if q.Key == cur {
			past = false
		}
		if !done(q.Key) {
			left += pointTime(e.sp.scenario(q.Scenario), q, e.rates)
		}
	}
	if e.planned > 0 {
		left = time.Duration(float64(left) * float64(elapsed) / float64(e.planned))
	}
	return left
}

// groupTodo: the group plan begins with has a point not done.
func groupTodo(plan []results.Point, done func(string) bool) bool {
	for i, q := range plan {
		if i > 0 && startsGroup(plan, i) {
			break
		}
		if !done(q.Key) {
			return true
		}
	}
	return false
}

// startsGroup: plan[i] begins a (repetition, column) group, one swap.
func startsGroup(plan []results.Point, i int) bool {
	return i == 0 || plan[i].Rep != plan[i-1].Rep || plan[i].Column != plan[i-1].Column
}
