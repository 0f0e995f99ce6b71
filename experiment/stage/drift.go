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
// hand since, unless the last apply did not finish (its mark is there:
// State.Unfinished), when what differs may be that apply's own work and is
// said so. Refuse stops the command there (exit 4, naming each drift,
// nothing changed), as `run` does without --accept-drift; otherwise the
// drifts are kept in State.Drift, split by the apply into what it resets
// (the files this profile writes, the database login) and what it keeps
// (what it only watches): ResetLines says both.
type DriftCheck struct{ Refuse bool }

func (s DriftCheck) Run(ctx context.Context, st *State) error {
	un, err := hostmanifest.ReadUnfinished(ctx, st.Host)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	drifts, rec, err := hostmanifest.CheckDrift(ctx, st.Host, st.Live)
	if err != nil && s.Refuse {
		return exitcode.With(exitcode.Provision, err)
	}
	if err != nil {
		// up resets what it writes whatever the record says.
		drifts = []hostmanifest.Drift{{What: "the last apply's drift record was not read: " + err.Error()}}
	}
	edits := hostmanifest.Edits(drifts) // a stopped database is started by the apply
	st.Drift, st.DriftBefore, st.Unfinished = drifts, rec, un
	if !s.Refuse {
		return nil
	}
	switch {
	case un != nil:
		// What differs may be that apply's own work: not said to be by hand.
		return exitcode.With(exitcode.Provision, fmt.Errorf("the server on %s is part-applied: %s; not measured (finish it with %s, or measure it as it is with --accept-drift); since the last finished apply it differs in:\n  %s",
			st.Host.Name(), un, un.UpCommand(), strings.Join(orNothing(DriftLines(edits)), "\n  ")))
	case len(edits) > 0:
		return exitcode.With(exitcode.Provision, fmt.Errorf("the server on %s was changed by hand since the last apply; not measured (measure it as it is with --accept-drift, or reset it with wptest up):\n  %s",
			st.Host.Name(), strings.Join(DriftLines(edits), "\n  ")))
	}
	return nil
}

func orNothing(lines []string) []string {
	if len(lines) == 0 {
		return []string{"nothing the drift record watches"}
	}
	return lines
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
	var out []string
	if st.Unfinished != nil {
		out = append(out, "completed by this apply: "+st.Unfinished.String())
	}
	for _, d := range st.Drift {
		out = append(out, words[hostmanifest.Reset(st.DriftBefore, st.DriftAfter, d)]+d.String())
	}
	return out
}
