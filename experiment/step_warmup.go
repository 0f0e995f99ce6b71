package experiment

import (
	"context"
	"time"

	"github.com/wptest/wptest/bench/benchgen"
)

// stepWarmUp loads the live profile unmeasured: it fills OPcache and the
// FPM pool, starts Apache children. Its failure is not the run's.
type stepWarmUp struct{ noGroupCleanup }

func (stepWarmUp) Name() string { return "warm-up" }

func (stepWarmUp) Run(ctx context.Context, g *colGroup) error {
	r := g.r
	if j, err := benchgen.NewRunJob(benchgen.Config{Name: "warm-up", URL: r.url("/", "h1"), Visitors: 2, KeepAlive: true,
		Duration: r.sp.Warmup, Timeout: 30 * time.Second}); err == nil {
		_, _ = r.lg.Do(ctx, j)
	}
	return nil
}
