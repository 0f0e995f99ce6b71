package cli

import (
	"context"
	"fmt"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/internal/exitcode"
)

// wptest apply: check every op of a profile against a host, apply only what
// differs, reload notified services once, and run the profile's checks.
func runApply(ctx context.Context, a *App, args []string) error {
	var f profileFlags
	fs := addProfileFlags(a, "apply", &f)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.target == "" {
		return exitcode.With(exitcode.Config, fmt.Errorf("--target is required (local or ssh://user@host:port)"))
	}
	p, err := loadProfile(a, &f)
	if err != nil {
		return err
	}
	st := &stage.State{Log: a.Stderr}
	err = stage.Run(ctx, st, targetStage(a, f.target, f.knownHosts, f.identity),
		stage.Render{Profile: p, Diagnostics: a.Stderr}, // blocked ops: refused in the report
		stage.Upload{Files: f.uploads},
		stage.Apply{Progress: newProgress(a)})
	if st.Report != nil {
		if err := writeReport(a, f.output, st.Report); err != nil {
			return err
		}
	}
	return err
}
