package cli

import (
	"context"
	"flag"
	"fmt"
	"github.com/wptest/wptest/internal/termsafe"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/hostmanifest"
	"github.com/wptest/wptest/results"
)

// agentPath is where up installs wptest itself on the host: the profiles'
// HTTP/3 checks run `wptest h3probe` there, and bench runs srvstat from it.
const agentPath = stage.AgentPath

// targetFlags name the host a command works on: --target and how to trust
// and log in to it.
type targetFlags struct{ target, knownHosts, identity string }

func (f *targetFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&f.target, "target", "", "host: local, ssh://user@host:port, or run:ID[/MACHINE] (a machine `wptest machines up` made; a bare run id is run:ID)")
	fs.StringVar(&f.knownHosts, "known-hosts", "", "known_hosts file pinning the host's key (required for ssh targets)")
	fs.StringVar(&f.identity, "identity", "", "private key file for ssh (else $SSH_AUTH_SOCK's agent)")
}

// stage opens the target for a command's stages and closes it after; its
// commands and their output go to log (nil: nowhere).
func (f *targetFlags) stage(a *App, log io.Writer) stage.Step {
	return stage.Host(func(ctx context.Context) (host.Host, error) {
		return openTargetLog(ctx, a, f.target, f.knownHosts, f.identity, log)
	})
}

// addServerFlags are up's and swap's flags: a profile's, the agent's and
// --verbose.
func addServerFlags(fs *flag.FlagSet, f *profileFlags) {
	addProfileFlags(fs, f)
	fs.StringVar(&f.agent, "agent", "", "wptest binary to install on the host as "+agentPath+" (default: this executable, when it runs on the host's OS and arch)")
	fs.BoolVar(&f.verbose, "verbose", false, verboseUsage)
}

// openTarget opens the --target host.
func openTarget(ctx context.Context, a *App, target, knownHosts, identity string) (host.Host, error) {
	return openTargetLog(ctx, a, target, knownHosts, identity, nil)
}

// openTargetLog opens the --target host; its commands and their output go
// to log (nil: nowhere).
func openTargetLog(ctx context.Context, a *App, target, knownHosts, identity string, log io.Writer) (host.Host, error) {
	if target == "" {
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("--target is required (local or ssh://user@host:port)"))
	}
	if spec, ok := runTargetSpec(target); ok {
		return openRunMachine(ctx, a, spec, log)
	}
	t, err := host.ParseTarget(target)
	if err != nil {
		return nil, exitcode.With(exitcode.Config, err)
	}
	opt := host.Options{KnownHostsFile: absPath(a, knownHosts), IdentityFile: absPath(a, identity), AgentSocket: a.Getenv("SSH_AUTH_SOCK"), Log: log}
	if !t.Local && opt.KnownHostsFile == "" {
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("--known-hosts is required for %s: wptest only talks to hosts whose key is pinned", t))
	}
	if !t.Local {
		if err := checkSSHAuth(opt.KnownHostsFile, opt.IdentityFile, opt.AgentSocket); err != nil {
			return nil, err
		}
	}
	h, err := host.Open(ctx, t, opt)
	if err != nil {
		return nil, exitcode.With(exitcode.Provision, err)
	}
	return h, nil
}

// openRunMachine opens a machine that `wptest machines up` made:
// run:ID picks the server, run:ID/NAME a machine by name or role. Its key is
// the one pinned in the run's own known_hosts.
func openRunMachine(ctx context.Context, a *App, spec string, log io.Writer) (host.Host, error) {
	dir, m, err := runMachine(a, spec)
	if err != nil {
		return nil, err
	}
	h, err := cloud.Connect(ctx, dir, m, log)
	if err != nil {
		return nil, exitcode.With(exitcode.Provision, err)
	}
	return h, nil
}

// runMachine is the machine run:SPEC names (ID: the server, ID/NAME: by
// name or role) and its run's directory.
func runMachine(a *App, spec string) (string, cloud.Machine, error) {
	id, name, _ := strings.Cut(spec, "/")
	if name == "" {
		name = "server"
	}
	if err := cloud.ValidRunID(id); err != nil { // it becomes a path: runs/<id>
		return "", cloud.Machine{}, exitcode.With(exitcode.Config, fmt.Errorf("--target run:%s: want run:ID or run:ID/MACHINE: %w", spec, err))
	}
	rel, err := findRun(a, runsDir, id, false)
	if err != nil {
		return "", cloud.Machine{}, fmt.Errorf("--target run:%s: %w", spec, err)
	}
	dir := absPath(a, rel)
	ms, err := cloud.ReadMachines(dir)
	if err != nil {
		return "", cloud.Machine{}, exitcode.With(exitcode.Config, fmt.Errorf("--target run:%s: %w (made by `wptest machines up`?)", spec, err))
	}
	m, err := cloud.FindMachine(ms, name)
	if err != nil {
		return "", cloud.Machine{}, exitcode.With(exitcode.Config, fmt.Errorf("--target run:%s: %w", spec, err))
	}
	return dir, m, nil
}

func absPath(a *App, p string) string {
	if p == "" || filepath.IsAbs(p) || a.WorkDir == "" {
		return p
	}
	return filepath.Join(a.WorkDir, p)
}

// upResult is what up and swap print with -o json.
type upResult struct {
	Target    string                 `json:"target"`
	Previous  string                 `json:"previous_profile,omitempty"`
	Preflight *provision.Preflight   `json:"preflight"`
	Agent     string                 `json:"agent"`
	Report    *provision.Report      `json:"report"`
	Manifest  *hostmanifest.Manifest `json:"manifest,omitempty"`
	// Drift is what was changed since the last finished apply, as this
	// apply found it: "reset: ..." what it put back, "kept ...: ..." what
	// it does not write.
	Drift []string `json:"drift,omitempty"`
	// Finished: what this apply finished or replaced of a change that had
	// not finished (a failed or cut-off apply); "" none.
	Finished string  `json:"finished_apply,omitempty"`
	Seconds  float64 `json:"seconds"`
}

// serverStage is the server stage as up and swap run it: diagnostics and
// the preflight on stderr, the apply's events in the log (on a terminal,
// the latest on the live line); the agent from --agent, else this
// executable.
func serverStage(a *App, con *console, f *profileFlags, p *provision.Profile) []stage.Step {
	return stage.Server(stage.ServerOptions{Profile: p, Diagnostics: a.Stderr, Preflight: con.lines(),
		Agent:    &stage.Agent{Exe: absPath(a, f.agent), Self: a.Executable},
		Progress: con.events(),
		Tool:     tool, Uploads: f.uploads, Drift: &stage.DriftCheck{}})
}

// runServer is up and swap: their flags and profile, then the host, the
// profile live there, check (swap's; nil: none), the server stage; then
// the result on stdout, also when the apply failed.
func runServer(ctx context.Context, a *App, name string, f *profileFlags, check func(*console, *profileFlags, *provision.Profile) stage.Step) error {
	p, err := loadProfile(a, f)
	if err != nil {
		return err
	}
	start := a.Now()
	con := commandConsole(a, name, f.target, f.verbose)
	defer con.close()
	st := &stage.State{Log: con.lines()}
	steps := []stage.Step{f.stage(a, con.Detail()), con.startStage(), stage.Live()}
	if check != nil {
		steps = append(steps, check(con, f, p))
	}
	err = stage.Run(ctx, st, append(steps, serverStage(a, con, f, p)...)...)
	if err != nil {
		con.failed()
	}
	if st.Report == nil || err != st.ApplyErr {
		return err
	}
	if err := printServer(a, f, st, a.since(start)); err != nil {
		return err
	}
	return err
}

// printServer prints what up and swap did: the apply's report and the
// host manifest, or all of it as JSON (-o json).
func printServer(a *App, f *profileFlags, st *stage.State, took time.Duration) error {
	res := upResult{Target: f.target, Preflight: st.Preflight, Agent: st.Agent, Report: st.Report, Manifest: st.Manifest, Drift: st.ResetLines(), Finished: st.FinishedLine(), Seconds: took.Seconds()}
	if st.Live != nil {
		res.Previous = st.Live.Profile
	}
	if f.output == "json" {
		return writeJSON(a.Stdout, res, true)
	}
	if err := st.Report.WriteText(a.Stdout); err != nil {
		return err
	}
	if st.Manifest != nil {
		fmt.Fprintf(a.Stdout, "host manifest: %s (%s)\n", hostmanifest.Path, results.Plural(len(st.Manifest.Deviations), "deviation"))
	}
	for _, l := range res.Drift {
		fmt.Fprintln(a.Stdout, termsafe.Line(l))
	}
	if res.Finished != "" {
		fmt.Fprintln(a.Stdout, termsafe.Line(res.Finished))
	}
	return nil
}

// wptest up: attach to a machine, apply a server profile, prove it with the
// profile's checks, and record the result in the host manifest.
func upCommand() *command {
	return &command{name: "up", synopsis: "apply a server profile to a host and record it in the host manifest",
		usage: "up --profile NAME --target HOST [-var name=value ...] [flags]",
		about: "First a one-screen preflight (platform, SELinux, firewalld, init system, free memory and disk), then the apply, the profile's checks, the wptest agent and the host manifest. The host's commands and their output go to a log (--verbose: to stderr too).",
		examples: []string{"wptest up --profile caddy --target local",
			"wptest up --profile cpanel --target ssh://root@203.0.113.7:22 --known-hosts hosts.known --identity ~/.ssh/id_ed25519",
			"wptest up --profile tuned --target run:20261205-101500-a1b2c3"},
		setup: define(addServerFlags, func(ctx context.Context, a *App, f *profileFlags, _ []string) error {
			return runServer(ctx, a, "up", f, nil)
		})}
}
