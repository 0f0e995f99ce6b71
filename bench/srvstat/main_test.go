package srvstat

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"
)

// TestMain lets this test binary stand in for wptest on the "server": when
// started as `srvstat.test srvstat FLAGS` (by RunRemote in
// TestRunRemoteThroughLocalHost, and by BenchmarkSampleWithApachePrefork to
// measure a sampler process of its own) it samples like `wptest srvstat`
// (without PSS unless --pss) and exits.
func TestMain(m *testing.M) {
	if err := nsInit(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if len(os.Args) > 1 && os.Args[1] == "srvstat" {
		fs := flag.NewFlagSet("srvstat", flag.ExitOnError)
		count := fs.Int("count", 1, "")
		interval := fs.Duration("interval", time.Second, "")
		status := fs.String("status-url", "", "")
		pss := fs.Bool("pss", false, "")
		budget := fs.Duration("pss-budget", 0, "")
		acct := fs.Bool("acct", false, "")
		fs.Parse(os.Args[2:])
		s := New(Config{NoPSS: !*pss, PSSBudget: *budget, StatusURL: *status, Acct: *acct})
		err := Loop(context.Background(), s, *interval, *count, os.Stdout)
		s.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
