package experiment

import "context"

// stepClocks records the load machines and every other machine's clock
// offset (which may stop the run).
type stepClocks struct{ noCleanup }

func (stepClocks) Name() string { return "clocks" }

func (stepClocks) Run(ctx context.Context, r *runner) error {
	r.noteLoadMachines(ctx)
	return r.measureClocks(ctx)
}
