package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// wptest up: attach to a machine, apply a server profile, prove it with the
// profile's checks, and record the result in the host manifest.
// agentPath is where up installs wptest itself on the host: the profiles'
// HTTP/3 checks run `wptest h3probe` there, and bench runs srvstat from it.
const agentPath = "/usr/local/lib/wptest/wptest"

// serverFlags are the flags up and swap share.
type serverFlags struct {
	profile    string
	profileDir string
	target     string
	knownHosts string
	identity   string
	agent      string
	output     string
	vars       multiFlag
	varFiles   multiFlag
}

func addServerFlags(a *App, name string, f *serverFlags) *flag.FlagSet {
	fs := newFlags(a, name)
	fs.StringVar(&f.profile, "profile", "", "profile name or alias (wptest profiles lists them)")
	fs.StringVar(&f.profileDir, "profile-dir", "", "load the profile from this directory instead of the shipped ones")
	addTargetFlags(fs, &f.target, &f.knownHosts, &f.identity)
	fs.StringVar(&f.agent, "agent", "", "wptest binary to install on the host as "+agentPath+" (default: this executable, when it runs on the host's OS and arch)")
	outputVar(fs, &f.output)
	fs.Var(&f.vars, "var", "set a profile variable: name=value (repeatable)")
	fs.Var(&f.varFiles, "var-file", "read profile variables from an HCL file (repeatable)")
	return fs
}

func addTargetFlags(fs *flag.FlagSet, target, knownHosts, identity *string) {
	fs.StringVar(target, "target", "", "host: local, ssh://user@host:port, or run:ID[/MACHINE] (made by `wptest machines up`)")
	fs.StringVar(knownHosts, "known-hosts", "", "known_hosts file pinning the host's key (required for ssh targets)")
	fs.StringVar(identity, "identity", "", "private key file for ssh (else $SSH_AUTH_SOCK's agent)")
}

// openTarget opens the --target host. Progress lines of the host's commands
// go to stderr.
func openTarget(ctx context.Context, a *App, target, knownHosts, identity string) (host.Host, error) {
	if target == "" {
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("--target is required (local or ssh://user@host:port)"))
	}
	if id, ok := strings.CutPrefix(target, "run:"); ok {
		return openRunMachine(ctx, a, id)
	}
	t, err := host.ParseTarget(target)
	if err != nil {
		return nil, exitcode.With(exitcode.Config, err)
	}
	opt := host.Options{KnownHostsFile: absPath(a, knownHosts), IdentityFile: absPath(a, identity), AgentSocket: a.Getenv("SSH_AUTH_SOCK")}
	if !t.Local && opt.KnownHostsFile == "" {
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("--known-hosts is required for %s: wptest only talks to hosts whose key is pinned", t))
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
func openRunMachine(ctx context.Context, a *App, spec string) (host.Host, error) {
	id, name, _ := strings.Cut(spec, "/")
	if name == "" {
		name = "server"
	}
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("--target run:%s: want run:ID or run:ID/MACHINE", spec))
	}
	dir := absPath(a, filepath.Join("runs", id))
	ms, err := cloud.ReadMachines(dir)
	if err != nil {
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("--target run:%s: %w (made by `wptest machines up`?)", spec, err))
	}
	m, err := cloud.FindMachine(ms, name)
	if err != nil {
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("--target run:%s: %w", spec, err))
	}
	h, err := cloud.Connect(ctx, dir, m, nil)
	if err != nil {
		return nil, exitcode.With(exitcode.Provision, err)
	}
	return h, nil
}

func absPath(a *App, p string) string {
	if p == "" || filepath.IsAbs(p) || a.WorkDir == "" {
		return p
	}
	return filepath.Join(a.WorkDir, p)
}

// loadServerProfile loads --profile or --profile-dir with the -var and
// -var-file values, through the same loader as plan and apply.
func loadServerProfile(a *App, f *serverFlags) (*provision.Profile, error) {
	return loadProfile(a, &profileFlags{profile: f.profile, profileDir: f.profileDir, output: f.output, vars: f.vars, varFiles: f.varFiles})
}

// renderForHost renders p for the host's platform (from its facts).
func renderForHost(ctx context.Context, a *App, p *provision.Profile, h host.Host) (*provision.Rendered, host.Facts, error) {
	facts, err := h.Facts(ctx)
	if err != nil {
		return nil, facts, exitcode.With(exitcode.Provision, fmt.Errorf("read facts of %s: %w", h.Name(), err))
	}
	supported := false
	for _, pl := range p.Platforms {
		supported = supported || pl == facts.Platform
	}
	if !supported {
		return nil, facts, exitcode.With(exitcode.Config, fmt.Errorf("profile %s supports %s; %s is %s (%s %s)",
			p.Name, strings.Join(p.Platforms, ", "), h.Name(), facts.Platform, facts.OSID, facts.OSVersion))
	}
	r, diags := p.Render(facts.Platform)
	if diags.HasErrors() {
		_ = provision.WriteDiagnostics(a.Stderr, p.Files(), diags, false)
		return nil, facts, exitcode.With(exitcode.Config, fmt.Errorf("render %s for %s: %s", p.Name, facts.Platform, diags.Error()))
	}
	return r, facts, nil
}

// installAgent puts the wptest binary on the host at agentPath unless the
// same bytes are already there. It reports whether it changed anything.
// Without a usable binary (another OS or arch, none given) it does nothing
// and says so: the profile checks that need it then fail with their own
// message.
func installAgent(ctx context.Context, a *App, h host.Host, facts host.Facts, agent string) (string, error) {
	path := absPath(a, agent)
	if path == "" {
		if runtime.GOOS != "linux" || archOf(facts.Arch) != runtime.GOARCH {
			return fmt.Sprintf("not installed: this wptest is %s/%s, the host is linux/%s (pass --agent)", runtime.GOOS, runtime.GOARCH, facts.Arch), nil
		}
		if a.Executable == "" {
			return "", fmt.Errorf("find this executable: unknown (pass --agent)")
		}
		path = a.Executable
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--agent: %w", err)
	}
	sum := sha256.Sum256(b)
	want := hex.EncodeToString(sum[:])
	res, err := h.Run(ctx, host.Cmd{Script: "sha256sum " + agentPath + " 2>/dev/null || true", Label: "agent"})
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(string(res.Stdout), want+" ") {
		return "up to date (sha256 " + want[:12] + ")", nil
	}
	if _, err := h.Run(ctx, host.Cmd{Script: "install -d -m 0755 " + filepath.Dir(agentPath), Label: "agent"}); err != nil {
		return "", err
	}
	if err := h.Put(ctx, agentPath, bytes.NewReader(b), host.PutOptions{Mode: 0o755}); err != nil {
		return "", fmt.Errorf("install wptest on %s: %w", h.Name(), err)
	}
	return "installed (sha256 " + want[:12] + ")", nil
}

func archOf(a string) string {
	switch a {
	case "x86_64", "amd64":
		return "amd64"
	case "aarch64", "arm64":
		return "arm64"
	}
	return a
}

// upResult is what up and swap print with -o json.
type upResult struct {
	Target    string                 `json:"target"`
	Previous  string                 `json:"previous_profile,omitempty"`
	Preflight *provision.Preflight   `json:"preflight"`
	Agent     string                 `json:"agent"`
	Report    *provision.Report      `json:"report"`
	Manifest  *hostmanifest.Manifest `json:"manifest,omitempty"`
	Seconds   float64                `json:"seconds"`
}

// applyServerProfile is the part up and swap share: render for the host,
// stop what the previous profile (prev: its host manifest, or nil) ran and
// this one does not, install the agent, apply, write the host manifest,
// print.
func applyServerProfile(ctx context.Context, a *App, f *serverFlags, p *provision.Profile, h host.Host, prev *hostmanifest.Manifest) error {
	start := a.Now()
	r, facts, err := renderForHost(ctx, a, p, h)
	if err != nil {
		return err
	}
	previous := ""
	if prev != nil {
		previous = prev.Profile
	}
	r.Retire(prev.Services())
	// Refuse before touching anything (not even the agent) when a
	// precondition fails: the engine would refuse too, but only later.
	if len(r.Blocked) > 0 {
		return exitcode.With(exitcode.Config, fmt.Errorf("profile %s cannot be applied on %s (nothing was changed):\n  %s", p.Name, h.Name(), strings.Join(r.Blocked, "\n  ")))
	}
	// The preflight first: what the host is and what will change, before
	// anything does.
	pf, err := r.Preflight(ctx, h, facts)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	pf.WriteText(a.Stderr)
	agent, err := installAgent(ctx, a, h, facts, f.agent)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	fmt.Fprintf(a.Stderr, "[%s] wptest agent: %s\n", h.Name(), agent)
	rep, applyErr := r.Apply(ctx, h, func(e provision.Event) {
		fmt.Fprintf(a.Stderr, "[%s] %s: %s\n", e.Host, e.Op, e.Msg)
	})
	res := upResult{Target: f.target, Previous: previous, Preflight: pf, Agent: agent, Report: rep}
	if applyErr == nil {
		tool := "wptest " + Version
		m := hostmanifest.FromReport(rep, tool, previous)
		if err := hostmanifest.Write(ctx, h, m); err != nil {
			return exitcode.With(exitcode.Provision, err)
		}
		res.Manifest = m
	}
	res.Seconds = a.since(start).Seconds()
	if f.output == "json" {
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else if rep != nil {
		if err := rep.WriteText(a.Stdout); err != nil {
			return err
		}
		if res.Manifest != nil {
			fmt.Fprintf(a.Stdout, "host manifest: %s (%d deviation(s))\n", hostmanifest.Path, len(res.Manifest.Deviations))
		}
	}
	return applyErr
}

func runUp(ctx context.Context, a *App, args []string) error {
	var f serverFlags
	fs := addServerFlags(a, "up", &f)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	p, err := loadServerProfile(a, &f)
	if err != nil {
		return err
	}
	h, err := openTarget(ctx, a, f.target, f.knownHosts, f.identity)
	if err != nil {
		return err
	}
	defer h.Close()
	prev, err := hostmanifest.Read(ctx, h)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	return applyServerProfile(ctx, a, &f, p, h, prev)
}
