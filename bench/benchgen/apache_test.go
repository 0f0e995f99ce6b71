package benchgen

import (
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/testsrv"
	"github.com/wptest/wptest/internal/testenv"
)

// Real Apache is stopped in the middle of a run: every attempt still lands in
// exactly one bucket, answers before and refused connects after.
func TestApacheStoppedMidRun(t *testing.T) {
	s := testsrv.StartApache(t, testsrv.ApacheOptions{})
	// Crash once Apache has answered 200 requests, then end the run once
	// benchgen has made attempts after the crash: each step waits for the
	// event, the run's 60 s only bound a hang.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var done atomic.Int64
	crashed := make(chan error, 1)
	go func() {
		defer cancel()
		err := testenv.Poll(time.Minute, func() bool { return s.Accesses() >= 200 })
		s.Crash() // every Apache process dies at once
		at := done.Load()
		if e := testenv.Poll(time.Minute, func() bool { return done.Load() > at }); err == nil {
			err = e
		}
		crashed <- err
	}()
	r, err := Run(ctx, Config{URL: s.URL(testsrv.Small), Visitors: 10, Duration: time.Minute, KeepAlive: true, Timeout: 2 * time.Second,
		Progress: func(n int64, _ time.Duration) { done.Store(n) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-crashed; err != nil {
		t.Fatalf("crash mid-run: %v", err)
	}
	checkInvariant(t, r)
	o := r.Outcomes
	if o.OK == 0 || o.ConnectRefused+o.Reset+o.Closed+o.ReadTimeout == 0 {
		t.Fatalf("want answers, then failures: %+v %v", o, r.Errors)
	}
	t.Logf("attempts %d: %s", r.Attempts, failureLine(o))
}

// The same -c 5 -n 2000 -k test with ab and with benchgen against the same
// Apache: the same number of complete requests, no failures, and exactly the
// same body bytes ("HTML transferred"). Total bytes differ only by the
// headers of HTTP/1.0 (ab) against HTTP/1.1 (benchgen) responses.
func TestAccountingMatchesAB(t *testing.T) {
	ab := testenv.NeedBinary(t, "ab")
	s := testsrv.StartApache(t, testsrv.ApacheOptions{})
	out, err := exec.Command(ab, "-q", "-k", "-c", "5", "-n", "2000", s.URL(testsrv.Small)).CombinedOutput()
	if err != nil {
		t.Fatalf("ab: %v\n%s", err, out)
	}
	abNum := func(label string) int64 {
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(label) + `:\s+(\d+)`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("ab output has no %q:\n%s", label, out)
		}
		n, _ := strconv.ParseInt(string(m[1]), 10, 64)
		return n
	}
	r, err := Run(context.Background(), Config{URL: s.URL(testsrv.Small), Visitors: 5, Requests: 2000, KeepAlive: true})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, r)
	failed := r.Attempts - r.Outcomes.OK
	if r.Attempts != abNum("Complete requests") || failed != abNum("Failed requests") || r.Bytes.Body != abNum("HTML transferred") {
		t.Fatalf("benchgen: %d attempts, %d failed, %d body bytes; ab:\n%s", r.Attempts, failed, r.Bytes.Body, out)
	}
	abTotal := abNum("Total transferred")
	if d := float64(r.Bytes.WireIn-abTotal) / float64(abTotal); d < -0.05 || d > 0.05 {
		t.Fatalf("total bytes: benchgen %d, ab %d", r.Bytes.WireIn, abTotal)
	}
	// With ab's HTTP/1.0 requests, Apache sends the same answers byte for
	// byte, on 5 kept connections.
	r10, err := Run(context.Background(), Config{URL: s.URL(testsrv.Small), Visitors: 5, Requests: 2000, KeepAlive: true, HTTP10: true})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, r10)
	if !r10.HTTP10 || r10.Outcomes.OK != 2000 || r10.Connections != 5 || r10.KeepAliveCloses != 0 || r10.Bytes.WireIn != abTotal {
		t.Fatalf("HTTP/1.0: ok %d, %d connections, %d keep-alive closes, total %d bytes; ab's total %d", r10.Outcomes.OK,
			r10.Connections, r10.KeepAliveCloses, r10.Bytes.WireIn, abTotal)
	}
	t.Logf("2000 requests each; HTML %d bytes both; total benchgen %d (HTTP/1.1), %d (HTTP/1.0) vs ab %d (HTTP/1.0)",
		r.Bytes.Body, r.Bytes.WireIn, r10.Bytes.WireIn, abTotal)
}

// crowd against Apache prefork with 3 workers: background visitors hold every
// worker, so a new visitor queues and gives up; against Caddy (event-driven)
// the same crowd leaves newcomers waiting milliseconds.
func TestCrowdPreforkQueuesEventDrivenDoesNot(t *testing.T) {
	cc := func(url string) CrowdConfig {
		return CrowdConfig{Base: Config{URL: url}, Visitors: 30, ClickEvery: 500 * time.Millisecond, ProbeEvery: 250 * time.Millisecond,
			GiveUp: time.Second, Warmup: time.Second, Duration: 2 * time.Second}
	}
	ap := testsrv.StartApache(t, testsrv.ApacheOptions{MPM: "prefork", MaxRequestWorkers: 3, KeepAliveTimeout: 10})
	pre, err := Crowd(context.Background(), cc(ap.URL(testsrv.Small)))
	if err != nil {
		t.Fatal(err)
	}
	cd := testsrv.StartCaddy(t)
	ev, err := Crowd(context.Background(), cc("http://127.0.0.1:"+itoa(cd.HTTPPort)+testsrv.Small))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		r    interface{ Sum() int64 }
		n    int
	}{{"prefork", pre.ProbeOutcomes, len(pre.Probes)}, {"caddy", ev.ProbeOutcomes, len(ev.Probes)}} {
		if c.r.Sum() != int64(c.n) || c.n != 8 {
			t.Fatalf("%s: %d probes, outcomes sum %d", c.name, c.n, c.r.Sum())
		}
	}
	checkInvariant(t, pre.Background)
	checkInvariant(t, ev.Background)
	if pre.GaveUp == 0 {
		t.Fatalf("prefork: no newcomer gave up: wait %+v, outcomes %+v", pre.Wait, pre.ProbeOutcomes)
	}
	if ev.GaveUp != 0 || ev.ProbeOutcomes.OK != 8 || ev.Wait.P50 > 100 {
		t.Fatalf("caddy: gave up %d, ok %d, wait p50 %.1f ms", ev.GaveUp, ev.ProbeOutcomes.OK, ev.Wait.P50)
	}
	t.Logf("prefork (3 workers, 30 visitors): %d/8 newcomers gave up after 1 s, answered wait max %.0f ms; caddy: p50 %.2f ms, max %.2f ms",
		pre.GaveUp, pre.Wait.Max, ev.Wait.P50, ev.Wait.Max)
}
