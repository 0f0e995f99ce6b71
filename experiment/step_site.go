package experiment

import (
	"context"
	"fmt"
	"strings"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/results"
)

// stepSite: on a fresh run, the fixture is seeded once into the site the
// first column's profile declares (stepServer made it ready) and
// verified, files, rows and every page over HTTP; a resumed run verifies
// what the first session seeded. The site stays after the run: no
// cleanup.
type stepSite struct{ noCleanup }

func (stepSite) Name() string { return "site" }

func (s stepSite) Run(ctx context.Context, r *runner) error {
	site, decl, err := stage.HostSite(ctx, r.srv.h)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	if r.opt.Redactor != nil {
		r.opt.Redactor.Add(site.DB.Password)
	}
	if r.man.Fixture.Verified == "" {
		return s.seed(ctx, r, site, decl)
	}
	return s.verify(ctx, r, site, false)
}

// seed seeds the fixture once into the site the live profile declares and
// verifies it (the site stage).
func (s stepSite) seed(ctx context.Context, r *runner, site fixture.Site, decl *provision.Site) error {
	t0 := r.opt.now()
	m, err := stage.SeedSite(ctx, site, decl, r.fx, stage.CoreOf(decl), r.opt.Log)
	if fixture.IsMismatch(err) {
		return exitcode.With(exitcode.Mismatch, err)
	}
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	r.man.Fixture.Deviations = m.Deviations
	r.man.Fixture.Docroot = site.Docroot
	r.say(Stage, "[%s] fixture %s seed %d seeded in %.1fs (root %s)", r.srv.h.Name(), r.sp.Fixture.Profile, r.sp.Fixture.Seed, r.since(t0).Seconds(), m.Short)
	return s.verify(ctx, r, site, true)
}

// verify recomputes the fixture's hashes on the live site (and, after a
// seed, fetches every page over HTTP); a difference stops the run (exit 5).
func (stepSite) verify(ctx context.Context, r *runner, site fixture.Site, http bool) error {
	var hc stage.HTTPCheck
	if http {
		hc.Base = "http://" + hostPort("127.0.0.1", r.sp.HTTPPort)
	}
	rep, err := stage.Verify(ctx, site, r.fx, hc)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	if http {
		r.man.Fixture.HTTPPages = rep.HTTPPages
	}
	if !rep.OK() {
		var d []string
		for i, x := range rep.Diffs {
			if i == 10 {
				d = append(d, fmt.Sprintf("... and %d more", len(rep.Diffs)-10))
				break
			}
			d = append(d, x.String())
		}
		return exitcode.With(exitcode.Mismatch, fmt.Errorf("fixture on %s is not %s seed %d: root %s, want %s\n  %s",
			r.srv.h.Name(), r.sp.Fixture.Profile, r.sp.Fixture.Seed, rep.Root, rep.Want, strings.Join(d, "\n  ")))
	}
	r.man.Fixture.Verified = rep.Root
	r.man.Fixture.Lazy = len(rep.Lazy)
	r.say(Stage, "[%s] fixture verified: root %s (%s over HTTP, %s apart)", r.srv.h.Name(), rep.Root[:16], results.Plural(r.man.Fixture.HTTPPages, "page"), results.Plural(len(rep.Lazy), "lazy row"))
	return r.man.Write(r.dir)
}
