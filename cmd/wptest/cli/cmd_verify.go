package cli

import (
	"context"
	"flag"
	"fmt"
	"github.com/wptest/wptest/internal/termsafe"
	"path"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/results"
)

// wptest verify: recompute the fixture's hashes on a live site.
func verifyCommand() *command {
	return &command{name: "verify", synopsis: "check a live site against a fixture manifest (exit 5 on mismatch)",
		usage: "verify --target HOST [--manifest FILE] [flags]",
		about: "It recomputes the fixture's hashes on the live site and names what differs, and fetches a sample of its pages from the live profile's port (--http BASE: every page from BASE; --no-http: none).",
		examples: []string{"wptest verify --target local",
			"wptest verify --target run:20261205-101500-a1b2c3 --manifest agency-7.json -o json",
			"wptest verify --target local --http http://127.0.0.1:8080"},
		setup: define(func(fs *flag.FlagSet, f *verifyFlags) {
			addSiteFlags(fs, &f.sf)
			fs.StringVar(&f.manifest, "manifest", "", "the fixture manifest (from seed --manifest-out or fixture build; default: the site's own "+fixture.MarkerFile+")")
			fs.StringVar(&f.httpBase, "http", "", "fetch every generated URL from this base (e.g. http://127.0.0.1:8080) through the host: 200 and widget counts (default: a sample of "+fmt.Sprint(httpSample)+" from the live profile's port)")
			fs.BoolVar(&f.noHTTP, "no-http", false, "fetch no page (the site's server is down on purpose)")
			outputVar(fs, &f.output)
		}, runVerify)}
}

// verifyFlags are verify's flags.
type verifyFlags struct {
	sf                         siteFlags
	manifest, httpBase, output string
	noHTTP                     bool
}

func runVerify(ctx context.Context, a *App, f *verifyFlags, _ []string) error {
	if f.noHTTP && f.httpBase != "" {
		return usage("--http and --no-http: give one")
	}
	var err error
	// A given manifest is checked before anything connects: bad input fails fast.
	var m *fixture.Manifest
	if f.manifest != "" {
		if m, err = readManifest(a, f.manifest); err != nil {
			return err
		}
	}
	steps, err := f.sf.siteStages(a)
	if err != nil {
		return err
	}
	var rep *fixture.Report
	err = stage.Run(ctx, &stage.State{Log: a.Stderr}, append(steps, stage.Do(func(ctx context.Context, st *stage.State) error {
		if m == nil {
			// The site's own marker: trusted only as far as it regenerates to its root.
			var err error
			if m, err = siteManifest(ctx, st.Site); err != nil {
				return err
			}
		}
		fx, err := fixture.Regenerate(m)
		if err != nil {
			return exitcode.With(exitcode.Config, err)
		}
		hc := stage.HTTPCheck{Base: f.httpBase, Sample: httpSample}
		if f.noHTTP {
			hc = stage.HTTPCheck{}
		}
		rep, err = stage.Verify(ctx, st.Site, fx, hc)
		return err
	}))...)
	if err != nil {
		return err
	}
	// The site's names are the site user's to choose (PHP writes there):
	// no control character of theirs reaches the terminal.
	if f.output == "json" {
		if err := writeJSON(a.Stdout, rep, true); err != nil {
			return err
		}
	} else {
		for _, d := range rep.Lazy {
			fmt.Fprintf(a.Stderr, "lazy (info, not failed): %s\n", termsafe.Line(d.String()))
		}
		if rep.HTTPNote != "" {
			fmt.Fprintf(a.Stderr, "http: %s\n", termsafe.Line(rep.HTTPNote))
		}
		for _, d := range rep.Foreign {
			fmt.Fprintf(a.Stderr, "info (not failed): %s\n", termsafe.Line(d.String()))
		}
		for _, d := range rep.Diffs {
			fmt.Fprintf(a.Stdout, "MISMATCH %s\n", termsafe.Line(d.String()))
		}
		if rep.OK() {
			// Why they are apart, where the reader sees the verdict.
			fmt.Fprintf(a.Stdout, "OK %s seed %d root %s (%d lazy differences reported apart: caches, cron, salts, transients and widget settings WordPress rewrites as it runs, which the fixture's block theme does not show; its navigation, global styles and rewrite rules compared)\n", m.Inputs.Profile, m.Inputs.Seed, rep.Root[:32], len(rep.Lazy))
		}
	}
	if !rep.OK() {
		return exitcode.With(exitcode.Mismatch, fmt.Errorf("%s from fixture %s seed %d; live root %s, want %s", results.Plural(len(rep.Diffs), "difference"), m.Inputs.Profile, m.Inputs.Seed, rep.Root[:32], m.Short))
	}
	return nil
}

// httpSample is how many pages verify fetches by default: a few, so that
// it stays quick, covering each kind of page.
const httpSample = 8

// siteManifest reads the site's own marker as the site's owner (who may
// have put a link, a FIFO or a huge file at its name): anything but a
// regular file of ours is a mismatch naming it, never followed.
func siteManifest(ctx context.Context, s fixture.Site) (*fixture.Manifest, error) {
	p := path.Join(s.Docroot, fixture.MarkerFile)
	b, err := fixture.ReadMarker(ctx, s)
	if err != nil {
		return nil, exitcode.With(exitcode.Mismatch, fmt.Errorf("%w (no finished seed here; give --manifest)", err))
	}
	m, err := fixture.ParseManifest(b)
	if err != nil {
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("[%s] %s: %w", s.Host.Name(), p, err))
	}
	return m, nil
}
