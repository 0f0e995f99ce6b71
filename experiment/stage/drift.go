package stage

import (
	"context"
	"fmt"
	"strings"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// DriftCheck compares the host with the drift record of the last apply
// (State.Live's) before this apply changes anything: what was changed by
// hand since. Refuse stops the command there (exit 4, naming each drift,
// nothing changed), as `run` does without --accept-drift; otherwise the
// drifts are kept in State.Drift, split by the apply into what it resets
// (the files this profile writes, the database login) and what it keeps
// (what it only watches): ResetLines says both.
type DriftCheck struct{ Refuse bool }

func (s DriftCheck) Run(ctx context.Context, st *State) error {
	drifts, rec, err := hostmanifest.CheckDrift(ctx, st.Host, st.Live)
	if err != nil && s.Refuse {
		return exitcode.With(exitcode.Provision, err)
	}
	if err != nil {
		// up resets what it writes whatever the record says.
		drifts = []hostmanifest.Drift{{What: "the last apply's drift record was not read: " + err.Error()}}
	}
	st.Drift, st.DriftBefore = drifts, rec
	if len(drifts) > 0 && s.Refuse {
		return exitcode.With(exitcode.Provision, fmt.Errorf("the server on %s was changed by hand since the last apply; not measured (measure it as it is with --accept-drift, or reset it with wptest up):\n  %s",
			st.Host.Name(), strings.Join(DriftLines(drifts), "\n  ")))
	}
	return nil
}

func (DriftCheck) Cleanup(context.Context, *State) error { return nil }

// DriftLines are drifts in words, one line each.
func DriftLines(drifts []hostmanifest.Drift) []string {
	var out []string
	for _, d := range drifts {
		out = append(out, d.String())
	}
	return out
}

// Resets says of each drift found before the apply whether the apply
// reset it (hostmanifest.Reset: the record after it holds the path as the
// one before did). Call after the server stage.
func (st *State) Resets() (reset, kept []hostmanifest.Drift) {
	for _, d := range st.Drift {
		if hostmanifest.Reset(st.DriftBefore, st.DriftAfter, d) {
			reset = append(reset, d)
		} else {
			kept = append(kept, d)
		}
	}
	return reset, kept
}

// ResetLines are the lines up and a run print after the apply: one per
// drift it reset, one per drift it kept (now the record's).
func (st *State) ResetLines() []string {
	reset, kept := st.Resets()
	var out []string
	for _, d := range reset {
		out = append(out, "reset: "+d.String())
	}
	for _, d := range kept {
		out = append(out, "kept (the apply did not put it back; now in the drift record): "+d.String())
	}
	return out
}
