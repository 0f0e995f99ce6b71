package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/report"
	"github.com/wptest/wptest/results"
)

// wptest run: one experiment file, from machines to report.
func runCommand() *command {
	return &command{name: "run", synopsis: "run an experiment file: machines, profiles, fixture, scenarios, report",
		usage: "run FILE [--target DRIVER|ssh://user@host:port|run:ID[/MACHINE]] [-var name=value ...] [--resume ID] [--plan [-o json]]",
		about: runAbout, args: true,
		examples: []string{"wptest run experiments/quick.hcl --target local",
			"wptest run experiments/quick.hcl --plan",
			"wptest run experiments/corehttpd-vs-cpanel.hcl --plan -o json",
			"wptest run experiments/corehttpd-vs-cpanel.hcl --target hetzner -var repetitions=5",
			"wptest run experiments/quick.hcl --target local --resume 20261205-101500-a1b2c3"},
		setup: define(runFlagSet, runRun)}
}

const runAbout = `Brings the machines up, applies the first profile, seeds the fixture once and
verifies it, then for every repetition and profile swaps the web server,
warms it up and measures every scenario step with srvstat sampling on the
server. The load runs on every load generator machine when there are any
(hetzner's load_generators, a static driver's targets after the first: this
binary is uploaded and runs "wptest bench-job" there), split between them,
started together and merged exactly (the kit runs on the first), else in
this process; each machine's clock offset is measured and recorded first.
Each record names its load hosts. Each finished point is appended to runs/<id>/results.jsonl (fsynced);
--resume ID continues after the last complete point. Ends with the report
(runs/<id>/report.md and report.html), whose path is printed on stdout.
stderr shows the stages and points; host commands and their output, samples
and manifests go to runs/<id>/log.txt (--verbose: to stderr too).`

// runFlags are wptest run's flags and its FILE.
type runFlags struct {
	file                                          string
	vars                                          multiFlag
	target, resume, runsDir, knownHosts, identity *string
	agent, output                                 *string
	keep, planOnly, verbose, acceptDrift          *bool
}

func runRun(ctx context.Context, a *App, f *runFlags, args []string) error {
	if err := f.check(a, args); err != nil {
		return err
	}
	src, err := os.ReadFile(absPath(a, f.file))
	if err != nil {
		return exitcode.With(exitcode.Config, err)
	}
	target, known, identity, err := runTarget(a, *f.target, absPath(a, *f.knownHosts), absPath(a, *f.identity))
	if err != nil {
		return err
	}
	sp, err := experiment.Load(f.file, src, experiment.LoadOptions{Vars: f.vars, Target: target,
		KnownHosts: known, Identity: identity, ThisHost: a.addrs()})
	if err != nil {
		return err
	}
	if *f.planOnly {
		s := newCloudSession(a)
		defer s.close()
		return experiment.WritePlan(s.out, sp, runEstimate(ctx, s, sp, newRunID(a.Now())), *f.output == "json")
	}
	if d, err := cloud.Lookup(sp.Machines.Driver); err == nil && *f.resume == "" && d.Capabilities.Targets {
		if err := checkTargetMachines(ctx, a, d, sp.Machines); err != nil {
			return err
		}
	}
	return runExperiment(ctx, a, f, sp, src)
}

func runFlagSet(fs *flag.FlagSet, f *runFlags) {
	f.target = fs.String("target", "", cloud.TargetForms()+", run:ID[/MACHINE] (a machine `wptest machines up` made; a bare run id is run:ID; default: the file's machines block)")
	fs.Var(&f.vars, "var", "set an experiment variable or a machines attribute: name=value (repeatable)")
	f.resume = fs.String("resume", "", "continue run ID after its last complete point")
	f.runsDir = fs.String("runs", runsDir, "directory of run directories")
	f.knownHosts = fs.String("known-hosts", "", "known_hosts pinning an ssh:// target's key")
	f.identity = fs.String("identity", "", "private key an ssh:// target accepts")
	f.keep = fs.Bool("keep", false, "leave cloud machines up after the run (until their ttl)")
	f.acceptDrift = fs.Bool("accept-drift", false, "measure a server changed by hand since its last apply (named, and recorded in the run); without it such a server is not measured (exit 4)")
	f.agent = fs.String("agent", "", "wptest binary for the server and the load generator machine (default: this executable)")
	f.planOnly = fs.Bool("plan", false, "print the plan: its hash, the fixture root, the columns, the matrix of data points with its totals, the estimate; measure nothing")
	f.output = outputFlag(fs)
	f.verbose = fs.Bool("verbose", false, "show the whole log on stderr too: host commands and their output, samples, manifests")
}

// check takes run's FILE and checks the flags against each other and the
// disk, before anything is made.
func (f *runFlags) check(a *App, args []string) error {
	switch {
	case len(args) == 0:
		return usage("an experiment FILE is required")
	case len(args) > 1:
		return usage("unexpected argument %q", args[1])
	case *f.output != "text" && !*f.planOnly:
		return usage("-o %s prints the plan: give it with --plan", *f.output)
	}
	f.file = args[0]
	if err := dirFlag("--runs", absPath(a, *f.runsDir)); err != nil {
		return err
	}
	// The id becomes a path (runs/<id>/log.txt is opened first): one of a
	// run id's shape, never "../x", and a run that is there, before
	// anything is made.
	if *f.resume != "" {
		if err := cloud.ValidRunID(*f.resume); err != nil {
			return exitcode.With(exitcode.Config, fmt.Errorf("--resume: %w", err))
		}
		if _, err := findRun(a, *f.runsDir, *f.resume, false); err != nil {
			return fmt.Errorf("--resume: %w", err)
		}
	}
	return nil
}

// runExperiment runs sp (a new run, or --resume's) with its detail in the
// run's log.txt, then writes the report.
func runExperiment(ctx context.Context, a *App, f *runFlags, sp *experiment.Spec, src []byte) error {
	s := newCloudSession(a)
	defer s.close()
	id := *f.resume
	if id == "" {
		id = newRunID(a.Now())
	}
	// The run's detail goes to its log.txt (a new run's is a new file).
	con := newConsole(a, s.red, filepath.Join(absPath(a, *f.runsDir), id, results.LogFile), *f.resume == "", *f.verbose)
	defer con.close()
	s.log = con.Detail()
	c, err := s.driver(sp.Machines.Driver, "")
	if err != nil {
		return err
	}
	con.say("%s", runHeader(id, f.file, sp, runEstimate(ctx, s, sp, id).Short(), con.path))
	opt := runOptions(a, f, sp, id)
	opt.Cloud, opt.Log, opt.Progress, opt.Redactor = c, con.Detail(), con.progress(), s.red
	dir, err := experiment.Run(ctx, sp, src, opt)
	if err != nil {
		con.failed()
		// Only a run that started (its manifest is there) can be resumed.
		if _, merr := results.ReadManifest(dir); dir != "" && merr == nil {
			con.say("run %s stopped: continue it with: wptest run %s --resume %s%s", id, f.file, id, varArgs(f.vars, *f.target))
		}
		con.close() // the live line cleared before the error is printed
		return s.redacted(err)
	}
	return writeRunReport(a, s, con, dir)
}

// runOptions are the run's options from its flags and the App, besides
// the driver and where its output goes.
func runOptions(a *App, f *runFlags, sp *experiment.Spec, id string) experiment.Options {
	exe := absPath(a, *f.agent)
	if exe == "" {
		exe = a.Executable
	}
	owner := a.Getenv("USER")
	if a.Hostname != "" {
		owner += "@" + a.Hostname
	}
	tgt := *f.target
	if tgt == "" {
		tgt = sp.Machines.Driver
	}
	return experiment.Options{RunsDir: absPath(a, *f.runsDir), ID: id, Resume: *f.resume != "",
		Exe: exe, Tool: tool, Target: tgt, Owner: owner, Keep: *f.keep, AcceptDrift: *f.acceptDrift, Now: a.Now}
}

// writeRunReport writes the run's report, ends stderr with the run's
// summary (runSummary) and prints the report's path on stdout.
func writeRunReport(a *App, s *cloudSession, con *console, dir string) error {
	out, err := report.Write(dir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	rel := out.HTML
	if r, err := filepath.Rel(absPath(a, "."), out.HTML); err == nil && !strings.HasPrefix(r, "..") {
		rel = r
	}
	sum, err := runSummary(dir, out.Markdown, out.HTML)
	if err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	con.say("%s", sum)
	fmt.Fprintln(s.out, rel)
	return benchLimited(dir)
}

// benchLimited is exit 6 when a point of the run measured the bench, not
// the server (failed requests, a load generator at its limit): the report
// is written and marks them, and the run says which.
func benchLimited(dir string) error {
	recs, err := results.ReadResults(dir)
	if err != nil {
		return err
	}
	m, err := results.ReadManifest(dir)
	if err != nil {
		return err
	}
	bad := results.BenchLimited(recs, m.Machine)
	if len(bad) == 0 {
		return nil
	}
	return exitcode.With(exitcode.Load, fmt.Errorf("%s measured the bench, not the server; the report marks them, and judges on them only the claims on failures or on the server's state (memory, processes):\n  %s", results.Plural(len(bad), "point"), strings.Join(bad, "\n  ")))
}

// runHeader is the run's first line: what runs, how many points, and
// where its log is.
func runHeader(id, file string, sp *experiment.Spec, estimate, logPath string) string {
	return fmt.Sprintf("run %s: %s (%d points, %s) · log %s", id, file, len(sp.Plan()), estimate, logPath)
}

func varArgs(vars []string, target string) string {
	var b strings.Builder
	if target != "" {
		b.WriteString(" --target " + target)
	}
	for _, v := range vars {
		b.WriteString(" -var " + v)
	}
	return b.String()
}

// runTarget is --target as the experiment's loader takes it: run:ID picks
// the server a `wptest machines up` made (run:ID/NAME a machine by name or
// role), as up, seed, verify and status take it, and becomes that
// machine's ssh:// (or local) target with the run's known_hosts and key,
// unless --known-hosts or --identity name others. Any other value passes
// through.
func runTarget(a *App, target, known, identity string) (string, string, string, error) {
	spec, ok := runTargetSpec(target)
	if !ok {
		return target, known, identity, nil
	}
	dir, m, err := runMachine(a, spec)
	if err != nil {
		return "", "", "", err
	}
	t, o := cloud.Target(dir, m)
	if t.Local {
		return t.String(), known, identity, nil
	}
	if known == "" {
		known = o.KnownHostsFile
	}
	if identity == "" {
		identity = o.IdentityFile
	}
	return t.String(), known, identity, nil
}
