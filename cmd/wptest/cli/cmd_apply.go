package cli

import (
	"context"
	"flag"

	"github.com/wptest/wptest/experiment/stage"
)

// wptest apply: check every op of a profile against a host, apply only what
// differs, reload notified services once, and run the profile's checks.
func applyCommand() *command {
	return &command{name: "apply", synopsis: "apply a profile to --target: only the difference, then its checks",
		usage: "apply --profile NAME --target HOST [-var name=value ...] [flags]",
		about: "It keeps no host manifest nor drift record: what it changes is drift to the next status and run until up records it.",
		examples: []string{"wptest apply --profile caddy --target local",
			"wptest apply --profile tuned --target ssh://root@203.0.113.7:22 --known-hosts hosts.known -var max_request_workers=400"},
		setup: define(func(fs *flag.FlagSet, f *profileFlags) { addProfileFlags(fs, f) }, runApply)}
}

func runApply(ctx context.Context, a *App, f *profileFlags, _ []string) error {
	if f.target == "" {
		return usage("--target is required (local or ssh://user@host:port)")
	}
	p, err := loadProfile(a, f)
	if err != nil {
		return err
	}
	st := &stage.State{Log: a.Stderr}
	err = stage.Run(ctx, st, f.stage(a, nil),
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
