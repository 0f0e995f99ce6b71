package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/results"
)

// crowdKind is a new visitor's wait while a crowd browses: one point per
// crowd size.
type crowdKind struct{}

func (crowdKind) attrs() []hcl.AttributeSchema { return nil }

// decode refuses a warm-up shorter than click_every: each visitor's first
// click falls in the first click_every, and the crowd the post describes
// is whole before the first new visitor arrives. Left out, a crowd's
// warm-up is one click_every (crowdWarmup). The durations' own errors are
// the common attributes' (read here as written: the common defaults come
// after the kind's).
func (crowdKind) decode(l *loader, sc scenarioHCL, s *results.Scenario, r func(string) hcl.Range) {
	if sc.Warmup == "" {
		return
	}
	w, err := time.ParseDuration(sc.Warmup)
	if err != nil {
		return
	}
	click := 10 * time.Second
	if sc.ClickEvery != "" {
		if click, err = time.ParseDuration(sc.ClickEvery); err != nil {
			return
		}
	}
	if w < click {
		l.bad(r("warmup"), "Warm-up shorter than click_every",
			fmt.Sprintf("warmup %q is shorter than click_every (%s): a crowd's warm-up is at least one click_every, so that every visitor has clicked once before the first new visitor arrives. Leave warmup out (it is then one click_every) or make it %s or more.", sc.Warmup, click, click))
	}
}

// crowdWarmup is the crowd's warm-up: at least one click_every (a written
// one shorter was refused; the common default, 3 s, is raised).
func crowdWarmup(sc results.Scenario) time.Duration { return max(sc.Warmup, sc.ClickEvery) }

// estimate: the warm-up, the newcomers' schedule, and about half a give-up
// for the last newcomer and the crowd's clicks still in flight.
func (crowdKind) estimate(sc results.Scenario) time.Duration {
	return crowdWarmup(sc) + sc.Duration + sc.GiveUp/2 + estimateOverhead
}

func (crowdKind) job(ctx context.Context, r *runner, m point) (benchgen.Job, func(*results.Record, *result.Server), error) {
	sc := m.sc
	cc := benchgen.CrowdConfig{Base: m.cfg, Visitors: m.p.Visitors, ClickEvery: sc.ClickEvery, ProbeEvery: sc.ProbeEvery,
		GiveUp: sc.GiveUp, Warmup: crowdWarmup(sc), Duration: sc.Duration}
	if sc.ProbePath != "" {
		cc.ProbeURL = r.url(sc.ProbePath, sc.Proto)
	}
	j, err := benchgen.NewCrowdJob(cc)
	return j, nil, err
}
