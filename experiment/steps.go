package experiment

import (
	"context"

	"github.com/wptest/wptest/internal/multistep"
)

// The run in steps (ARCHITECTURE.md § Stages), as Packer's multistep: a
// session is one list of internal/multistep steps, each a type in a file
// of its own (step_*.go) that reads what it needs from the state (the
// runner: the run's inputs, its plan, and what earlier steps made) and
// holds what it made for its own cleanup (the lease, the server's host,
// the load generators, the sampler). Cleanups run in reverse, on success,
// error and Ctrl-C alike: the sampler stopped, the load generators and
// the server closed, the machines removed unless kept. What the server
// stage and the site make stays (a resumed run measures on it; `wptest
// down` tears it down).

// step is one step of a session.
type step = multistep.Step[*runner]

// noCleanup, embedded, says a session's step has nothing to undo.
type noCleanup = multistep.NoCleanup[*runner]

// runSteps runs steps on r, their names and cleanups in the run's log.
func (r *runner) runSteps(ctx context.Context, steps []step) error {
	return multistep.Run(ctx, r, steps, multistep.Options{Log: r.opt.Log})
}

// sessionSteps are the steps of one session: the machines, the server
// connection, the preflight, the load generators, the clocks, the server
// recorded, the first profile applied, the site, the points; the last step
// marks success, so the machines' cleanup knows which keep applies.
func sessionSteps(r *runner) []step {
	return append(machineSteps(r),
		&stepConnect{},
		stepPreflight{},
		&stepLoadGenerators{},
		stepClocks{},
		stepMachineInfo{},
		stepServer{},
		stepSite{},
		stepMeasure{},
		multistep.Do(func(_ context.Context, r *runner) error { r.succeeded = true; return nil }),
	)
}
