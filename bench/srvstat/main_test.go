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
// TestRunRemoteThroughLocalHost) it samples like `wptest srvstat` and exits.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "srvstat" {
		fs := flag.NewFlagSet("srvstat", flag.ExitOnError)
		count := fs.Int("count", 1, "")
		interval := fs.Duration("interval", time.Second, "")
		fs.Parse(os.Args[2:])
		if err := Loop(context.Background(), New(Config{NoPSS: true}), *interval, *count, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
