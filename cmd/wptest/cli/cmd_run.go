package cli

import (
	"context"
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
const runUsage = `usage: wptest run FILE [--target DRIVER|ssh://user@host:port] [-var name=value ...] [--resume ID]

Brings the machines up, applies the first profile, seeds the fixture once and
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
and manifests go to runs/<id>/log.txt (--verbose: to stderr too).

flags:
`

func runRun(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "run")
	fs.Usage = func() { fmt.Fprint(a.Stderr, runUsage); fs.PrintDefaults() }
	var vars multiFlag
	target := fs.String("target", "", cloud.TargetForms()+" (default: the file's machines block)")
	fs.Var(&vars, "var", "set an experiment variable or a machines attribute: name=value (repeatable)")
	resume := fs.String("resume", "", "continue run ID after its last complete point")
	runsDir := fs.String("runs", "runs", "directory of run directories")
	knownHosts := fs.String("known-hosts", "", "known_hosts pinning an ssh:// target's key")
	identity := fs.String("identity", "", "private key an ssh:// target accepts")
	keep := fs.Bool("keep", false, "leave cloud machines up after the run (until their ttl)")
	agent := fs.String("agent", "", "wptest binary for the server and the load generator machine (default: this executable)")
	planOnly := fs.Bool("plan", false, "print the plan, its hash and the fixture root; measure nothing")
	verbose := fs.Bool("verbose", false, "show the whole log on stderr too: host commands and their output, samples, manifests")
	file := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		file, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if err == flagErrHelp() {
			return err
		}
		return exitcode.With(exitcode.Config, err)
	}
	if file == "" && fs.NArg() == 1 {
		file = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return exitcode.With(exitcode.Config, fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if file == "" {
		fs.Usage()
		return exitcode.With(exitcode.Config, fmt.Errorf("an experiment FILE is required"))
	}
	if err := dirFlag("--runs", absPath(a, *runsDir)); err != nil {
		return err
	}
	src, err := os.ReadFile(absPath(a, file))
	if err != nil {
		return exitcode.With(exitcode.Config, err)
	}
	sp, err := experiment.Load(file, src, experiment.LoadOptions{Vars: vars, Target: *target,
		KnownHosts: absPath(a, *knownHosts), Identity: absPath(a, *identity), ThisHost: a.addrs()})
	if err != nil {
		return err
	}
	if *planOnly {
		s := newCloudSession(a)
		defer s.close()
		return experiment.WritePlan(s.out, sp, runEstimate(ctx, s, sp, newRunID(a.Now())))
	}
	if *resume == "" && sp.Machines.Driver == "static" {
		if err := checkStaticMachines(ctx, sp.Machines); err != nil {
			return err
		}
	}
	s := newCloudSession(a)
	defer s.close()
	id := *resume
	if id == "" {
		id = newRunID(a.Now())
	}
	// The run's detail goes to its log.txt (a new run's is a new file).
	con := newConsole(a, s.red, filepath.Join(absPath(a, *runsDir), id, results.LogFile), *resume == "", *verbose)
	defer con.close()
	s.log = con.Detail()
	c, err := s.driver(sp.Machines.Driver, "")
	if err != nil {
		return err
	}
	exe := absPath(a, *agent)
	if exe == "" {
		exe = a.Executable
	}
	owner := a.Getenv("USER")
	if a.Hostname != "" {
		owner += "@" + a.Hostname
	}
	tgt := *target
	if tgt == "" {
		tgt = sp.Machines.Driver
	}
	con.say("%s", runHeader(id, file, sp, runEstimate(ctx, s, sp, id).Short(), con.path))
	dir, err := experiment.Run(ctx, sp, src, experiment.Options{RunsDir: absPath(a, *runsDir), ID: id, Resume: *resume != "",
		Cloud: c, Exe: exe, Tool: "wptest " + Version, Target: tgt, Owner: owner, Keep: *keep,
		Log: con.Detail(), Progress: con.progress(), Redactor: s.red, Now: a.Now})
	if err != nil {
		con.failed()
		// Only a run that started (its manifest is there) can be resumed.
		if _, merr := results.ReadManifest(dir); dir != "" && merr == nil {
			con.say("run %s stopped: continue it with: wptest run %s --resume %s%s", id, file, id, varArgs(vars, *target))
		}
		con.close() // the live line cleared before the error is printed
		return s.redacted(err)
	}
	out, err := report.Write(dir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	rel := out.HTML
	if r, err := filepath.Rel(absPath(a, "."), out.HTML); err == nil && !strings.HasPrefix(r, "..") {
		rel = r
	}
	con.say("report: %s and %s", out.Markdown, out.HTML)
	fmt.Fprintln(s.out, rel)
	return nil
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
