package experiment

import "context"

// stepServer: on a fresh run, the first column's profile makes the server
// ready for the site (database, PHP, core); a resumed run's server has it.
// What it makes stays after the run (a resumed run measures on it;
// `wptest down` tears it down): no cleanup.
type stepServer struct{ noCleanup }

func (stepServer) Name() string { return "server" }

func (stepServer) Run(ctx context.Context, r *runner) error {
	if r.man.Fixture.Verified != "" {
		return nil
	}
	first := r.plan.enabled[0]
	if err := r.apply(ctx, first); err != nil {
		return err
	}
	r.eta.applyDone(first.Profile)
	return nil
}
