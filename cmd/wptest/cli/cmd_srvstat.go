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
func runSrvstat(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "srvstat")
	interval := fs.Duration("interval", time.Second, "time between samples")
	duration := fs.Duration("duration", 0, "stop after this long (0: until interrupted or --count)")
	count := fs.Int("count", 0, "stop after this many samples (0: no limit)")
	statusURL := fs.String("status-url", "", "Apache mod_status URL, e.g. http://127.0.0.1/server-status?auto")
	noPSS := fs.Bool("no-pss", false, "do not read smaps_rollup (PSS)")
	pssBudget := fs.Duration("pss-budget", srvstat.DefaultPSSBudget, "average CPU time per sample for reading PSS (~1 ms per process), stalest process first; the first sample reads all")
	pssAll := fs.Bool("pss-all", false, "read every process's PSS every sample (no budget)")
	noAcct := fs.Bool("no-acct", false, "do not use process accounting: a process that lives less than an interval counts in its parent's group")
	var groups multiFlag
	fs.Var(&groups, "group", "process group 'name=NAME,exe=EXE1|EXE2[,user=USER1|USER2]' (repeatable; EXE matches /proc/PID/exe's base name or comm, a trailing * makes a prefix); without --group or --groups: "+defaultGroupsText())
	groupsJSON := fs.String("groups", "", `process groups as JSON: [{"name": "web", "exe": ["apache2"], "users": ["www-data"]}, ...] (with --group: added after them)`)
	var target, knownHosts, identity string
	addTargetFlags(fs, &target, &knownHosts, &identity)
	agent := fs.String("agent", "", "with --target: the wptest binary to run there (default: this executable)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *interval <= 0 {
		return exitcode.With(exitcode.Config, fmt.Errorf("--interval %s: want a positive duration", *interval))
	}
	if *duration < 0 {
		return exitcode.With(exitcode.Config, fmt.Errorf("--duration %s: want a duration >= 0 (0: until interrupted or --count)", *duration))
	}
	if *count < 0 {
		return exitcode.With(exitcode.Config, fmt.Errorf("--count %d: want a count >= 0 (0: no limit)", *count))
	}
	if *pssBudget <= 0 {
		return exitcode.With(exitcode.Config, fmt.Errorf("--pss-budget %s: want a positive duration (--pss-all: no budget)", *pssBudget))
	}
	cfg := srvstat.Config{StatusURL: *statusURL, NoPSS: *noPSS, PSSBudget: *pssBudget, PSSAll: *pssAll, Acct: !*noAcct}
	for _, g := range groups {
		gr, err := srvstat.ParseGroup(g)
		if err != nil {
			return exitcode.With(exitcode.Config, err)
		}
		cfg.Groups = append(cfg.Groups, gr)
	}
	if *groupsJSON != "" {
		gs, err := srvstat.ParseGroups([]byte(*groupsJSON))
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
	if target != "" {
		remote, err := srvstatTarget(ctx, a, &cfg, fs, target, knownHosts, identity, *agent)
		if err != nil || remote {
			return err
		}
	}
	if cfg.Groups == nil {
		fmt.Fprintf(a.Stderr, "srvstat: no --group or --groups and no profile's groups: using the default groups %s\n", defaultGroupsText())
	}
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	// Process accounting stays on until Close: a closed stdout must end the
	// loop with an error (and Close), not kill us with SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)
	defer signal.Reset(syscall.SIGPIPE)
	s := srvstat.New(cfg)
	defer s.Close()
	err := srvstat.Loop(ctx, s, *interval, *count, a.Stdout)
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
func srvstatTarget(ctx context.Context, a *App, cfg *srvstat.Config, fs *flag.FlagSet, target, knownHosts, identity, agent string) (remote bool, err error) {
	steps := []stage.Step{targetStage(a, target, knownHosts, identity)}
	if cfg.Groups == nil {
		steps = append(steps, stage.Live(), stage.Do(func(_ context.Context, st *stage.State) error {
			cfg.Groups = experiment.SamplerGroups(st.Live)
			return nil
		}))
	}
	onHost := stage.Do(func(ctx context.Context, st *stage.State) error {
		return srvstat.RunRemote(ctx, st.Host, srvstat.Remote{Path: agentPath, Args: srvstatArgs(fs, *cfg)}, a.Stdout)
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

// srvstatArgs are this command's sampling flags and the groups, for the
// `wptest srvstat` that runs on the --target host.
func srvstatArgs(fs *flag.FlagSet, cfg srvstat.Config) []string {
	var args []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "target", "known-hosts", "identity", "agent", "group", "groups":
		default:
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	return append(args, srvstat.GroupArgs(cfg.Groups)...)
}
