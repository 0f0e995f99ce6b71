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
	c, err := s.driver(sp.Machines.Driver, "")
	if err != nil {
		return err
	}
	exe := absPath(a, *agent)
	if exe == "" {
		exe = a.Executable
	}
	id := *resume
	if id == "" {
		id = newRunID(a.Now())
	}
	owner := a.Getenv("USER")
	if a.Hostname != "" {
		owner += "@" + a.Hostname
	}
	tgt := *target
	if tgt == "" {
		tgt = sp.Machines.Driver
	}
	fmt.Fprintf(s.errw, "run %s: %s (%d points, %s)\n", id, file, len(sp.Plan()), runEstimate(ctx, s, sp, id).Short())
	dir, err := experiment.Run(ctx, sp, src, experiment.Options{RunsDir: absPath(a, *runsDir), ID: id, Resume: *resume != "",
		Cloud: c, Exe: exe, Tool: "wptest " + Version, Target: tgt, Owner: owner, Keep: *keep, Log: s.errw, Now: a.Now})
	if err != nil {
		// Only a run that started (its manifest is there) can be resumed.
		if _, merr := results.ReadManifest(dir); dir != "" && merr == nil {
			fmt.Fprintf(s.errw, "run %s stopped: continue it with: wptest run %s --resume %s%s\n", id, file, id, varArgs(vars, *target))
		}
		return err
	}
	out, err := report.Write(dir)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	rel := out.HTML
	if r, err := filepath.Rel(absPath(a, "."), out.HTML); err == nil && !strings.HasPrefix(r, "..") {
		rel = r
	}
	fmt.Fprintf(s.errw, "report: %s and %s\n", out.Markdown, out.HTML)
	fmt.Fprintln(s.out, rel)
	return nil
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
