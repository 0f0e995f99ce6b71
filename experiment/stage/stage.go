// Package stage holds the stages every wptest command is made of, each
// written once (DESIGN.md § "Stages: written once, composed by every
// command"): the server profile, the agent, the site, the machines. A
// command is a list of steps run by internal/multistep: in order, then
// their cleanups in reverse. It joins provision, fixture and the cloud
// drivers, as experiment does (it is part of it); cmd/wptest/cli and
// experiment both compose it.
package stage

import (
	"context"
	"fmt"
	"io"

	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/multistep"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// State is what the stages of one command share: each stage reads what
// an earlier one recorded and records what it made.
type State struct {
	Host  host.Host
	Facts host.Facts // read once (facts), then kept
	Log   io.Writer  // progress lines, "[host] ..."; nil: discarded

	Live      *hostmanifest.Manifest // the host manifest before the server stage (Live); nil: none
	Rendered  *provision.Rendered    // the profile rendered for the host (Render)
	Preflight *provision.Preflight   // what the host is and what will change (Preflight)
	Agent     string                 // what the agent stage did, in words (Agent)
	Report    *provision.Report      // the apply's report, also when it failed (Apply)
	ApplyErr  error                  // the apply's own error (Apply)
	Manifest  *hostmanifest.Manifest // the host manifest the server stage wrote (HostManifest)
	// Drift is what was changed by hand since the last apply, found
	// before this one (DriftCheck) against DriftBefore, the last apply's
	// drift record; DriftAfter is this apply's (HostManifest).
	Drift                   []hostmanifest.Drift
	DriftBefore, DriftAfter *hostmanifest.Record
	// Unfinished is the mark of an apply that did not finish, read by
	// Live (nil: none).
	Unfinished *hostmanifest.Unfinished

	Site     fixture.Site    // the site seeded and verified
	SiteDecl *provision.Site // the site as the live profile declares it; nil: none
}

// Step is one stage, or one part of one.
type Step = multistep.Step[*State]

// Run runs steps on st: in order, then their cleanups in reverse (on
// success, error and Ctrl-C alike).
func Run(ctx context.Context, st *State, steps ...Step) error {
	return multistep.Run(ctx, st, steps, multistep.Options{})
}

// Do is a step of a command's own (printing, a check): nothing to undo.
func Do(fn func(ctx context.Context, st *State) error) Step { return multistep.Do(fn) }

func (st *State) logf(format string, v ...any) {
	if st.Log != nil {
		fmt.Fprintf(st.Log, format+"\n", v...)
	}
}

// facts reads the host's facts once.
func (st *State) facts(ctx context.Context) error {
	if st.Facts.Platform != "" {
		return nil
	}
	f, err := st.Host.Facts(ctx)
	if err != nil {
		return exitcode.With(exitcode.Provision, fmt.Errorf("read facts of %s: %w", st.Host.Name(), err))
	}
	st.Facts = f
	return nil
}

// Host opens the host with open and closes it when the command ends.
func Host(open func(ctx context.Context) (host.Host, error)) Step {
	return multistep.Func[*State]{
		Do: func(ctx context.Context, st *State) error {
			h, err := open(ctx)
			if err != nil {
				return err
			}
			st.Host = h
			return nil
		},
		Cleanup: func(_ context.Context, st *State) error {
			if st.Host != nil {
				st.Host.Close()
			}
			return nil
		},
	}.Step()
}
