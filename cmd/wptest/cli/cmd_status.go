package cli

import (
	"context"
	"flag"
	"fmt"
	"github.com/wptest/wptest/internal/termsafe"
	"strings"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// wptest status: which profile is live on a host, with its versions and
// deviations (from the host manifest), and which web servers actually run
// right now (so a stale manifest shows).
type statusResult struct {
	Target   string                 `json:"target"`
	Manifest *hostmanifest.Manifest `json:"manifest"`
	Running  []string               `json:"running"`
	// Drift is how the host differs from what the last apply left (its
	// drift record): hand edits, a database login that fails.
	Drift []hostmanifest.Drift `json:"drift"`
	// Unfinished: an apply began and did not finish (its mark is there:
	// it failed, was cut off or runs now), so the drift may be its own
	// work.
	Unfinished *hostmanifest.Unfinished `json:"unfinished_apply,omitempty"`
}

func statusCommand() *command {
	return &command{name: "status", synopsis: "show a host's live profile, versions and deviations",
		usage: "status --target HOST [-o text|json]",
		about: "Also its drift: every change by hand since the last up (or swap, or run's apply) to a file the profile writes or a path it watches, and a database login for the site that fails; and which of the servers wptest put there run now.",
		examples: []string{"wptest status --target local",
			"wptest status --target ssh://root@203.0.113.7:22 --known-hosts hosts.known",
			"wptest status --target 20261205-101500-a1b2c3 -o json"},
		setup: define(func(fs *flag.FlagSet, f *statusFlags) {
			f.targetFlags.add(fs)
			outputVar(fs, &f.output)
		}, runStatus)}
}

type statusFlags struct {
	targetFlags
	output string
}

func runStatus(ctx context.Context, a *App, f *statusFlags, _ []string) error {
	target, output := f.target, f.output
	h, err := openTarget(ctx, a, target, f.knownHosts, f.identity)
	if err != nil {
		return err
	}
	defer h.Close()
	m, err := hostmanifest.Read(ctx, h)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	un := hostmanifest.ReadUnfinished(ctx, h)
	running, err := runningServers(ctx, h, m, un)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	// A record that cannot be read is said as a drift: the rest of the
	// status still shows.
	drifts, _, err := hostmanifest.CheckDrift(ctx, h, m)
	if err != nil {
		drifts = []hostmanifest.Drift{{What: "the last apply's drift record was not read: " + err.Error()}}
	}
	// What the host says (facts, versions, deviations) reaches the
	// terminal without its control characters.
	if output == "json" {
		return writeJSON(a.Stdout, statusResult{Target: target, Manifest: m, Running: running, Drift: drifts, Unfinished: un}, true)
	}
	if m == nil {
		fmt.Fprintf(a.Stdout, "host:     %s\nprofile:  none (no %s; run wptest up)\n", h.Name(), hostmanifest.Path)
	} else {
		var b strings.Builder
		m.WriteText(&b)
		hostmanifest.WriteDrift(&b, drifts, m.Drift != nil)
		fmt.Fprint(a.Stdout, termsafe.Text(b.String()))
	}
	if un != nil {
		fmt.Fprintln(a.Stdout, termsafe.Line(fmt.Sprintf("apply:    %s (what differs from the drift record may be its own work; %s to finish it)", un, un.Finish())))
	}
	if len(running) == 0 {
		fmt.Fprintln(a.Stdout, "running:  none of the servers wptest put on this host")
	} else {
		fmt.Fprintln(a.Stdout, termsafe.Line("running:  "+strings.Join(running, " ")))
	}
	return nil
}

// runningServers asks the host which of the servers its manifest (and an
// unfinished apply's mark) knows
// run now, each by the status command the profile that ran it declared:
// the live profile's and those earlier profiles left (retired), so a
// stale manifest shows.
func runningServers(ctx context.Context, h host.Host, m *hostmanifest.Manifest, un *hostmanifest.Unfinished) ([]string, error) {
	var running []string
	seen := map[string]bool{}
	svcs := m.Services()
	if un != nil {
		svcs = append(svcs, un.Services...) // a part-applied server may run them
	}
	for _, s := range svcs {
		if seen[s.Name] || strings.TrimSpace(s.Status) == "" {
			continue // no status command: nothing says it runs
		}
		seen[s.Name] = true
		// The whole script's output and exit, whatever its last line is.
		res, err := h.Run(ctx, host.Cmd{Script: "{ " + s.Status + "\n} >/dev/null 2>&1 && echo running || echo stopped", Label: "status " + s.Name})
		if err != nil {
			return nil, fmt.Errorf("status of %s on %s: %w", s.Name, h.Name(), err)
		}
		if strings.TrimSpace(string(res.Stdout)) == "running" {
			running = append(running, s.Name)
		}
	}
	return running, nil
}
