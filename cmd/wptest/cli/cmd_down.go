package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/termsafe"
	"github.com/wptest/wptest/provision/cloud"
)

func runDown(ctx context.Context, a *App, args []string) error {
	s := newCloudSession(a)
	defer s.close()
	return s.redacted(s.down(ctx, args))
}

func (s *cloudSession) down(ctx context.Context, args []string) error {
	a := s.a
	fs := newFlags(a, "down")
	runID := fs.String("run", "", "the run to remove (required; see runs/ or wptest machines list)")
	driver := fs.String("driver", "", "driver (default: the run's, from runs/<id>/run.json, else the default one)")
	debugFile := fs.String("debug-file", "", "write the API requests and responses here (secrets redacted)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *runID == "" {
		return exitcode.With(exitcode.Config, cloud.ErrEmptySelector)
	}
	if err := cloud.ValidRunID(*runID); err != nil {
		return exitcode.With(exitcode.Config, err)
	}
	dir := s.runDir(*runID)
	d := *driver
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
	sel := cloud.Selector{Run: *runID}
	if _, err := os.Stat(dir); err == nil {
		jpath := filepath.Join(dir, cloud.JournalFile)
		if evs, err := cloud.ReadJournal(jpath); err == nil {
			for _, e := range cloud.Unfinished(evs) {
				fmt.Fprintf(s.errw, "down: the journal does not know how \"%s\" ended (interrupted?); looking for it by label\n",
					termsafe.Line(e.Op+" "+e.Kind+" "+e.Name)) // the journal is a file of the run directory
			}
		}
		j, err := cloud.OpenJournal(jpath, a.Now)
		if err != nil {
			return err
		}
		defer j.Close()
		sel.Journal = j
	}
	c, err := s.driver(d, *debugFile)
	if err != nil {
		return err
	}
	if err := c.Destroy(ctx, sel); err != nil {
		var te *cloud.TeardownError
		if !errors.As(err, &te) {
			err = exitcode.With(exitcode.Teardown, &cloud.TeardownError{Run: *runID, Err: err})
		}
		return err
	}
	// Servers that stay (given, not made): what their profile must not
	// leave behind goes with the run.
	if err := stage.TeardownKept(ctx, dir, s.errw); err != nil {
		return exitcode.With(exitcode.Teardown, fmt.Errorf("down: run %s: %w", *runID, err))
	}
	fmt.Fprintf(s.errw, "down: run %s removed\n", *runID)
	return nil
}
