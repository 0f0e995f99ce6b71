package experiment

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/multistep"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/hostmanifest"
	"github.com/wptest/wptest/results"
)

// The run in steps (ARCHITECTURE.md § Stages): a session is one list of
// internal/multistep steps over the runner, each stage in one of them and
// undone by that step's cleanup, in reverse, on success, error and Ctrl-C
// alike: the sampler stopped, the load generators and the server closed,
// the machines removed unless kept. What the server stage and the site
// make stays (a resumed run measures on it; `wptest down` tears it down).

// step is one step of a run.
type step = multistep.Step[*runner]

// stepOf is the step called name that runs run, undone by cleanup (nil:
// nothing to undo). The steps' state is the runner they close over.
func stepOf(name string, run, cleanup func(ctx context.Context) error) step {
	f := multistep.Func[*runner]{Name: name, Do: func(ctx context.Context, _ *runner) error { return run(ctx) }}
	if cleanup != nil {
		f.Cleanup = func(ctx context.Context, _ *runner) error { return cleanup(ctx) }
	}
	return f.Step()
}

// runSteps runs steps on r, their names and cleanups in the run's log.
func (r *runner) runSteps(ctx context.Context, steps []step) error {
	return multistep.Run(ctx, r, steps, multistep.Options{Log: r.opt.Log})
}

// sessionSteps are the steps of one session: the machines, the server
// connection, the preflight, the load generators, the clocks, the server
// recorded, the first profile applied, the site, the points; the last step
// marks success, so the machines' cleanup knows which keep applies.
func (r *runner) sessionSteps() []step {
	steps := r.machineSteps()
	return append(steps,
		stepOf("connect", r.connectServer, r.closeServer),
		stepOf("preflight", r.preflightFirst, nil),
		stepOf("load generators", r.openLoad, r.closeLoad),
		stepOf("clocks", r.clocks, nil),
		stepOf("machine info", r.recordServer, nil),
		// The profiles and the site stay after the run: no cleanup.
		stepOf("server", r.applyFirst, nil),
		stepOf("site", r.site, nil),
		stepOf("measure", r.measurePlan, nil),
		multistep.Do(func(context.Context, *runner) error { r.succeeded = true; return nil }),
	)
}

// machineSteps bring the run's machines up: a resumed run's are the
// first session's (local ones are always there; kept cloud machines are
// reached with the run's pinned keys, and stay); a new run's are planned
// and created by the cloud driver, and removed after the run unless Keep.
func (r *runner) machineSteps() []step {
	if r.opt.Resume && len(r.man.Machines) > 0 {
		return []step{stepOf("attach machines", func(ctx context.Context) error {
			ms := slices.Clone(r.man.Machines)
			run := cloud.Run{ID: r.opt.ID, Dir: r.dir}
			if err := cloud.CheckRecorded(ctx, r.sp.Machines, run, ms); err != nil {
				return err
			}
			r.ms = ms
			return nil
		}, nil)}
	}
	steps := []step{stepOf("plan machines", r.planMachines, func(context.Context) error {
		if r.lease == nil {
			return nil
		}
		return r.lease.Close()
	})}
	return append(steps, cloud.Lifecycle[*runner]{Driver: r.sp.Machines.Driver,
		Lease:     func(r *runner) *cloud.Lease { return r.lease.Lease },
		Succeeded: func(r *runner) bool { return r.succeeded },
		Ready:     func(r *runner, ms []cloud.Machine) { r.ms = ms }}.Steps()...)
}

// planMachines opens the cloud driver, plans the machines, shows the plan
// and opens their journal (stage.Machines.Open): nothing is created yet.
func (r *runner) planMachines(ctx context.Context) error {
	c := r.opt.Cloud
	if c == nil {
		// No driver from the caller: one that needs no credentials opens
		// with none; the others say what they miss.
		d, err := cloud.Lookup(r.sp.Machines.Driver)
		if err != nil {
			return err
		}
		if c, err = d.Open(cloud.OpenOptions{Log: r.opt.Log}); err != nil {
			return err
		}
	}
	ttl, err := r.sp.Machines.TTLDuration()
	if err != nil {
		return exitcode.With(exitcode.Config, err)
	}
	run := cloud.Run{ID: r.opt.ID, Dir: r.dir, Profile: r.sp.Name, Owner: r.opt.Owner, Created: r.opt.now(), TTL: ttl}
	plan, err := c.Plan(ctx, cloud.Spec{Machines: r.sp.Machines, Run: run})
	if err != nil {
		return err
	}
	r.sayPlan(plan)
	r.lease, err = stage.Machines{Cloud: c, Plan: plan, Driver: r.sp.Machines.Driver, Keep: r.opt.Keep,
		Wait: 10 * time.Minute, Log: r.opt.Log, Now: r.opt.Now}.Open()
	return err
}

// connectServer records the machines in the manifest and opens the server.
func (r *runner) connectServer(ctx context.Context) error {
	if err := recordMachines(r.man, r.dir, r.ms); err != nil {
		return err
	}
	sm, err := serverMachine(r.ms)
	if err != nil {
		return err
	}
	r.sm = sm
	return r.connect(ctx, sm)
}

func (r *runner) closeServer(context.Context) error {
	if r.h != nil {
		r.h.Close()
	}
	return nil
}

// preflightFirst shows, before anything changes, what the first profile
// the run applies will change on the server.
func (r *runner) preflightFirst(ctx context.Context) error {
	r.sources = r.webSources(ctx, r.ms, r.sm)
	if len(r.plan.enabled) == 0 {
		return exitcode.With(exitcode.Config, fmt.Errorf("no column of %s is enabled", r.sp.File))
	}
	return r.preflight(ctx, r.plan.first(r.sp, r.man.Fixture.Verified != "", r.st.Done))
}

func (r *runner) openLoad(ctx context.Context) error {
	var err error
	r.lg, err = r.loadGenerator(ctx, r.ms)
	return err
}

func (r *runner) closeLoad(context.Context) error {
	if r.lg != nil {
		return r.lg.Close()
	}
	return nil
}

// clocks records the load machines and every other machine's clock
// offset (which may stop the run).
func (r *runner) clocks(ctx context.Context) error {
	r.noteLoadMachines(ctx)
	return r.measureClocks(ctx)
}

// recordServer records what the server is, and whom it shares its kernel
// with, in the manifest.
func (r *runner) recordServer(ctx context.Context) error {
	info := machineInfo(ctx, r.h, r.facts)
	info.LoadLocal = r.sm.Local && r.lg.Name() == LocalLoadHost
	info.LoadHost = r.lg.Name()
	info.LoadGenLinkMbps = r.sp.Machines.LinkMbps() // so a report made later judges the link as the run did
	r.ownMachine(ctx, r.sm, &info)
	r.man.Machine = &info
	return r.man.Write(r.dir)
}

// applyFirst: on a fresh run, the first column's profile makes the server
// ready for the site (database, PHP, core); a resumed run's server has it.
func (r *runner) applyFirst(ctx context.Context) error {
	if r.man.Fixture.Verified != "" {
		return nil
	}
	if err := r.apply(ctx, r.plan.enabled[0]); err != nil {
		return err
	}
	r.eta.applyDone(r.plan.enabled[0].Profile)
	return nil
}

// colGroup is one (repetition, column) group of points: one swap, one
// sampler.
type colGroup struct {
	ps   results.Column
	todo []results.Point        // its points not measured yet
	live *hostmanifest.Manifest // the host manifest after its apply
	smp  *sampler               // sampling the server while its points run
}

// groupSteps measure g: its column applied, the server warmed up, the
// sampler started (stopped by its cleanup), the load of each point.
func (r *runner) groupSteps(g *colGroup) []step {
	steps := []step{stepOf("server", func(ctx context.Context) error { return r.swap(ctx, g) }, nil)}
	if r.sp.Warmup > 0 {
		steps = append(steps, stepOf("warm-up", r.warmUp, nil))
	}
	return append(steps,
		stepOf("sampler", func(ctx context.Context) error { return r.startSampling(ctx, g) }, func(context.Context) error {
			if g.smp != nil {
				g.smp.stop()
			}
			return nil
		}),
		stepOf("load", func(ctx context.Context) error { return r.measurePoints(ctx, g) }, nil))
}

// swap applies g's column and reads the host manifest it left: the
// ports and protocols its server declares.
func (r *runner) swap(ctx context.Context, g *colGroup) error {
	if err := r.apply(ctx, g.ps); err != nil {
		return err
	}
	live, err := hostmanifest.Read(ctx, r.h)
	if err != nil || live == nil {
		return exitcode.With(exitcode.Provision, fmt.Errorf("%s on %s: no host manifest after its apply: %v", g.ps.ID, r.h.Name(), err))
	}
	r.ports = nil
	if live.Server != nil {
		r.ports = live.Server.Ports
	}
	g.live = live
	return nil
}

// warmUp loads the live profile unmeasured: it fills OPcache and the FPM
// pool, starts Apache children. Its failure is not the run's.
func (r *runner) warmUp(ctx context.Context) error {
	if j, err := benchgen.NewRunJob(benchgen.Config{Name: "warm-up", URL: r.url("/", "h1"), Visitors: 2, KeepAlive: true,
		Duration: r.sp.Warmup, Timeout: 30 * time.Second}); err == nil {
		_, _ = r.lg.Do(ctx, j)
	}
	return nil
}

// startSampling starts srvstat on the server for g's points (the one
// place a sampler starts) and waits for its first sample.
func (r *runner) startSampling(ctx context.Context, g *colGroup) error {
	smp, err := r.startSampler(ctx)
	if err != nil {
		return err
	}
	g.smp = smp
	if err := smp.ready(ctx, 5*time.Minute); err != nil {
		return exitcode.With(exitcode.Load, fmt.Errorf("%s on %s: %w", g.ps.ID, r.h.Name(), err))
	}
	return nil
}
