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
func runSwap(ctx context.Context, a *App, args []string) error {
	return runServer(ctx, a, "swap", args, swapCheck(a))
}

// swapCheck refuses a host without a live profile and says what is swapped.
func swapCheck(a *App) func(*console, *serverFlags, *provision.Profile) stage.Step {
	return func(con *console, f *serverFlags, p *provision.Profile) stage.Step {
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
