package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/wptest/wptest/bench/srvstat"
	"github.com/wptest/wptest/internal/exitcode"
)

// wptest srvstat: runs on the server (wptest uploads itself and starts it
// over the Host), one JSON line per sample on stdout.
func init() {
	register(command{name: "srvstat", summary: "sample this server's CPU, memory and workers as JSON lines", run: runSrvstat})
}

func runSrvstat(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "srvstat")
	interval := fs.Duration("interval", time.Second, "time between samples")
	duration := fs.Duration("duration", 0, "stop after this long (0: until interrupted or --count)")
	count := fs.Int("count", 0, "stop after this many samples (0: no limit)")
	statusURL := fs.String("status-url", "", "Apache mod_status URL, e.g. http://127.0.0.1/server-status?auto")
	noPSS := fs.Bool("no-pss", false, "do not read smaps_rollup (PSS)")
	pssBudget := fs.Duration("pss-budget", srvstat.DefaultPSSBudget, "average CPU time per sample for reading PSS (~1 ms per process), stalest process first; the first sample reads all")
	pssAll := fs.Bool("pss-all", false, "read every process's PSS every sample (no budget)")
	var groups multiFlag
	fs.Var(&groups, "group", "process group NAME=comm1,comm2 (repeatable; replaces the defaults: "+defaultGroupsText()+")")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *pssBudget <= 0 {
		return exitcode.With(exitcode.Config, fmt.Errorf("--pss-budget %s: want a positive duration (--pss-all: no budget)", *pssBudget))
	}
	cfg := srvstat.Config{StatusURL: *statusURL, NoPSS: *noPSS, PSSBudget: *pssBudget, PSSAll: *pssAll}
	for _, g := range groups {
		name, comms, ok := strings.Cut(g, "=")
		if !ok || name == "" || comms == "" || name == srvstat.Other {
			return exitcode.With(exitcode.Config, fmt.Errorf("--group %q: want NAME=comm1,comm2 (NAME not %q)", g, srvstat.Other))
		}
		cfg.Groups = append(cfg.Groups, srvstat.Group{Name: name, Comms: strings.Split(comms, ",")})
	}
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	return srvstat.Loop(ctx, srvstat.New(cfg), *interval, *count, a.Stdout)
}

func defaultGroupsText() string {
	var p []string
	for _, g := range srvstat.DefaultGroups {
		p = append(p, g.Name+"="+strings.Join(g.Comms, ","))
	}
	return strings.Join(p, " ")
}
