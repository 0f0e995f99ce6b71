package experiment

import (
	"context"
	"errors"
	"fmt"
	"github.com/wptest/wptest/results"
	"math"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
)

// ourTime turns a time read on machine's clock into the controlling
// host's clock. A machine not measured (this process, the local driver)
// is taken as ours.
func (r *runner) ourTime(machine string, t time.Time) time.Time {
	for _, c := range r.man.Clocks {
		if c.Host == machine {
			return t.Add(-c.Offset())
		}
	}
	return t
}

// theirTime is ourTime's inverse: a time on our clock as machine reads it
// (an agreed start time sent to a load generator).
func (r *runner) theirTime(machine string, t time.Time) time.Time {
	for _, c := range r.man.Clocks {
		if c.Host == machine {
			return t.Add(c.Offset())
		}
	}
	return t
}

// clockUncertainty is how far machine's offset may be off (0: not measured).
func (r *runner) clockUncertainty(machine string) time.Duration {
	for _, c := range r.man.Clocks {
		if c.Host == machine {
			return time.Duration(c.UncertaintyMs * float64(time.Millisecond))
		}
	}
	return 0
}

// ClockRounds is how many exchanges measure a machine's clock (the
// fastest one counts).
const ClockRounds = 12

// clockHost is a machine whose clock the run measures, by its name in
// the run (the name Clocks, results and the log use).
type clockHost struct {
	name string
	h    host.Host
}

// clockHosts are the run's machines that are not this process: the
// server unless it is this machine, and the load generator machine.
func (r *runner) clockHosts() []clockHost {
	var hs []clockHost
	if _, local := r.srv.h.(*host.Local); !local {
		hs = append(hs, clockHost{r.srv.h.Name(), r.srv.h})
	}
	for _, rl := range r.loadMachines() {
		hs = append(hs, clockHost{rl.name, rl.h})
	}
	return hs
}

// measureClocks measures, before the session's points, each other
// machine's clock offset from ours, records them in the manifest (this
// session's: a machine's clock may have been set since an earlier one)
// and logs them; then fails if one is too far off (checkClocks).
func (r *runner) measureClocks(ctx context.Context) error {
	var cs []results.ClockOffset
	for _, m := range r.clockHosts() {
		c, err := host.MeasureClock(ctx, m.h, ClockRounds)
		if err != nil {
			return exitcode.With(exitcode.Provision, fmt.Errorf("[%s] measure its clock: %w", m.name, err))
		}
		co := results.ClockOffset{Host: m.name, OffsetMs: durMs(c.Offset), UncertaintyMs: durMs(c.Uncertainty), RoundTrips: c.Rounds}
		r.say(Stage, "[%s] clock %s from this host", m.name, co)
		cs = append(cs, co)
	}
	r.man.Clocks = cs
	if r.si < len(r.man.Sessions) {
		r.man.Sessions[r.si].Clocks = cs
	}
	if err := r.man.Write(r.dir); err != nil {
		return err
	}
	return checkClocks(cs, r.plan.clockTolerance(r.sp))
}

func durMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// clockTolerance is how far a window may be misplaced on the server's
// samples and still measure the load it belongs to: the smallest warm-up
// of the run's scenarios (a window early by up to its warm-up covers the
// same load's warm-up), but never under one sample interval, the join's
// own resolution (a scenario may have no warm-up).
func (pl runPlan) clockTolerance(sp *Spec) clockTolerance {
	tol := clockTolerance{d: -1}
	for _, p := range pl.points {
		if sc := sp.scenario(p.Scenario); tol.d < 0 || sc.Warmup < tol.d {
			tol = clockTolerance{d: sc.Warmup, scenario: sc.Name}
		}
	}
	if tol.d < results.SampleEvery {
		tol = clockTolerance{d: results.SampleEvery, scenario: tol.scenario, floor: true}
	}
	return tol
}

type clockTolerance struct {
	d        time.Duration
	scenario string // the scenario whose warm-up it is
	floor    bool   // d is the sample interval, above that warm-up
}

func (t clockTolerance) String() string {
	if t.floor {
		return fmt.Sprintf("the sample interval, %s (scenario %q's warm-up is shorter)", t.d, t.scenario)
	}
	return fmt.Sprintf("the warm-up of scenario %q, %s", t.scenario, t.d)
}

// checkClocks fails for a machine that may be off by more than the
// tolerance: |offset| + uncertainty. The offset is corrected for
// (ourTime, theirTime), but a clock that far off is not kept in time:
// a time daemon may step or slew it during the run, after it was
// measured, misplacing windows by up to the offset unseen; and the
// uncertainty is what no correction removes.
func checkClocks(cs []results.ClockOffset, tol clockTolerance) error {
	var errs []error
	for _, c := range cs {
		if time.Duration((math.Abs(c.OffsetMs)+c.UncertaintyMs)*float64(time.Millisecond)) <= tol.d {
			continue
		}
		errs = append(errs, fmt.Errorf("[%s] its clock is %s from this host's, more than %s: "+
			"the load's windows cannot be joined with its samples reliably. Keep the machines' clocks in time with NTP "+
			"(chrony or systemd-timesyncd, on this host and on %s), then run again (--resume keeps what was measured)",
			c.Host, c, tol, c.Host))
	}
	return exitcode.With(exitcode.Provision, errors.Join(errs...))
}
