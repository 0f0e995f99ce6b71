package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/wptest/wptest/internal/termsafe"
	"path"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/internal/exitcode"
)

// wptest verify: recompute the fixture's hashes on a live site.
func runVerify(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "verify")
	var sf siteFlags
	addSiteFlags(fs, &sf)
	manifest := fs.String("manifest", "", "the fixture manifest (from seed --manifest-out or fixture build; default: the site's own "+fixture.MarkerFile+")")
	httpBase := fs.String("http", "", "fetch every generated URL from this base (e.g. http://127.0.0.1:8080) through the host: 200 and widget counts (default: a sample of "+fmt.Sprint(httpSample)+" from the live profile's port)")
	noHTTP := fs.Bool("no-http", false, "fetch no page (the site's server is down on purpose)")
	output := outputFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *noHTTP && *httpBase != "" {
		return exitcode.With(exitcode.Config, fmt.Errorf("verify: --http and --no-http: give one"))
	}
	var err error
	// A given manifest is checked before anything connects: bad input fails fast.
	var m *fixture.Manifest
	if *manifest != "" {
		if m, err = readManifest(a, *manifest); err != nil {
			return err
		}
	}
	steps, err := sf.siteStages(a)
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
		hc := stage.HTTPCheck{Base: *httpBase, Sample: httpSample}
		if *noHTTP {
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
	if *output == "json" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		fmt.Fprintf(a.Stdout, "%s\n", termsafe.JSON(b))
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
		return exitcode.With(exitcode.Mismatch, fmt.Errorf("%d difference(s) from fixture %s seed %d; live root %s, want %s", len(rep.Diffs), m.Inputs.Profile, m.Inputs.Seed, rep.Root[:32], m.Short))
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
