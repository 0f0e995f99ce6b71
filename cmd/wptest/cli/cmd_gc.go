package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/wptest/wptest/provision/cloud"
)

// driverFlags are --driver and --debug-file, of the commands that ask a
// driver about what it made: gc, down, machines list.
type driverFlags struct{ driver, debugFile string }

func (f *driverFlags) add(fs *flag.FlagSet, driverHelp string) {
	fs.StringVar(&f.driver, "driver", "", driverHelp)
	fs.StringVar(&f.debugFile, "debug-file", "", "write the API requests and responses here (secrets redacted)")
}

// cloudRun is the run func of a command that talks to a driver: it runs
// in a session whose redactor every line it prints, and its error, pass.
func cloudRun[F any](run func(context.Context, *cloudSession, *F, []string) error) func(context.Context, *App, *F, []string) error {
	return func(ctx context.Context, a *App, f *F, args []string) error {
		s := newCloudSession(a)
		defer s.close()
		return s.redacted(run(ctx, s, f, args))
	}
}

// labelled opens the driver that gc and machines list ask: --driver, else
// the default one; it must label what it makes.
func (s *cloudSession) labelled(f *driverFlags) (cloud.Cloud, error) {
	name, err := labelDriver(f.driver)
	if err != nil {
		return nil, err
	}
	return s.driver(name, f.debugFile)
}

func gcCommand() *command {
	return &command{name: "gc", synopsis: "remove every run whose expiry label has passed (label-scoped)",
		usage:    "gc [--dry-run] [--driver NAME] [--debug-file FILE]",
		about:    "It lists every run by its labels and removes those whose ttl has passed; it prints the ids of the runs it removed.",
		examples: []string{"wptest gc --dry-run", "wptest gc", "wptest gc --driver hetzner --debug-file gc-api.log"},
		setup: define(func(fs *flag.FlagSet, f *gcFlags) {
			fs.BoolVar(&f.dry, "dry-run", false, "only say which runs would be removed")
			f.driverFlags.add(fs, "the driver whose runs to collect (default: the default one; wptest machines drivers)")
		}, cloudRun(gc))}
}

type gcFlags struct {
	driverFlags
	dry bool
}

func gc(ctx context.Context, s *cloudSession, f *gcFlags, _ []string) error {
	c, err := s.labelled(&f.driverFlags)
	if err != nil {
		return err
	}
	removed, err := cloud.GC(ctx, c, s.a.Now(), f.dry, s.errw)
	for _, id := range removed {
		fmt.Fprintln(s.out, id)
	}
	return err
}
