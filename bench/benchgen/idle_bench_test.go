package benchgen

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/bench/testsrv"
)

var idleConns = flag.String("idle.conns", "1000,5000,15000", "BenchmarkIdleConnections: crowd sizes, one child process each")

// idleChild is what a BENCHGEN_IDLE_CHILD process reports: its VmHWM before
// and after a crowd run, and the run.
type idleChild struct {
	BaseKB, HWMKB int64
	Crowd         result.Crowd
}

// BenchmarkIdleConnections measures what an idle keep-alive visitor costs the
// load host: for each crowd size (-idle.conns) a fresh process (this test
// binary again, BENCHGEN_IDLE_CHILD) runs the crowd scenario the way
// `wptest bench --scenario crowd --click-every 10s` does against Debian's
// nginx on loopback (every visitor holds its connection and clicks every
// 10 s; a newcomer every 0.5 s), and reports its peak resident memory
// (VmHWM) beyond what it had before the run, per connection, and the slope
// between the smallest and the largest crowd (fixed costs cancel out).
//
//	go test -run '^$' -bench IdleConnections -benchtime 1x -timeout 30m ./bench/benchgen/
func BenchmarkIdleConnections(b *testing.B) {
	var sizes []int
	for _, f := range strings.Split(*idleConns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			b.Fatalf("-idle.conns=%q: want a comma list of positive counts", *idleConns)
		}
		sizes = append(sizes, n)
	}
	maxN := 0
	for _, n := range sizes {
		maxN = max(maxN, n)
	}
	s := testsrv.StartNginx(b, testsrv.NginxOptions{WorkerConnections: maxN + 1024})
	u := s.URL(testsrv.Small)
	for b.Loop() {
		hwm := map[int]int64{}
		for _, n := range sizes {
			c := runIdleChild(b, u, n)
			bg := c.Crowd.Background
			checkInvariant(b, bg)
			if bg.Outcomes.OK != bg.Attempts || c.Crowd.ProbeOutcomes.OK != c.Crowd.ProbeOutcomes.Sum() {
				b.Fatalf("%d visitors: not every click answered: background %+v %v; newcomers %+v", n, bg.Outcomes, bg.Errors, c.Crowd.ProbeOutcomes)
			}
			grown := c.HWMKB - c.BaseKB
			hwm[n] = c.HWMKB
			b.ReportMetric(float64(c.HWMKB)/1024, fmt.Sprintf("MB-VmHWM@%d", n))
			b.ReportMetric(float64(grown)/float64(n), fmt.Sprintf("KB/conn@%d", n))
			b.Logf("%d visitors: VmHWM %d kB (%d kB before the run): %.2f kB per connection; background %d clicks answered (latency p50 %.2f ms, max %.0f ms), %d new connections in the window, %d keep-alive closes; newcomers' wait p50 %.2f ms, max %.0f ms",
				n, c.HWMKB, c.BaseKB, float64(grown)/float64(n), bg.Outcomes.OK, bg.Latency.P50, bg.Latency.Max, bg.Connections, bg.KeepAliveCloses, c.Crowd.Wait.P50, c.Crowd.Wait.Max)
		}
		lo, hi := sizes[0], sizes[len(sizes)-1]
		if hi > lo {
			slope := float64(hwm[hi]-hwm[lo]) / float64(hi-lo)
			b.ReportMetric(slope, "KB/conn-slope")
			b.Logf("slope %d → %d visitors: %.2f kB per connection; 100,000 idle connections ≈ %.0f MB", lo, hi, slope, slope*100000/1024)
		}
	}
}

func runIdleChild(b *testing.B, u string, n int) idleChild {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BENCHGEN_IDLE_CHILD="+u, "BENCHGEN_IDLE_N="+strconv.Itoa(n))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("%d visitors: %v\n%s", n, err, stderr.String())
	}
	if stderr.Len() > 0 {
		b.Logf("%d visitors: %s", n, stderr.String())
	}
	var c idleChild
	if err := json.Unmarshal(out, &c); err != nil {
		b.Fatalf("%d visitors: %v\n%s\n%s", n, err, out, stderr.String())
	}
	return c
}

// idleChildRun is the child's side: one crowd run, as the CLI runs it.
func idleChildRun(u string) {
	n, err := strconv.Atoi(os.Getenv("BENCHGEN_IDLE_N"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "BENCHGEN_IDLE_N:", err)
		os.Exit(1)
	}
	var c idleChild
	c.BaseKB = selfHWM()
	c.Crowd, err = Crowd(context.Background(), CrowdConfig{Base: Config{URL: u}, Visitors: n,
		ClickEvery: 10 * time.Second, ProbeEvery: 500 * time.Millisecond, GiveUp: 30 * time.Second,
		Warmup: 10 * time.Second, Duration: 10 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c.HWMKB = selfHWM()
	c.Crowd.Probes = c.Crowd.Probes[:0:0] // the parent needs the counts only
	json.NewEncoder(os.Stdout).Encode(c)
}
