package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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

// wptest machines plan|up|list|drivers: the machines a driver makes or
// takes, outside a run.
func machinesCommand() *command {
	return &command{name: "machines", synopsis: "plan, create (up) or list cloud machines, and list the drivers that make them",
		usage: "machines <plan|up|list|drivers> [flags]",
		about: "A driver reads its credentials from the environment (or the files it names), never from a flag; wptest machines drivers says which.",
		examples: []string{"wptest machines drivers", "wptest machines plan -f experiments/quick.hcl",
			"wptest machines up --profile cpanel-apache -var load_generators=1", "wptest machines list -o json"},
		subs: []*command{
			{name: "machines plan", synopsis: "validate the machines block against the provider and print what would be created and its hourly price; creates nothing",
				usage:    "machines plan [-f FILE] [-var name=value ...] [--driver NAME | --target HOST ...] [flags]",
				examples: []string{"wptest machines plan", "wptest machines plan -f experiments/quick.hcl -var location=hel1 -o json"},
				setup:    define(machinesFlagSet(false), cloudRun(planUp(false)))},
			{name: "machines up", synopsis: "create the machines, wait for SSH (pinned host keys) and cloud-init, and leave them up until their ttl",
				usage: "machines up [-f FILE] [-var name=value ...] [--driver NAME | --target HOST ...] [flags]",
				about: "Remove them with wptest down --run ID; gc removes them after their ttl.",
				examples: []string{"wptest machines up --profile cpanel-apache",
					"wptest machines up --driver netns --run mybench", "wptest machines up --target ssh://root@203.0.113.7:22 --known-hosts hosts.known"},
				setup: define(machinesFlagSet(true), func(ctx context.Context, a *App, f *machinesFlags, args []string) error {
					return interrupted(ctx, cloudRun(planUp(true))(ctx, a, f, args))
				})},
			{name: "machines list", synopsis: "list every resource wptest made (all runs), with its expiry",
				usage:    "machines list [--driver NAME] [-o text|json]",
				examples: []string{"wptest machines list", "wptest machines list --driver hetzner -o json"},
				setup: define(func(fs *flag.FlagSet, f *listFlags) {
					f.driverFlags.add(fs, "the driver to ask (default: the default one; wptest machines drivers)")
					outputVar(fs, &f.output)
				}, cloudRun(list))},
			{name: "machines drivers", synopsis: "list the machines drivers: their attributes and defaults, where they read their credentials from, and what they can do",
				usage:    "machines drivers [-o text|json]",
				examples: []string{"wptest machines drivers", "wptest machines drivers -o json"},
				setup:    define(func(fs *flag.FlagSet, output *string) { outputVar(fs, output) }, machinesDrivers)},
		}}
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

func (s *cloudSession) path(p string) string { return absPath(s.a, p) }

// runDir is where run id's directory is (findRun finds it there).
func (s *cloudSession) runDir(id string) string { return s.path(filepath.Join(runsDir, id)) }

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
	file, driver, knownHosts, identity, runID, profile, debugFile, output string
	vars, targets                                                         multiFlag
	wait                                                                  time.Duration
	verbose                                                               bool
}

// machinesFlagSet adds the flags of machines plan, or up's.
func machinesFlagSet(up bool) func(*flag.FlagSet, *machinesFlags) {
	return func(fs *flag.FlagSet, f *machinesFlags) {
		fs.StringVar(&f.file, "f", "", "HCL file with a machines block (default: the default driver's defaults; wptest machines drivers)")
		fs.Var(&f.vars, "var", "override a machines attribute: name=value ("+cloud.MachineVars()+"); repeatable")
		fs.StringVar(&f.driver, "driver", "", strings.Join(cloud.Names(), ", ")+" (default: the file's, else the driver --target names, else the default one)")
		fs.Var(&f.targets, "target", "a host you already have ("+cloud.TargetForms()+"); repeatable: first is the server")
		fs.StringVar(&f.knownHosts, "known-hosts", "", "known_hosts file pinning the --target hosts")
		fs.StringVar(&f.identity, "identity", "", "private key the --target hosts accept")
		fs.StringVar(&f.runID, "run", "", "run id (default: a new one from the time)")
		fs.StringVar(&f.profile, "profile", "", "profile name, recorded as a label")
		fs.StringVar(&f.debugFile, "debug-file", "", "write the driver's API requests and responses here (secrets redacted)")
		outputVar(fs, &f.output)
		fs.DurationVar(&f.wait, "wait", 10*time.Minute, "how long to wait for SSH and cloud-init")
		if up {
			fs.BoolVar(&f.verbose, "verbose", false, verboseUsage)
		}
	}
}

// planUp is machines plan, or up.
func planUp(up bool) func(context.Context, *cloudSession, *machinesFlags, []string) error {
	return func(ctx context.Context, s *cloudSession, f *machinesFlags, _ []string) error {
		return s.planUp(ctx, f, up)
	}
}

func (s *cloudSession) planUp(ctx context.Context, f *machinesFlags, up bool) error {
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
		con = newConsole(s.a, s.red, filepath.Join(run.Dir, results.LogFile), false, f.verbose)
		defer con.close()
		s.log = con.Detail()
	}
	c, err := s.driver(m.Driver, f.debugFile)
	if err != nil {
		return err
	}
	plan, err := c.Plan(ctx, cloud.Spec{Machines: m, Run: run})
	if err != nil {
		return err
	}
	if !up {
		if f.output == "json" {
			return writeJSON(s.out, plan, false)
		}
		plan.WriteText(s.out)
		return nil
	}
	ms, err := stage.Machines{Cloud: c, Plan: plan, Driver: m.Driver, Keep: true, Wait: f.wait,
		Log: con.Detail(), Steps: con.lines(), Now: s.a.Now}.Up(ctx)
	if err != nil {
		con.failed()
		return err
	}
	if f.output == "json" {
		return writeJSON(s.out, ms, false)
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
	c := cloud.Choice{File: f.file, Driver: f.driver, Targets: f.targets, Vars: vm, ThisHost: s.a.addrs()}
	if f.file != "" {
		if c.Src, err = os.ReadFile(s.path(f.file)); err != nil {
			return cloud.Machines{}, exitcode.With(exitcode.Config, err)
		}
	}
	if f.knownHosts != "" {
		c.KnownHosts = s.path(f.knownHosts)
	}
	if f.identity != "" {
		c.Identity = s.path(f.identity)
	}
	m, unused, err := cloud.Resolve(c)
	if err != nil {
		return m, err
	}
	// A file's other blocks may read other -var names; without one, a
	// name that is no machines attribute is a mistake.
	if len(unused) > 0 && f.file == "" {
		return m, exitcode.With(exitcode.Config, fmt.Errorf("-var %s: not a machines attribute (%s)", strings.Join(unused, ", "), cloud.MachineVars()))
	}
	return m, nil
}

// newRun is the run the machines belong to: its id (--run, else a new one
// from the clock), directory, owner and ttl.
func (s *cloudSession) newRun(m cloud.Machines, f *machinesFlags) (cloud.Run, error) {
	ttl, _ := m.TTLDuration()
	now := s.a.Now()
	id := f.runID
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
	return cloud.Run{ID: id, Dir: s.runDir(id), Profile: f.profile, Owner: owner, Created: now, TTL: ttl}, nil
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

type listFlags struct {
	driverFlags
	output string
}

func list(ctx context.Context, s *cloudSession, f *listFlags, _ []string) error {
	c, err := s.labelled(&f.driverFlags)
	if err != nil {
		return err
	}
	rs, err := c.List(ctx, cloud.Selector{AllRuns: true})
	if err != nil {
		return err
	}
	if f.output == "json" {
		return writeJSON(s.out, rs, false)
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
func machinesDrivers(ctx context.Context, a *App, output *string, _ []string) error {
	ds := cloud.Drivers()
	if *output == "json" {
		return writeJSON(a.Stdout, struct {
			Drivers []cloud.Driver    `json:"drivers"`
			Common  []cloud.Attribute `json:"common_attributes"`
		}{ds, cloud.Common}, false)
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
