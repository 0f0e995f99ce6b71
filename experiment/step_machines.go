package experiment

import (
	"context"
	"slices"
	"time"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/cloud"
)

// machineSteps bring the run's machines up: a resumed run's are the
// first session's (local ones are always there; kept cloud machines are
// reached with the run's pinned keys, and stay); a new run's are planned
// and created by the cloud driver (cloud.Lifecycle, as `wptest up` does),
// and removed after the run unless Keep.
func machineSteps(r *runner) []step {
	if r.opt.Resume && len(r.man.Machines) > 0 {
		return []step{stepAttachMachines{}}
	}
	pm := &stepPlanMachines{}
	return append([]step{pm}, cloud.Lifecycle[*runner]{Driver: r.sp.Machines.Driver,
		Lease:     func(*runner) *cloud.Lease { return pm.lease.Lease },
		Succeeded: func(r *runner) bool { return r.succeeded },
		Ready:     func(r *runner, ms []cloud.Machine) { r.ms = ms }}.Steps()...)
}

// stepAttachMachines takes a resumed run's machines from its manifest,
// checked against what the driver says of them.
type stepAttachMachines struct{ noCleanup }

func (stepAttachMachines) Name() string { return "attach machines" }

func (stepAttachMachines) Run(ctx context.Context, r *runner) error {
	ms := slices.Clone(r.man.Machines)
	run := cloud.Run{ID: r.opt.ID, Dir: r.dir}
	if err := cloud.CheckRecorded(ctx, r.sp.Machines, run, ms); err != nil {
		return err
	}
	r.ms = ms
	return nil
}

// stepPlanMachines opens the cloud driver, plans the machines, shows the
// plan and opens their journal (stage.Machines.Open): nothing is created
// yet. It holds the lease it took; its cleanup closes the journal, after
// the create step's has released the machines.
type stepPlanMachines struct{ lease *stage.Lease }

func (*stepPlanMachines) Name() string { return "plan machines" }

func (s *stepPlanMachines) Run(ctx context.Context, r *runner) error {
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
	s.lease, err = stage.Machines{Cloud: c, Plan: plan, Driver: r.sp.Machines.Driver, Keep: r.opt.Keep,
		Wait: 10 * time.Minute, Log: r.opt.Log, Now: r.opt.Now}.Open()
	return err
}

func (s *stepPlanMachines) Cleanup(context.Context, *runner) error {
	if s.lease == nil {
		return nil
	}
	return s.lease.Close()
}
