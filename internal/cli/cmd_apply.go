package cli

import (
	"context"
	"fmt"

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
	h, err := openTarget(ctx, a, f.target, f.knownHosts, f.identity)
	if err != nil {
		return err
	}
	defer h.Close()
	r, _, err := renderForHost(ctx, a, p, h)
	if err != nil {
		return err
	}
	rep, applyErr := r.Apply(ctx, h, newProgress(a))
	if rep != nil {
		if err := writeReport(a, f.output, rep); err != nil {
			return err
		}
	}
	return applyErr
}
