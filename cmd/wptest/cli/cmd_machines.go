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
	_ "github.com/wptest/wptest/provision/cloud/drivers" // the compiled-in machines drivers
	"github.com/wptest/wptest/results"
)

const machinesUsage = `usage: wptest machines <plan|up|list|drivers> [flags]

  plan   validate the machines block against the provider and print what would
         be created and its hourly price; creates nothing
  up     create the machines, wait for SSH (pinned host keys) and cloud-init,
         and leave them up until their ttl; remove them with wptest down --run ID
  list   list every resource wptest made (all runs), with its expiry
  drivers
         list the machines drivers: their attributes and defaults, where they
         read their credentials from, and what they can do

A driver reads its credentials from the environment (or the files it names),
never from a flag; wptest machines drivers says which.`

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
	case "drivers":
		return machinesDrivers(a, args[1:])
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
	// log, if set, is where the driver logs (a command's detail log);
	// nil: errw.
	log io.Writer
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

// driver opens the named driver, which reads its credentials through the
// command's environment; every secret it reads goes to the redactor.
// debugFile, if set, receives the driver's API dumps through the redactor.
func (s *cloudSession) driver(name, debugFile string) (cloud.Cloud, error) {
	d, err := cloud.Lookup(name)
	if err != nil {
		return nil, err
	}
	var log io.Writer = s.errw
	if s.log != nil {
		log = s.log
	}
	o := cloud.OpenOptions{Getenv: s.a.Getenv, Redactor: s.red, Log: log, Version: Version, Backoff: s.a.CloudBackoff}
	if debugFile != "" {
		f, err := os.OpenFile(s.path(debugFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, exitcode.With(exitcode.Config, fmt.Errorf("debug file: %w", err))
		}
		s.debugF = f
		o.Debug = f
	}
	return d.Open(o)
}

// labelDriver is the driver gc and machines list ask: --driver, else the
// default cloud's; it must label what it makes.
func labelDriver(name string) (string, error) {
	d, err := cloud.DefaultDriver(false)
	if name != "" {
		d, err = cloud.Lookup(name)
	}
	if err != nil {
		return "", err
	}
	if !d.Capabilities.Labels {
		var with []string
		for _, o := range cloud.Drivers() {
			if o.Capabilities.Labels {
				with = append(with, o.Name)
			}
		}
		return "", exitcode.With(exitcode.Config, fmt.Errorf("the %s driver labels nothing it could list or collect; drivers that do: %s", d.Name, strings.Join(with, ", ")))
	}
	return d.Name, nil
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
	verbose                                                               *bool
}

func (s *cloudSession) machinesFlags(name string) (*flag.FlagSet, *machinesFlags) {
	fs := newFlags(s.a, name)
	f := &machinesFlags{}
	f.file = fs.String("f", "", "HCL file with a machines block (default: the default driver's defaults; wptest machines drivers)")
	fs.Var(&f.vars, "var", "override a machines attribute: name=value ("+cloud.MachineVars()+"); repeatable")
	f.driver = fs.String("driver", "", strings.Join(cloud.Names(), ", ")+" (default: the file's, else the driver --target names, else the default one)")
	fs.Var(&f.targets, "target", "a host you already have ("+cloud.TargetForms()+"); repeatable: first is the server")
	f.knownHosts = fs.String("known-hosts", "", "known_hosts file pinning the --target hosts")
	f.identity = fs.String("identity", "", "private key the --target hosts accept")
	f.runID = fs.String("run", "", "run id (default: a new one from the time)")
	f.profile = fs.String("profile", "", "profile name, recorded as a label")
	f.debugFile = fs.String("debug-file", "", "write the driver's API requests and responses here (secrets redacted)")
	f.output = outputFlag(fs)
	f.wait = fs.Duration("wait", 10*time.Minute, "how long to wait for SSH and cloud-init")
	if name == "machines up" {
		f.verbose = fs.Bool("verbose", false, verboseUsage)
	}
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
	var con *console
	if up {
		// The driver's and the SSH wait's detail go to the run's log.txt.
		con = newConsole(s.a, s.red, filepath.Join(run.Dir, results.LogFile), false, *f.verbose)
		defer con.close()
		s.log = con.Detail()
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
	ms, err := stage.Machines{Cloud: c, Plan: plan, Driver: m.Driver, Keep: true, Wait: *f.wait,
		Log: con.Detail(), Steps: con.lines(), Now: s.a.Now}.Up(ctx)
	if err != nil {
		con.failed()
		return err
	}
	if *f.output == "json" {
		return json.NewEncoder(s.out).Encode(ms)
	}
	printMachines(s.out, ms)
	s.printUp(m, plan, run)
	con.say("log: %s", con.path)
	return nil
}

// machines is the machines block: -f's (with -var over it) or the
// driver's defaults, then the flags over it, validated (cloud.Resolve).
func (s *cloudSession) machines(f *machinesFlags) (cloud.Machines, error) {
	vm, err := cloud.ParseVars(f.vars)
	if err != nil {
		return cloud.Machines{}, err
	}
	c := cloud.Choice{File: *f.file, Driver: *f.driver, Targets: f.targets, Vars: vm, ThisHost: s.a.addrs()}
	if *f.file != "" {
		if c.Src, err = os.ReadFile(s.path(*f.file)); err != nil {
			return cloud.Machines{}, exitcode.With(exitcode.Config, err)
		}
	}
	if *f.knownHosts != "" {
		c.KnownHosts = s.path(*f.knownHosts)
	}
	if *f.identity != "" {
		c.Identity = s.path(*f.identity)
	}
	m, unused, err := cloud.Resolve(c)
	if err != nil {
		return m, err
	}
	// A file's other blocks may read other -var names; without one, a
	// name that is no machines attribute is a mistake.
	if len(unused) > 0 && *f.file == "" {
		return m, exitcode.With(exitcode.Config, fmt.Errorf("-var %s: not a machines attribute (%s)", strings.Join(unused, ", "), cloud.MachineVars()))
	}
	return m, nil
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
	driver := fs.String("driver", "", "the driver to ask (default: the default one; wptest machines drivers)")
	debugFile := fs.String("debug-file", "", "write the API requests and responses here (secrets redacted)")
	output := outputFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	name, err := labelDriver(*driver)
	if err != nil {
		return err
	}
	c, err := s.driver(name, *debugFile)
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

// machinesDrivers lists the registry: what each driver reads, with its
// defaults, where its credentials come from (names, never values) and
// what it can do.
func machinesDrivers(a *App, args []string) error {
	fs := newFlags(a, "machines drivers")
	output := outputFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ds := cloud.Drivers()
	if *output == "json" {
		return json.NewEncoder(a.Stdout).Encode(struct {
			Drivers []cloud.Driver    `json:"drivers"`
			Common  []cloud.Attribute `json:"common_attributes"`
		}{ds, cloud.Common})
	}
	for _, d := range ds {
		fmt.Fprintf(a.Stdout, "%s: %s\n", d.Name, d.Summary)
		tw := tabwriter.NewWriter(a.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "  can\t%s\n", capabilities(d))
		if d.DefaultCloud {
			fmt.Fprintf(tw, "  default for\tmachines plan/up without a machines block, machines list, gc, down\n")
		}
		if d.DefaultRun {
			fmt.Fprintf(tw, "  default for\texperiment files without a machines block\n")
		}
		if d.TargetForm != "" {
			fmt.Fprintf(tw, "  --target\t%s\n", d.TargetForm)
		}
		for _, at := range d.Attributes {
			fmt.Fprintf(tw, "  attribute %s\t%s\t%s\n", at.Name, orDash(at.Default), at.Doc)
		}
		for _, c := range d.Credentials {
			secret := ""
			if c.Secret {
				secret = " (secret)"
			}
			fmt.Fprintf(tw, "  credential %s%s\t%s\n", c.Env, secret, c.Doc)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintf(a.Stdout, "every driver:\n")
	tw := tabwriter.NewWriter(a.Stdout, 0, 4, 2, ' ', 0)
	for _, at := range cloud.Common {
		fmt.Fprintf(tw, "  attribute %s\t%s\t%s\n", at.Name, orDash(at.Default), at.Doc)
	}
	return tw.Flush()
}

func capabilities(d cloud.Driver) string {
	var c []string
	for _, x := range []struct {
		ok   bool
		what string
	}{
		{d.Capabilities.Creates, "creates machines (down removes them)"},
		{d.Capabilities.Labels, "labels them (machines list, gc)"},
		{d.Capabilities.Prices, "prices them (plan)"},
		{d.Capabilities.Targets, "takes your hosts (targets)"},
	} {
		if x.ok {
			c = append(c, x.what)
		}
	}
	if len(c) == 0 {
		return "use this machine; creates nothing"
	}
	return strings.Join(c, "; ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
