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
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/hostmanifest"
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
		// On another host (or this one, named): the live profile's groups,
		// and the sampler runs there, as `wptest run` runs it.
		h, err := openTarget(ctx, a, target, knownHosts, identity)
		if err != nil {
			return err
		}
		defer h.Close()
		if cfg.Groups == nil {
			hm, err := hostmanifest.Read(ctx, h)
			if err != nil {
				return exitcode.With(exitcode.Provision, err)
			}
			cfg.Groups = experiment.SamplerGroups(hm)
		}
		if _, local := h.(*host.Local); !local {
			return srvstatRemote(ctx, a, h, cfg, *agent, fs)
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

// srvstatRemote runs `wptest srvstat` on h (the agent, installed if need
// be) with this command's sampling flags and the groups, its JSON lines to
// stdout.
func srvstatRemote(ctx context.Context, a *App, h host.Host, cfg srvstat.Config, agent string, fs *flag.FlagSet) error {
	facts, err := h.Facts(ctx)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	msg, err := installAgent(ctx, a, h, facts, agent)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	fmt.Fprintf(a.Stderr, "[%s] wptest agent: %s\n", h.Name(), msg)
	var args []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "target", "known-hosts", "identity", "agent", "group", "groups":
		default:
			args = append(args, "--"+f.Name+"="+f.Value.String())
		}
	})
	args = append(args, srvstat.GroupArgs(cfg.Groups)...)
	return srvstat.RunRemote(ctx, h, srvstat.Remote{Path: agentPath, Args: args}, a.Stdout)
}
