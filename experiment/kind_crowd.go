package experiment

import (
	"context"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/results"
)

// crowdKind is a new visitor's wait while a crowd browses: one point per
// crowd size.
type crowdKind struct{}

func (crowdKind) attrs() []hcl.AttributeSchema                                                    { return nil }
func (crowdKind) decode(l *loader, sc scenarioHCL, s *results.Scenario, r func(string) hcl.Range) {}

func (crowdKind) estimate(sc results.Scenario) time.Duration {
	return sc.Warmup + sc.Duration + sc.GiveUp/2 + estimateOverhead
}

func (crowdKind) job(ctx context.Context, r *runner, m point) (benchgen.Job, func(*results.Record, *result.Server), error) {
	sc := m.sc
	cc := benchgen.CrowdConfig{Base: m.cfg, Visitors: m.p.Visitors, ClickEvery: sc.ClickEvery, ProbeEvery: sc.ProbeEvery,
		GiveUp: sc.GiveUp, Warmup: sc.Warmup, Duration: sc.Duration}
	if sc.ProbePath != "" {
		cc.ProbeURL = r.url(sc.ProbePath, sc.Proto)
	}
	j, err := benchgen.NewCrowdJob(cc)
	return j, nil, err
}
