package experiment

import (
	"context"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/results"
)

// runKind is a sweep of one Run per visitor count: the page and static
// kinds (compression and ab are runKinds with their own defaults).
type runKind struct{}

func (runKind) attrs() []hcl.AttributeSchema                                                    { return nil }
func (runKind) decode(l *loader, sc scenarioHCL, s *results.Scenario, r func(string) hcl.Range) {}
func (runKind) estimate(sc results.Scenario) time.Duration                                      { return sweepEstimate(sc) }
func (runKind) job(ctx context.Context, r *runner, m point) (benchgen.Job, func(*results.Record, *result.Server), error) {
	j, err := benchgen.NewRunJob(m.cfg)
	return j, nil, err
}
