package experiment

import (
	"context"
	"fmt"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/hostmanifest"
	"github.com/wptest/wptest/results"
)

// stepLoad measures the group's points with the sampler running: the
// one place a point's load is made (measure, through runner.load), each
// point's record kept (or not) as it ends.
type stepLoad struct{ noGroupCleanup }

func (stepLoad) Name() string { return "load" }

func (s stepLoad) Run(ctx context.Context, g *colGroup) error {
	r := g.r
	for _, p := range g.todo {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		sc := r.sp.scenario(p.Scenario)
		r.progress(p)
		var rec results.Record
		var err error
		if why := r.notServed(ctx, g.live, sc); why != "" {
			r.logf("  n/a: %s", why)
			rec = results.Record{Point: p, NotApplicable: why}
		} else if rec, err = r.measure(ctx, g.ps, sc, p, g.smp); ctx.Err() != nil {
			return ctx.Err() // a point cut short is not written: --resume measures it again
		} else if err != nil {
			return exitcode.With(exitcode.Load, fmt.Errorf("%s: %w", p.Key, err))
		}
		if err := s.keep(ctx, r, g.ps, sc, p, rec); err != nil {
			return err
		}
	}
	return nil
}

// keep writes point p's record, unless the server it measured is no
// longer the column that was applied (its profile with its variables): on
// a shared machine another process may have swapped it meanwhile; nor when
// it was changed by hand since (driftDuring).
func (stepLoad) keep(ctx context.Context, r *runner, ps results.Column, sc results.Scenario, p results.Point, rec results.Record) error {
	if hm, err := hostmanifest.Read(ctx, r.srv.h); err != nil || !sameApply(hm, r.man.Hosts[ps.ID]) {
		who := "no host manifest"
		if hm != nil {
			who = "the host manifest now says " + hm.Profile
		} else if err != nil {
			who = err.Error()
		}
		return exitcode.With(exitcode.Load, fmt.Errorf("%s: the server changed under the run (%s): another process applied a profile on %s; the point was not kept, --resume measures it again", p.Key, who, r.srv.h.Name()))
	}
	broken, err := r.driftDuring(ctx, ps, sc, p)
	if err != nil {
		return err
	}
	rec.Broken = broken
	rec.BenchLimit, _ = results.BenchLimit(rec, r.man.Machine)
	if err := r.st.Append(rec); err != nil {
		return fmt.Errorf("write %s: %w", results.ResultsFile, err)
	}
	r.eta.point(sc, p, rec)
	r.last = fmt.Sprintf("%s %s %s: %s", p.Column, p.Scenario, p.Step, headline(rec))
	r.man.Sessions[r.si].Measured = append(r.man.Sessions[r.si].Measured, p.Key)
	return r.man.Write(r.dir)
}
