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
// hand since, unless a change did not finish (its mark, read by Live:
// State.Unfinished), when what differs may be that change's own work and
// is said so. Refuse stops the command there (exit 4, naming each drift,
// nothing changed), as `run` does without --accept-drift; otherwise the
// drifts are kept in State.Drift, split by the apply into what it resets
// (the files this profile writes, the database login) and what it keeps
// (what it only watches): ResetLines says both.
type DriftCheck struct{ Refuse bool }

func (s DriftCheck) Run(ctx context.Context, st *State) error {
	un := st.Unfinished
	drifts, rec, err := hostmanifest.CheckDrift(ctx, st.Host, st.Live)
	switch {
	case err != nil && s.Refuse && un != nil:
		// The record not read may be that change's own doing too (a cut
		// between the drift record and the manifest that binds it).
		return exitcode.With(exitcode.Provision, fmt.Errorf("the server on %s: %s; not measured (%s to finish it): %w", st.Host.Name(), un, un.Finish(), err))
	case err != nil && s.Refuse:
		return exitcode.With(exitcode.Provision, err)
	case err != nil:
		// up resets what it writes whatever the record says.
		drifts = []hostmanifest.Drift{{What: "the last apply's drift record was not read: " + err.Error()}}
	}
	st.Drift, st.DriftBefore = drifts, rec
	edits := hostmanifest.Edits(drifts) // a stopped database is started by the apply
	if !s.Refuse || len(edits) == 0 {
		// Nothing differs: this apply finishes whatever did not.
		return nil
	}
	if un != nil {
		// What differs may be that change's own work: not said to be by hand.
		return exitcode.With(exitcode.Provision, fmt.Errorf("the server on %s: %s; not measured (%s to finish it, or let this run's apply go on with --accept-drift); since the last finished apply it differs in:\n  %s",
			st.Host.Name(), un, un.Finish(), strings.Join(DriftLines(edits), "\n  ")))
	}
	return exitcode.With(exitcode.Provision, fmt.Errorf("the server on %s was changed by hand since the last apply; not measured (measure it as it is with --accept-drift, or reset it with wptest up):\n  %s",
		st.Host.Name(), strings.Join(DriftLines(edits), "\n  ")))
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

// ResetLines are the lines up and a run print after the apply, one per
// drift found before it: what the apply reset, what it kept (a path it
// watches and does not write: from now on the record's), what it left
// (another profile's path). Call after the server stage.
func (st *State) ResetLines() []string {
	words := map[string]string{
		hostmanifest.DriftReset: "reset: ",
		hostmanifest.DriftKept:  "kept (the apply did not put it back; now in the drift record): ",
		hostmanifest.DriftLeft:  "left as it is (the applied profile neither writes nor watches it): ",
	}
	after := ""
	if st.Unfinished != nil {
		// Not necessarily by hand: the apply that did not finish may have
		// made it.
		after = " (after an apply that did not finish: may be its own work)"
	}
	var out []string
	for _, d := range st.Drift {
		out = append(out, words[hostmanifest.Reset(st.DriftBefore, st.DriftAfter, d)]+d.String()+after)
	}
	return out
}

// FinishedLine says, after the server stage, what this apply finished of a
// change that had not (State.Unfinished): "" when there was none or this
// apply did not finish either. Not a drift: a line of its own, not
// recorded with what was changed by hand.
func (st *State) FinishedLine() string {
	if st.Unfinished == nil || st.Manifest == nil {
		return ""
	}
	verb := "finished"
	if st.Unfinished.Profile != st.Manifest.Profile {
		verb = "replaced"
	}
	return fmt.Sprintf("%s by this apply (profile %s): %s", verb, st.Manifest.Profile, st.Unfinished)
}
