package benchgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/bench/testsrv"
	"github.com/wptest/wptest/internal/testenv"
)

// TestMain lets BenchmarkVersusWrkAndAB re-run this test binary pinned to
// one core (taskset) with BENCHGEN_CHILD set, so benchgen is measured as its
// own process, like wrk and ab (a helper "test" would show up as a skip).
func TestMain(m *testing.M) {
	if u := os.Getenv("BENCHGEN_CHILD"); u != "" {
		childRun(u)
		return
	}
	os.Exit(m.Run())
}

func childRun(u string) {
	d, _ := time.ParseDuration(os.Getenv("BENCHGEN_DURATION"))
	r, err := Run(context.Background(), Config{URL: u, Visitors: 50, Duration: d, KeepAlive: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(r)
}

type toolRun struct {
	rps, cpuUsPerReq float64
}

// BenchmarkVersusWrkAndAB runs wrk, ab and benchgen, each pinned to core 1,
// against one server pinned to core 0 (nginx with one worker, as in
// loadgen-anchors.md §4, and Apache's event MPM), 50 keep-alive connections,
// on a 1 KB file, interleaved. It reports benchgen's req/s as a ratio of
// wrk's and ab's (the median of the per-round ratios), and its client CPU
// per request as a ratio of wrk's (goal ≤ 1.0, bar < 1.3).
//
//	go test -run '^$' -bench VersusWrk -benchtime 3x ./bench/benchgen/
func BenchmarkVersusWrkAndAB(b *testing.B) {
	testenv.NeedBinary(b, "wrk")
	testenv.NeedBinary(b, "ab")
	testenv.NeedBinary(b, "taskset")
	if runtime.NumCPU() < 2 {
		b.Skip("needs two cores: server on one, client on the other")
	}
	b.Run("nginx", func(b *testing.B) {
		s := testsrv.StartNginx(b, testsrv.NginxOptions{CPUs: "0"})
		versus(b, s.URL(testsrv.Small))
	})
	b.Run("apache", func(b *testing.B) {
		s := testsrv.StartApache(b, testsrv.ApacheOptions{CPUs: "0", MaxRequestWorkers: 400})
		versus(b, s.URL(testsrv.Small))
	})
}

func versus(b *testing.B, u string) {
	const secs = 4
	var ours, wrk, ab []toolRun
	round := 0
	for b.Loop() {
		// Rotate the order each round, so no tool always runs first.
		runs := []func(){
			func() { ours = append(ours, runBenchgen(b, u, secs)) },
			func() { wrk = append(wrk, runWrk(b, u, secs)) },
			func() { ab = append(ab, runAB(b, u, secs)) },
		}
		for i := range runs {
			runs[(i+round)%len(runs)]()
		}
		round++
	}
	med := func(v []float64) float64 {
		v = slices.Clone(v)
		slices.Sort(v)
		if len(v)%2 == 0 {
			return (v[len(v)/2-1] + v[len(v)/2]) / 2
		}
		return v[len(v)/2]
	}
	col := func(rs []toolRun, f func(toolRun) float64) []float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		return v
	}
	// Per-round ratios: tools in the same round share the machine's mood
	// (the host is shared), so their ratio is steadier than the medians'.
	ratio := func(a, b []toolRun, f func(toolRun) float64) []float64 {
		v := make([]float64, len(a))
		for i := range a {
			v[i] = f(a[i]) / f(b[i])
		}
		return v
	}
	rps := func(r toolRun) float64 { return r.rps }
	cpu := func(r toolRun) float64 { return r.cpuUsPerReq }
	b.ReportMetric(med(col(ours, rps)), "benchgen-rps")
	b.ReportMetric(med(col(wrk, rps)), "wrk-rps")
	b.ReportMetric(med(col(ab, rps)), "ab-rps")
	b.ReportMetric(med(ratio(ours, wrk, rps)), "rps/wrk")
	b.ReportMetric(med(ratio(ours, ab, rps)), "rps/ab")
	b.ReportMetric(med(col(ours, cpu)), "benchgen-cpu-us/req")
	b.ReportMetric(med(col(wrk, cpu)), "wrk-cpu-us/req")
	b.ReportMetric(med(col(ab, cpu)), "ab-cpu-us/req")
	b.ReportMetric(med(ratio(ours, wrk, cpu)), "cpu/wrk")
	for i := range ours {
		b.Logf("round %d: benchgen %.0f rps %.2f µs/req; wrk %.0f rps %.2f µs/req; ab %.0f rps %.2f µs/req",
			i+1, ours[i].rps, ours[i].cpuUsPerReq, wrk[i].rps, wrk[i].cpuUsPerReq, ab[i].rps, ab[i].cpuUsPerReq)
	}
}

func pinned(args ...string) *exec.Cmd {
	return exec.Command("taskset", append([]string{"-c", "1"}, args...)...)
}

func procCPU(c *exec.Cmd) time.Duration {
	return c.ProcessState.UserTime() + c.ProcessState.SystemTime()
}

func runBenchgen(b *testing.B, u string, secs int) toolRun {
	c := pinned(os.Args[0])
	c.Env = append(os.Environ(), "BENCHGEN_CHILD="+u, fmt.Sprintf("BENCHGEN_DURATION=%ds", secs))
	out, err := c.Output()
	if err != nil {
		b.Fatalf("benchgen child: %v\n%s", err, out)
	}
	var r result.Run
	dec := json.NewDecoder(bytesReader(out))
	if err := dec.Decode(&r); err != nil {
		b.Fatalf("benchgen child output: %v\n%s", err, out)
	}
	if r.Outcomes.OK != r.Attempts {
		b.Logf("benchgen: %d of %d attempts failed: %s", r.Attempts-r.Outcomes.OK, r.Attempts, failureLine(r.Outcomes))
	}
	// Whole-process CPU, as for wrk and ab (start-up included for all three).
	return toolRun{r.RPS, float64(procCPU(c).Microseconds()) / float64(r.Outcomes.OK)}
}

func runWrk(b *testing.B, u string, secs int) toolRun {
	c := pinned("wrk", "-t1", "-c50", fmt.Sprintf("-d%ds", secs), u)
	out, err := c.CombinedOutput()
	if err != nil {
		b.Fatalf("wrk: %v\n%s", err, out)
	}
	rps := grepFloat(b, out, `Requests/sec:\s+([\d.]+)`)
	n := grepFloat(b, out, `(\d+) requests in`)
	return toolRun{rps, float64(procCPU(c).Microseconds()) / n}
}

func runAB(b *testing.B, u string, secs int) toolRun {
	c := pinned("ab", "-q", "-k", "-c", "50", "-t", strconv.Itoa(secs), "-n", "100000000", u)
	out, err := c.CombinedOutput()
	if err != nil {
		b.Fatalf("ab: %v\n%s", err, out)
	}
	rps := grepFloat(b, out, `Requests per second:\s+([\d.]+)`)
	n := grepFloat(b, out, `Complete requests:\s+(\d+)`)
	return toolRun{rps, float64(procCPU(c).Microseconds()) / n}
}

func grepFloat(b *testing.B, out []byte, re string) float64 {
	m := regexp.MustCompile(re).FindSubmatch(out)
	if m == nil {
		b.Fatalf("no %s in:\n%s", re, out)
	}
	f, _ := strconv.ParseFloat(string(m[1]), 64)
	return f
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
