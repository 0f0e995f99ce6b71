package experiment

import (
	"context"

	"github.com/wptest/wptest/internal/multistep"
	"github.com/wptest/wptest/provision/hostmanifest"
	"github.com/wptest/wptest/results"
)

// stepMeasure measures the points not measured yet, one (repetition,
// column) group at a time: one swap and one sampler for each, the
// group's steps (groupSteps) undone before the next group's.
type stepMeasure struct{ noCleanup }

func (stepMeasure) Name() string { return "measure" }

func (stepMeasure) Run(ctx context.Context, r *runner) error {
	r.eta.started = r.opt.now()
	plan := r.plan.points
	for i := 0; i < len(plan); {
		j := i
		for j < len(plan) && plan[j].Rep == plan[i].Rep && plan[j].Column == plan[i].Column {
			j++
		}
		group := plan[i:j]
		i = j
		var todo []results.Point
		for _, p := range group {
			if !r.st.Done(p.Key) {
				todo = append(todo, p)
			}
		}
		if len(todo) == 0 {
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.eta.group(group[0].Profile)
		if err := runGroup(ctx, &colGroup{r: r, ps: r.sp.column(group[0].Column), todo: todo}, groupSteps(r.sp)); err != nil {
			return err
		}
	}
	return nil
}

// colGroup is one (repetition, column) group of points: one swap, one
// sampler. It is the state its steps share.
type colGroup struct {
	r    *runner
	ps   results.Column
	todo []results.Point        // its points not measured yet
	live *hostmanifest.Manifest // the host manifest after its apply (stepSwap)
	smp  *sampler               // sampling the server while its points run (stepSampler)
}

// groupStep is one step of a group's list.
type groupStep = multistep.Step[*colGroup]

// noGroupCleanup, embedded, says a group's step has nothing to undo.
type noGroupCleanup = multistep.NoCleanup[*colGroup]

// groupSteps measure a group: its column applied, the server warmed up,
// the sampler started (stopped by its cleanup), the load of each point.
// They are new for each group: the sampler step holds the sampler it
// started.
func groupSteps(sp *Spec) []groupStep {
	steps := []groupStep{stepSwap{}}
	if sp.Warmup > 0 {
		steps = append(steps, stepWarmUp{})
	}
	return append(steps, &stepSampler{}, stepLoad{})
}

// runGroup runs steps on g, their names and cleanups in the run's log.
func runGroup(ctx context.Context, g *colGroup, steps []groupStep) error {
	return multistep.Run(ctx, g, steps, multistep.Options{Log: g.r.opt.Log})
}
