package stage

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// The server stage: render a profile for the host's platform (retiring
// what the live profile ran and this one does not), refuse blocked ops
// before anything changes, print the preflight, install the agent, apply
// with the profile's checks, write the host manifest. `up`, `swap` and
// `run` compose all of it (Server), `apply` its render and apply.

// ServerOptions say how a command runs the server stage.
type ServerOptions struct {
	Profile *provision.Profile
	// Diagnostics receives a failed render's diagnostics (with their
	// snippets); nil: only the error names them.
	Diagnostics io.Writer
	Preflight   io.Writer          // where the preflight is printed; nil: no preflight
	Agent       *Agent             // nil: no agent installed
	Progress    provision.Progress // the apply's events
	Tool        string             // "wptest 0.1.0", recorded in the host manifest
	// Uploads are the local files the profile's variables name
	// (ResolveArgs), put on the host before the apply.
	Uploads []LocalFile
	// Drift checks the host against the last apply's drift record before
	// anything changes; nil: not checked.
	Drift *DriftCheck
}

// Server is the whole server stage (after Live has read the host manifest).
func Server(o ServerOptions) []Step {
	steps := []Step{Render{Profile: o.Profile, Diagnostics: o.Diagnostics, Refuse: true}}
	if o.Drift != nil {
		steps = append(steps, *o.Drift)
	}
	if o.Preflight != nil {
		steps = append(steps, Preflight{Out: o.Preflight})
		if len(o.Uploads) > 0 {
			steps = append(steps, Do(func(ctx context.Context, st *State) error { WriteLocalFiles(o.Preflight, o.Uploads); return nil }))
		}
	}
	// From here the host changes: an apply that fails or is cut off from
	// now on leaves its mark, so the next drift check says so.
	steps = append(steps, BeginApply{Tool: o.Tool})
	if o.Agent != nil {
		steps = append(steps, *o.Agent)
	}
	if len(o.Uploads) > 0 {
		steps = append(steps, Upload{Files: o.Uploads})
	}
	return append(steps, Apply{Progress: o.Progress}, HostManifest{Tool: o.Tool})
}

// Live reads the host manifest: the profile live on the host now (nil:
// none), and the mark of a change that did not finish (State.Unfinished).
func Live() Step {
	return Do(func(ctx context.Context, st *State) error {
		m, err := hostmanifest.Read(ctx, st.Host)
		if err != nil {
			return exitcode.With(exitcode.Provision, err)
		}
		st.Live, st.Unfinished = m, hostmanifest.ReadUnfinished(ctx, st.Host)
		return nil
	})
}

// Render renders Profile for the host's platform, with the services of the
// live profile (State.Live) that this one does not run retired first, and
// the files it made in the site in sets this one does not make removed.
// Refuse refuses a failed precondition here, before anything changes (not
// even the agent); without it the engine refuses it in its report.
type Render struct {
	Profile     *provision.Profile
	Diagnostics io.Writer
	Refuse      bool
}

func (s Render) Run(ctx context.Context, st *State) error {
	p, h := s.Profile, st.Host
	if err := st.facts(ctx); err != nil {
		return err
	}
	facts := st.Facts
	supported := false
	for _, pl := range p.Platforms {
		supported = supported || pl == facts.Platform
	}
	if !supported {
		return exitcode.With(exitcode.Config, fmt.Errorf("profile %s supports %s; %s is %s (%s %s)",
			p.Name, strings.Join(p.Platforms, ", "), h.Name(), facts.Platform, facts.OSID, facts.OSVersion))
	}
	r, diags := p.Render(facts.Platform)
	if diags.HasErrors() {
		if s.Diagnostics != nil {
			_ = provision.WriteDiagnostics(s.Diagnostics, p.Files(), diags, false)
		}
		return exitcode.With(exitcode.Config, fmt.Errorf("render %s for %s: %s", p.Name, facts.Platform, diags.Error()))
	}
	// A part-applied server may run the unfinished profile's services too.
	prev := st.Live.Services()
	if st.Unfinished != nil {
		prev = append(prev, st.Unfinished.Services...)
	}
	r.Retire(prev)
	r.RetireMade(st.Live.Made())
	if s.Refuse && len(r.Blocked) > 0 {
		return exitcode.With(exitcode.Config, fmt.Errorf("profile %s cannot be applied on %s (nothing was changed):\n  %s", p.Name, h.Name(), strings.Join(r.Blocked, "\n  ")))
	}
	st.Rendered = r
	return nil
}

func (Render) Cleanup(context.Context, *State) error { return nil }

// Preflight prints what the host is and what will change, before anything does.
type Preflight struct{ Out io.Writer }

func (s Preflight) Run(ctx context.Context, st *State) error {
	pf, err := st.Rendered.Preflight(ctx, st.Host, st.Facts)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	st.Preflight = pf
	pf.WriteText(s.Out)
	return nil
}

func (Preflight) Cleanup(context.Context, *State) error { return nil }

// Apply applies the rendered profile: only the difference, then its
// checks. Its report is kept also when it fails (State.ApplyErr).
type Apply struct{ Progress provision.Progress }

func (s Apply) Run(ctx context.Context, st *State) error {
	st.Report, st.ApplyErr = st.Rendered.Apply(ctx, st.Host, s.Progress)
	return st.ApplyErr
}

func (Apply) Cleanup(context.Context, *State) error { return nil }

// HostManifest writes the host manifest of the applied profile, naming the
// profile it replaced, with the record of what it wrote and made in its
// site and the drift record (what it wrote and watches, as it left them).
type HostManifest struct{ Tool string }

func (s HostManifest) Run(ctx context.Context, st *State) error {
	previous := ""
	if st.Live != nil {
		previous = st.Live.Profile
	}
	m := hostmanifest.FromReport(st.Report, s.Tool, previous)
	if err := RecordSiteFiles(ctx, st.Host, m); err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	rec, err := hostmanifest.RecordDrift(ctx, st.Host, m)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	st.DriftAfter = rec
	if err := hostmanifest.Write(ctx, st.Host, m); err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	if err := hostmanifest.EndApply(ctx, st.Host); err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	st.Manifest = m
	return nil
}

// BeginApply marks the host as being applied the rendered profile
// (hostmanifest's apply mark, with the services it runs), before anything
// changes; the HostManifest step removes the mark once the apply
// finished. Found by the next Live, the mark says that what differs from
// the last drift record may be this apply's own work, not a change by
// hand, and which services a part-applied server may run (an earlier
// mark's too).
type BeginApply struct{ Tool string }

func (s BeginApply) Run(ctx context.Context, st *State) error {
	u := hostmanifest.Unfinished{Profile: st.Rendered.Profile.Name, Tool: s.Tool,
		Services: st.Rendered.ServicesOn(st.Facts.Init)}
	if st.Unfinished != nil {
		// An earlier unfinished apply's services stay to retire until an
		// apply finishes (this one may fail before it retires them).
		u.Services = append(u.Services, st.Unfinished.Services...)
	}
	if err := hostmanifest.BeginApply(ctx, st.Host, u); err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	return nil
}

func (BeginApply) Cleanup(context.Context, *State) error { return nil }

func (HostManifest) Cleanup(context.Context, *State) error { return nil }
