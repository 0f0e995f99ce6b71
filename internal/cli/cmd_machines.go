package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/cloud/hetzner"
)

const machinesUsage = `usage: wptest machines <plan|up|list> [flags]

  plan   validate the machines block against the provider and print what would
         be created and its hourly price; creates nothing
  up     create the machines, wait for SSH (pinned host keys) and cloud-init,
         and leave them up until their ttl; remove them with wptest down --run ID
  list   list every resource wptest made (all runs), with its expiry

The Hetzner API token comes from HCLOUD_TOKEN (HCLOUD_ENDPOINT optional) or the
active context of the hcloud CLI config (HCLOUD_CONFIG, default
~/.config/hcloud/cli.toml); never from a flag.`

func runMachines(ctx context.Context, a *App, args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(a.Stderr, machinesUsage)
		return exitcode.With(exitcode.Config, errors.New("missing subcommand"))
	}
	switch args[0] {
	case "plan":
		return machinesPlanUp(ctx, a, args[1:], false)
	case "up":
		return machinesPlanUp(ctx, a, args[1:], true)
	case "list":
		return machinesList(ctx, a, args[1:])
	case "-h", "--help", "help":
		fmt.Fprintln(a.Stderr, machinesUsage)
		return flag.ErrHelp
	}
	fmt.Fprintln(a.Stderr, machinesUsage)
	return exitcode.With(exitcode.Config, fmt.Errorf("unknown subcommand %q", args[0]))
}

// cloudSession is what every cloud command shares: one redactor wrapping all
// output, the driver, and the working directory.
type cloudSession struct {
	a      *App
	red    *cloud.Redactor
	out    *cloud.RedactWriter // data
	errw   *cloud.RedactWriter // progress
	debugF *os.File
}

func newCloudSession(a *App) *cloudSession {
	s := &cloudSession{a: a, red: &cloud.Redactor{}}
	s.out, s.errw = s.red.Writer(a.Stdout), s.red.Writer(a.Stderr)
	return s
}

// redacted wraps err so its message passes through the redactor too: the
// CLI prints the final error straight to stderr.
func (s *cloudSession) redacted(err error) error {
	if err == nil {
		return nil
	}
	return &redactedError{err: err, red: s.red}
}

type redactedError struct {
	err error
	red *cloud.Redactor
}

func (e *redactedError) Error() string { return e.red.String(e.err.Error()) }
func (e *redactedError) Unwrap() error { return e.err }

func (s *cloudSession) close() {
	s.out.Flush()
	s.errw.Flush()
	if s.debugF != nil {
		s.debugF.Close()
	}
}

func (s *cloudSession) path(p string) string {
	if p == "" || filepath.IsAbs(p) || s.a.WorkDir == "" {
		return p
	}
	return filepath.Join(s.a.WorkDir, p)
}

func (s *cloudSession) runDir(id string) string { return s.path(filepath.Join("runs", id)) }

// hcloudConfigPath is where the hcloud CLI keeps its contexts.
func (s *cloudSession) hcloudConfigPath() string {
	if p := s.a.Getenv("HCLOUD_CONFIG"); p != "" {
		return p
	}
	if h := s.a.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "hcloud", "cli.toml")
	}
	return ""
}

// driver opens the named driver. debugFile, if set, receives hcloud-go's
// HTTP dumps through the redactor.
func (s *cloudSession) driver(name, debugFile string) (cloud.Cloud, error) {
	switch name {
	case "local":
		return cloud.Local{}, nil
	case "static":
		return cloud.Static{}, nil
	case "hetzner":
	default:
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("unknown driver %q (hetzner, static, local)", name))
	}
	creds, err := cloud.ResolveCredentials(s.a.Getenv, s.hcloudConfigPath())
	if err != nil {
		return nil, err
	}
	s.red.Add(creds.Token)
	opt := hetzner.Options{Credentials: creds, Redactor: s.red, Log: s.errw, Version: Version, Backoff: s.a.CloudBackoff}
	if debugFile != "" {
		f, err := os.OpenFile(s.path(debugFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, exitcode.With(exitcode.Config, fmt.Errorf("debug file: %w", err))
		}
		s.debugF = f
		opt.Debug = f
	}
	return hetzner.New(opt)
}

// newRunID is sortable by time and unique enough: 20261129-221530-a1b2c3.
func newRunID(now time.Time) string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}

func machinesPlanUp(ctx context.Context, a *App, args []string, up bool) error {
	s := newCloudSession(a)
	defer s.close()
	err := s.planUp(ctx, args, up)
	if up {
		err = interrupted(ctx, err)
	}
	return s.redacted(err)
}

// interrupted maps the error of a command that makes machines and was
// stopped by SIGINT or SIGTERM (ctx cancelled) onto one outcome. Its
// cleanups have run by then, and a cloud teardown returns no error only
// when the run's label lists nothing: so either nothing is left (exit 8,
// "interrupted; nothing left") or the teardown error names what is (exit 7).
func interrupted(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	if exitcode.Of(err) == exitcode.Teardown {
		return exitcode.With(exitcode.Teardown, fmt.Errorf("interrupted; %w", err))
	}
	return exitcode.With(exitcode.Interrupted, errors.New("interrupted; nothing left"))
}

// machinesFlags are the flags of machines plan and up.
type machinesFlags struct {
	file, driver, knownHosts, identity, runID, profile, debugFile, output *string
	vars, targets                                                         multiFlag
	wait                                                                  *time.Duration
}

func (s *cloudSession) machinesFlags(name string) (*flag.FlagSet, *machinesFlags) {
	fs := newFlags(s.a, name)
	f := &machinesFlags{}
	f.file = fs.String("f", "", "HCL file with a machines block (default: hetzner defaults, ccx23 in fsn1)")
	fs.Var(&f.vars, "var", "override a machines attribute: name=value ("+cloud.MachineVars+"); repeatable")
	f.driver = fs.String("driver", "", "hetzner, static or local (default: the file's, else hetzner; static if --target is given)")
	fs.Var(&f.targets, "target", "a host you already have, ssh://user@host:port (static driver); repeatable: first is the server")
	f.knownHosts = fs.String("known-hosts", "", "known_hosts file pinning the --target hosts (static driver)")
	f.identity = fs.String("identity", "", "private key the --target hosts accept (static driver)")
	f.runID = fs.String("run", "", "run id (default: a new one from the time)")
	f.profile = fs.String("profile", "", "profile name, recorded as a label")
	f.debugFile = fs.String("debug-file", "", "write the Hetzner API requests and responses here (secrets redacted)")
	f.output = outputFlag(fs)
	f.wait = fs.Duration("wait", 10*time.Minute, "how long to wait for SSH and cloud-init")
	return fs, f
}

func (s *cloudSession) planUp(ctx context.Context, args []string, up bool) error {
	name := "machines plan"
	if up {
		name = "machines up"
	}
	fs, f := s.machinesFlags(name)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	m, err := s.machines(f)
	if err != nil {
		return err
	}
	run, err := s.newRun(m, f)
	if err != nil {
		return err
	}
	c, err := s.driver(m.Driver, *f.debugFile)
	if err != nil {
		return err
	}
	plan, err := c.Plan(ctx, cloud.Spec{Machines: m, Run: run})
	if err != nil {
		return err
	}
	if !up {
		if *f.output == "json" {
			return json.NewEncoder(s.out).Encode(plan)
		}
		plan.WriteText(s.out)
		return nil
	}
	ms, err := stage.Machines{Cloud: c, Plan: plan, Driver: m.Driver, Keep: true, Wait: *f.wait, Log: s.errw, Now: s.a.Now}.Up(ctx)
	if err != nil {
		return err
	}
	if *f.output == "json" {
		return json.NewEncoder(s.out).Encode(ms)
	}
	printMachines(s.out, ms)
	s.printUp(m, plan, run)
	return nil
}

// machines is the machines block: -f's (with -var over it) or the
// driver's defaults, then the flags over it, validated.
func (s *cloudSession) machines(f *machinesFlags) (cloud.Machines, error) {
	vm, err := cloud.ParseVars(f.vars)
	if err != nil {
		return cloud.Machines{}, err
	}
	var m cloud.Machines
	if *f.file != "" {
		src, err := os.ReadFile(s.path(*f.file))
		if err != nil {
			return m, exitcode.With(exitcode.Config, err)
		}
		if m, err = cloud.LoadMachines(*f.file, src, vm); err != nil {
			return m, err
		}
	} else {
		d := "hetzner"
		if len(f.targets) > 0 {
			d = "static"
		}
		m = cloud.DefaultMachines(d)
		unused, err := m.ApplyVars(vm)
		if err != nil {
			return m, err
		}
		if len(unused) > 0 {
			return m, exitcode.With(exitcode.Config, fmt.Errorf("-var %s: not a machines attribute (%s)", strings.Join(unused, ", "), cloud.MachineVars))
		}
	}
	if *f.driver != "" {
		m.Driver = *f.driver
	}
	if len(f.targets) > 0 {
		m.Targets = f.targets
	}
	if *f.knownHosts != "" {
		m.KnownHosts = s.path(*f.knownHosts)
	}
	if *f.identity != "" {
		m.IdentityFile = s.path(*f.identity)
	}
	m.SSHFromThisHost(s.a.addrs())
	return m, m.Validate()
}

// newRun is the run the machines belong to: its id (--run, else a new one
// from the clock), directory, owner and ttl.
func (s *cloudSession) newRun(m cloud.Machines, f *machinesFlags) (cloud.Run, error) {
	ttl, _ := m.TTLDuration()
	now := s.a.Now()
	id := *f.runID
	if id == "" {
		id = newRunID(now)
	}
	if err := cloud.ValidRunID(id); err != nil {
		return cloud.Run{}, exitcode.With(exitcode.Config, err)
	}
	owner := s.a.Getenv("USER")
	if s.a.Hostname != "" {
		owner += "@" + s.a.Hostname
	}
	return cloud.Run{ID: id, Dir: s.runDir(id), Profile: *f.profile, Owner: owner, Created: now, TTL: ttl}, nil
}

// printUp says what is open in the firewall, and how long the machines
// stay and how to remove them (given machines: nothing to remove).
func (s *cloudSession) printUp(m cloud.Machines, plan *cloud.Plan, run cloud.Run) {
	if rules, err := cloud.ReadFirewall(run.Dir); err == nil {
		for _, r := range rules {
			fmt.Fprintf(s.errw, "firewall: %s (%s)\n", r, r.For)
		}
		if closed := cloud.ClosedPorts(m, rules); len(closed) > 0 {
			fmt.Fprintf(s.errw, "firewall: %s open to nobody (no load generators, no allow_from)\n", strings.Join(closed, ", "))
		}
	}
	if !plan.Owned {
		fmt.Fprintf(s.errw, "run %s: given machines, reachable as --target run:%s/NAME; nothing to remove\n", run.ID, run.ID)
		return
	}
	ttl, _ := m.TTLDuration()
	fmt.Fprintf(s.errw, "run %s is up until %s (ttl %s; gc removes it after); remove it now with: %s\n",
		run.ID, run.Expires().UTC().Format(time.RFC3339), ttl, cloud.DownCommand(run.ID))
}

func printMachines(w io.Writer, ms []cloud.Machine) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tROLE\tADDRESS\tTYPE\tLOCATION\tIMAGE")
	for _, m := range ms {
		addr := m.Address
		if m.Local {
			addr = "local"
		}
		img := m.Image
		if m.ImageID != 0 {
			img = fmt.Sprintf("%s (%d)", m.Image, m.ImageID)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", m.Name, m.Role, addr, m.ServerType, m.Location, img)
	}
	tw.Flush()
}

func machinesList(ctx context.Context, a *App, args []string) error {
	s := newCloudSession(a)
	defer s.close()
	return s.redacted(s.list(ctx, args))
}

func (s *cloudSession) list(ctx context.Context, args []string) error {
	a := s.a
	fs := newFlags(a, "machines list")
	debugFile := fs.String("debug-file", "", "write the API requests and responses here (secrets redacted)")
	output := outputFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	c, err := s.driver("hetzner", *debugFile)
	if err != nil {
		return err
	}
	rs, err := c.List(ctx, cloud.Selector{AllRuns: true})
	if err != nil {
		return err
	}
	if *output == "json" {
		return json.NewEncoder(s.out).Encode(rs)
	}
	tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tKIND\tID\tNAME\tEXPIRES")
	for _, r := range rs {
		exp := "-"
		if !r.Expires.IsZero() {
			exp = r.Expires.Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Run, r.Kind, r.ID, r.Name, exp)
	}
	return tw.Flush()
}
