package cli

import (
	"context"
	"fmt"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// wptest swap: switch the web server of a host that already runs another
// profile. The apply first stops the services the host manifest names that
// the new profile does not run (waiting until their processes are gone)
// and disables them, then brings the new one up; the shared
// parts (site user, docroot, certificate, PHP-FPM pool) are left alone.
// The host manifest records which profile was replaced.
func swapCommand() *command {
	return &command{name: "swap", synopsis: "switch a host's web server to another profile, keeping the shared parts",
		usage: "swap --profile NAME --target HOST [-var name=value ...] [flags]",
		about: "The host must run a profile wptest up brought up; the services it names that the new profile does not run are stopped (until their processes are gone) and disabled, then the new one comes up. The site user, docroot, certificate and PHP-FPM pool stay.",
		examples: []string{"wptest swap --profile nginx --target local",
			"wptest swap --profile tuned --target run:20261205-101500-a1b2c3 -o json"},
		setup: define(addServerFlags, func(ctx context.Context, a *App, f *profileFlags, _ []string) error {
			return runServer(ctx, a, "swap", f, swapCheck(a))
		})}
}

// swapCheck refuses a host without a live profile and says what is swapped.
func swapCheck(a *App) func(*console, *profileFlags, *provision.Profile) stage.Step {
	return func(con *console, f *profileFlags, p *provision.Profile) stage.Step {
		return stage.Do(func(ctx context.Context, st *stage.State) error {
			prev, h := st.Live, st.Host
			if prev == nil {
				return exitcode.With(exitcode.Config, fmt.Errorf("%s has no wptest profile to swap (no %s): bring one up first with `wptest up --profile %s --target %s`",
					h.Name(), hostmanifest.Path, p.Name, f.target))
			}
			if prev.Profile == p.Name {
				con.say("[%s] swap: %s is already the live profile; re-applying it", h.Name(), p.Name)
			} else {
				con.say("[%s] swap: %s -> %s", h.Name(), prev.Profile, p.Name)
			}
			return nil
		})
	}
}
