package experiment

import (
	"context"
	"fmt"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/internal/exitcode"
)

// stepPreflight prints, before anything on the server changes, what the
// server is and what the column the run applies first (runPlan.first)
// will change there (provision's preflight, as `wptest up` prints it).
// The profile is loaded with who may reach the web ports in this run,
// found here: the first step that needs them.
type stepPreflight struct{ noCleanup }

func (stepPreflight) Name() string { return "preflight" }

func (stepPreflight) Run(ctx context.Context, r *runner) error {
	r.srv.sources = r.srv.webSources(ctx, r.ms, r.sp.Machines.AllowFrom)
	if len(r.plan.enabled) == 0 {
		return exitcode.With(exitcode.Config, fmt.Errorf("no column of %s is enabled", r.sp.File))
	}
	p, err := loadProfile(r.plan.first(r.sp, r.man.Fixture.Verified != "", r.st.Done), r.srv.sources)
	if err != nil {
		return err
	}
	stage.WriteLocalFiles(keepWriter{r}, r.sp.Uploads)
	return stage.Run(ctx, r.srv.state(r.opt.Log), stage.Render{Profile: p, Refuse: true}, stage.Preflight{Out: keepWriter{r}})
}
