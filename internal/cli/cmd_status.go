package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// wptest status: which profile is live on a host, with its versions and
// deviations (from the host manifest), and which web servers actually run
// right now (so a stale manifest shows).
func init() {
	register(command{name: "status", summary: "show a host's live profile, versions and deviations", run: runStatus})
}

// liveServers are the services a profile may run, by platform-neutral name:
// the host answers with wptest-svc, which the profiles install.
var liveServers = []string{"apache2", "httpd", "caddy", "corehttpd", "php8.2-fpm", "php-fpm"}

type statusResult struct {
	Target   string                 `json:"target"`
	Manifest *hostmanifest.Manifest `json:"manifest"`
	Running  []string               `json:"running"`
}

func runStatus(ctx context.Context, a *App, args []string) error {
	var target, knownHosts, identity, output string
	fs := newFlags(a, "status")
	addTargetFlags(fs, &target, &knownHosts, &identity)
	fs.StringVar(&output, "o", "text", "output: text or json")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if output != "text" && output != "json" {
		return exitcode.With(exitcode.Config, fmt.Errorf("-o %q: want text or json", output))
	}
	h, err := openTarget(ctx, a, target, knownHosts, identity)
	if err != nil {
		return err
	}
	defer h.Close()
	m, err := hostmanifest.Read(ctx, h)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	running, err := runningServers(ctx, h)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	if output == "json" {
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(statusResult{Target: target, Manifest: m, Running: running})
	}
	if m == nil {
		fmt.Fprintf(a.Stdout, "host:     %s\nprofile:  none (no %s; run wptest up)\n", h.Name(), hostmanifest.Path)
	} else {
		m.WriteText(a.Stdout)
	}
	if len(running) == 0 {
		fmt.Fprintln(a.Stdout, "running:  no web server or PHP-FPM")
	} else {
		fmt.Fprintf(a.Stdout, "running:  %s\n", strings.Join(running, " "))
	}
	return nil
}

// runningServers asks the host which of liveServers run now.
func runningServers(ctx context.Context, h host.Host) ([]string, error) {
	const svc = "/usr/local/lib/wptest/wptest-svc"
	script := "[ -x " + svc + " ] || exit 0; for s in " + strings.Join(liveServers, " ") + "; do " + svc + " $s status >/dev/null 2>&1 && echo $s; done; true"
	res, err := h.Run(ctx, host.Cmd{Script: script, Label: "status"})
	if err != nil {
		return nil, fmt.Errorf("status of %s: %w", h.Name(), err)
	}
	return strings.Fields(string(res.Stdout)), nil
}
