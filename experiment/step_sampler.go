package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/wptest/wptest/internal/exitcode"
)

// stepSampler starts srvstat on the server for the group's points (the
// one place a sampler starts) and waits for its first sample. It holds
// the sampler it started; its cleanup stops it, before the next group's
// swap.
type stepSampler struct{ smp *sampler }

func (*stepSampler) Name() string { return "sampler" }

func (s *stepSampler) Run(ctx context.Context, g *colGroup) error {
	r := g.r
	smp, err := r.startSampler(ctx)
	if err != nil {
		return err
	}
	s.smp, g.smp = smp, smp
	if err := smp.ready(ctx, 5*time.Minute); err != nil {
		return exitcode.With(exitcode.Load, fmt.Errorf("%s on %s: %w", g.ps.ID, r.srv.h.Name(), err))
	}
	return nil
}

func (s *stepSampler) Cleanup(context.Context, *colGroup) error {
	if s.smp != nil {
		s.smp.stop()
	}
	return nil
}
