package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/termsafe"
	"github.com/wptest/wptest/provision/cloud"
)

func downCommand() *command {
	return &command{name: "down", synopsis: "remove a run's machines and everything else it made, by label",
		usage: "down --run ID [--driver NAME] [--debug-file FILE]",
		about: "A server that stays (static, local) runs its profile's teardown (its firewalld rules go). A run this machine has no directory of (made elsewhere) is removed by its labels when --driver is given.",
		examples: []string{"wptest down --run 20261205-101500-a1b2c3",
			"wptest down --run 20261205-101500-a1b2c3 --driver hetzner --debug-file down-api.log"},
		setup: define(func(fs *flag.FlagSet, f *downFlags) {
			fs.StringVar(&f.run, "run", "", "the run to remove, by its id (required; see runs/ or wptest machines list)")
			f.driverFlags.add(fs, "driver (default: the run's, from runs/<id>/run.json, else the default one)")
		}, cloudRun(down))}
}

type downFlags struct {
	driverFlags
	run string
}

func down(ctx context.Context, s *cloudSession, f *downFlags, _ []string) error {
	if f.run == "" {
		return exitcode.With(exitcode.Config, cloud.ErrEmptySelector)
	}
	if err := cloud.ValidRunID(f.run); err != nil {
		return exitcode.With(exitcode.Config, err)
	}
	// A run named wrong is said before any driver is asked (or asks for
	// a token); a run made elsewhere has only its labels here.
	if _, err := findRun(s.a, runsDir, f.run, false); err != nil && f.driver == "" {
		return fmt.Errorf("%w; a run made on another machine: give --driver to remove it by its labels", err)
	}
	dir := s.runDir(f.run)
	d := f.driver
	if ri, err := stage.ReadRunInfo(dir); err == nil && d == "" {
		d = ri.Driver
	}
	if d == "" {
		def, err := cloud.DefaultDriver(false)
		if err != nil {
			return err
		}
		d = def.Name
	}
	sel := cloud.Selector{Run: f.run}
	if _, err := os.Stat(dir); err == nil {
		jpath := filepath.Join(dir, cloud.JournalFile)
		if evs, err := cloud.ReadJournal(jpath); err == nil {
			for _, e := range cloud.Unfinished(evs) {
				fmt.Fprintf(s.errw, "down: the journal does not know how \"%s\" ended (interrupted?); looking for it by label\n",
					termsafe.Line(e.Op+" "+e.Kind+" "+e.Name)) // the journal is a file of the run directory
			}
		}
		j, err := cloud.OpenJournal(jpath, s.a.Now)
		if err != nil {
			return err
		}
		defer j.Close()
		sel.Journal = j
	}
	c, err := s.driver(d, f.debugFile)
	if err != nil {
		return err
	}
	if err := c.Destroy(ctx, sel); err != nil {
		var te *cloud.TeardownError
		if !errors.As(err, &te) {
			err = exitcode.With(exitcode.Teardown, &cloud.TeardownError{Run: f.run, Err: err})
		}
		return err
	}
	// Servers that stay (given, not made): what their profile must not
	// leave behind goes with the run.
	if err := stage.TeardownKept(ctx, dir, s.errw); err != nil {
		return exitcode.With(exitcode.Teardown, fmt.Errorf("down: run %s: %w", f.run, err))
	}
	fmt.Fprintf(s.errw, "down: run %s removed\n", f.run)
	return nil
}
