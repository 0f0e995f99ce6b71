package cli

import (
	"context"
	"flag"
	"fmt"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/wptest/wptest/bench/srvstat"
	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
)

// wptest srvstat: runs on the server (wptest uploads itself and starts it
// over the Host), one JSON line per sample on stdout.
func srvstatCommand() *command {
	return &command{name: "srvstat", synopsis: "sample this server's CPU, memory and workers as JSON lines",
		usage: "srvstat [--interval D] [--duration D | --count N] [--group SPEC ...] [--target HOST] [flags]",
		about: "With --target, it runs on that host (the agent installed there first) with the live profile's process groups, its samples on this stdout.",
		examples: []string{"wptest srvstat --count 5",
			"wptest srvstat --status-url 'http://127.0.0.1/server-status?auto' --group 'name=web,exe=apache2'",
			"wptest srvstat --target run:20261205-101500-a1b2c3 --duration 1m"},
		setup: define(srvstatFlagSet, runSrvstat)}
}

// srvstatFlags are srvstat's flags.
type srvstatFlags struct {
	interval, duration, pssBudget time.Duration
	count                         int
	statusURL, groupsJSON, agent  string
	noPSS, pssAll, noAcct         bool
	groups                        multiFlag
	targetFlags
	fs *flag.FlagSet // which were given: srvstat --target passes those on
}

func srvstatFlagSet(fs *flag.FlagSet, f *srvstatFlags) {
	f.fs = fs
	fs.DurationVar(&f.interval, "interval", time.Second, "time between samples")
	fs.DurationVar(&f.duration, "duration", 0, "stop after this long (0: until interrupted or --count)")
	fs.IntVar(&f.count, "count", 0, "stop after this many samples (0: no limit)")
	fs.StringVar(&f.statusURL, "status-url", "", "Apache mod_status URL, e.g. http://127.0.0.1/server-status?auto")
	fs.BoolVar(&f.noPSS, "no-pss", false, "do not read smaps_rollup (PSS)")
	fs.DurationVar(&f.pssBudget, "pss-budget", srvstat.DefaultPSSBudget, "average CPU time per sample for reading PSS (~1 ms per process), stalest process first; the first sample reads all")
	fs.BoolVar(&f.pssAll, "pss-all", false, "read every process's PSS every sample (no budget)")
	fs.BoolVar(&f.noAcct, "no-acct", false, "do not use process accounting: a process that lives less than an interval counts in its parent's group")
	fs.Var(&f.groups, "group", "process group 'name=NAME,exe=EXE1|EXE2[,user=USER1|USER2]' (repeatable; EXE matches /proc/PID/exe's base name or comm, a trailing * makes a prefix); without --group or --groups: "+defaultGroupsText())
	fs.StringVar(&f.groupsJSON, "groups", "", `process groups as JSON: [{"name": "web", "exe": ["apache2"], "users": ["www-data"]}, ...] (with --group: added after them)`)
	f.targetFlags.add(fs)
	fs.StringVar(&f.agent, "agent", "", "with --target: the wptest binary to run there (default: this executable)")
}

func runSrvstat(ctx context.Context, a *App, f *srvstatFlags, _ []string) error {
	if f.interval <= 0 {
		return exitcode.With(exitcode.Config, fmt.Errorf("--interval %s: want a positive duration", f.interval))
	}
	if f.duration < 0 {
		return exitcode.With(exitcode.Config, fmt.Errorf("--duration %s: want a duration >= 0 (0: until interrupted or --count)", f.duration))
	}
	if f.count < 0 {
		return exitcode.With(exitcode.Config, fmt.Errorf("--count %d: want a count >= 0 (0: no limit)", f.count))
	}
	if f.pssBudget <= 0 {
		return exitcode.With(exitcode.Config, fmt.Errorf("--pss-budget %s: want a positive duration (--pss-all: no budget)", f.pssBudget))
	}
	cfg := srvstat.Config{StatusURL: f.statusURL, NoPSS: f.noPSS, PSSBudget: f.pssBudget, PSSAll: f.pssAll, Acct: !f.noAcct}
	for _, g := range f.groups {
		gr, err := srvstat.ParseGroup(g)
		if err != nil {
			return exitcode.With(exitcode.Config, err)
		}
		cfg.Groups = append(cfg.Groups, gr)
	}
	if f.groupsJSON != "" {
		gs, err := srvstat.ParseGroups([]byte(f.groupsJSON))
		if err != nil {
			return exitcode.With(exitcode.Config, err)
		}
		cfg.Groups = append(cfg.Groups, gs...)
	}
	if cfg.Groups != nil {
		if err := srvstat.CheckGroups(cfg.Groups); err != nil {
			return exitcode.With(exitcode.Config, err)
		}
	}
	if f.target != "" {
		remote, err := srvstatTarget(ctx, a, &cfg, f, f.agent)
		if err != nil || remote {
			return err
		}
	}
	if cfg.Groups == nil {
		fmt.Fprintf(a.Stderr, "srvstat: no --group or --groups and no profile's groups: using the default groups %s\n", defaultGroupsText())
	}
	if f.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.duration)
		defer cancel()
	}
	// Process accounting stays on until Close: a closed stdout must end the
	// loop with an error (and Close), not kill us with SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)
	defer signal.Reset(syscall.SIGPIPE)
	s := srvstat.New(cfg)
	defer s.Close()
	err := srvstat.Loop(ctx, s, f.interval, f.count, a.Stdout)
	if why := s.AcctError(); why != "" && cfg.Acct {
		fmt.Fprintf(a.Stderr, "srvstat: no process accounting (%s): processes that lived less than an interval counted in their parent's group\n", why)
	}
	return err
}

func defaultGroupsText() string {
	var p []string
	for _, g := range srvstat.DefaultGroups {
		p = append(p, "name="+g.Name+",exe="+strings.Join(g.Exe, "|"))
	}
	return strings.Join(p, " ")
}

// srvstatTarget is srvstat --target: the host, the live profile's groups
// (unless given), and on another host than this one the agent stage and
// `wptest srvstat` there, as `wptest run` runs it. remote: it sampled there.
func srvstatTarget(ctx context.Context, a *App, cfg *srvstat.Config, f *srvstatFlags, agent string) (remote bool, err error) {
	steps := []stage.Step{f.stage(a, nil)}
	if cfg.Groups == nil {
		steps = append(steps, stage.Live(), stage.Do(func(_ context.Context, st *stage.State) error {
			cfg.Groups = experiment.SamplerGroups(st.Live)
			return nil
		}))
	}
	onHost := stage.Do(func(ctx context.Context, st *stage.State) error {
		return srvstat.RunRemote(ctx, st.Host, srvstat.Remote{Path: agentPath, Args: f.args(*cfg)}, a.Stdout)
	})
	steps = append(steps, stage.Do(func(ctx context.Context, st *stage.State) error {
		if _, local := st.Host.(*host.Local); local {
			return nil // sampled in this process
		}
		remote = true
		return stage.Run(ctx, st, stage.Agent{Exe: absPath(a, agent), Self: a.Executable}, onHost)
	}))
	err = stage.Run(ctx, &stage.State{Log: a.Stderr}, steps...)
	return remote, err
}

// args are this command's sampling flags as given and the groups, for the
// `wptest srvstat` that runs on the --target host.
func (f *srvstatFlags) args(cfg srvstat.Config) []string {
	var args []string
	f.fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "target", "known-hosts", "identity", "agent", "group", "groups":
		default:
			args = append(args, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	return append(args, srvstat.GroupArgs(cfg.Groups)...)
}
