package benchgen

import (
	"context"
	"crypto/x509"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/internal/testenv"
)

func checkInvariant(t testing.TB, r result.Run) {
	t.Helper()
	if got := r.Outcomes.Sum(); got != r.Attempts {
		t.Fatalf("outcomes sum %d != attempts %d: %+v", got, r.Attempts, r.Outcomes)
	}
	if r.Latency.Count > uint64(r.Attempts) {
		t.Fatalf("latency count %d > attempts %d", r.Latency.Count, r.Attempts)
	}
}

// Each fault must land in its own bucket, and only there.
func TestEveryFaultHasItsBucket(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	s := startFaultServer(t)
	// A port with nothing listening: take a free one and close it.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	refused := "http://" + l.Addr().String() + "/"
	l.Close()
	// A listener that never accepts, its backlog filled: SYNs are dropped, so dials time out.
	full := fullBacklog(t)

	cases := []struct {
		name, url string
		want      result.Outcome
		ka        bool
	}{
		{"ok", s.url("/ok"), result.OK, true},
		{"chunked", s.url("/chunked"), result.OK, true},
		{"eof-delimited", s.url("/eof-body"), result.OK, true},
		{"3xx", s.url("/301"), result.HTTP3xx, true},
		{"4xx", s.url("/404"), result.HTTP4xx, true},
		{"5xx", s.url("/503"), result.HTTP5xx, true},
		{"odd status", s.url("/600"), result.HTTP1xx, true},
		{"short body", s.url("/short"), result.ShortBody, false},
		{"reset", s.url("/reset"), result.Reset, false},
		{"closed", s.url("/close"), result.Closed, false},
		{"garbage", s.url("/garbage"), result.ProtocolError, false},
		{"stall", s.url("/stall"), result.ReadTimeout, false},
		{"refused", refused, result.ConnectRefused, false},
		{"connect timeout", full, result.ConnectTimeout, false},
		{"tls to plain", "https://" + plainGreeter(t) + "/ok", result.ConnectError, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Short timeouts only where the fault is a timeout: a loaded
			// machine must not turn an answer into a timeout.
			timeout := 5 * time.Second
			if c.want == result.ReadTimeout || c.want == result.ConnectTimeout {
				timeout = 300 * time.Millisecond
			}
			r, err := Run(context.Background(), Config{URL: c.url, Visitors: 2, Requests: 6, KeepAlive: c.ka,
				Timeout: timeout, Insecure: true})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariant(t, r)
			a := r.Outcomes.Array()
			if r.Attempts != 6 || a[c.want] != 6 {
				t.Fatalf("want 6 attempts all %s, got %d: %+v errors=%v", c.want, r.Attempts, r.Outcomes, r.Errors)
			}
		})
	}
}

// plainGreeter answers every connection with plain HTTP at once, so a TLS
// client sees a record that is not TLS.
func plainGreeter(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("HTTP/1.0 400 Bad Request\r\n\r\n"))
			c.Close()
		}
	}()
	return ln.Addr().String()
}

func fullBacklog(t *testing.T) string {
	t.Helper()
	fd, err := listenNoAccept()
	testenv.Need(t, err == nil, fmt.Sprintf("cannot make a full backlog: %v", err))
	t.Cleanup(func() { fd.Close() })
	addr := fd.Addr().String()
	// Fill the accept queue (backlog 0 admits one or two) so later SYNs are dropped.
	var held []net.Conn
	for range 8 {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			break
		}
		held = append(held, c)
	}
	t.Cleanup(func() {
		for _, c := range held {
			c.Close()
		}
	})
	return "http://" + addr + "/"
}

// The server dies in the middle of a closed-loop run: attempts in flight end as
// reset/closed, later ones as connect refused, and the sum still holds.
func TestServerKilledMidRun(t *testing.T) {
	s := startFaultServer(t)
	s.killAfter.Store(100)
	r, err := Run(context.Background(), Config{URL: s.url("/ok"), Visitors: 8, Requests: 1000, KeepAlive: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, r)
	o := r.Outcomes
	if r.Attempts != 1000 || o.OK < 100 || o.ConnectRefused == 0 {
		t.Fatalf("want 1000 attempts, 100 or more answers before the kill and refused connects after: %d, %+v", r.Attempts, o)
	}
	if o.OK+o.ConnectRefused+o.Reset+o.Closed+o.ShortBody != r.Attempts {
		t.Fatalf("unexpected buckets: %+v %v", o, r.Errors)
	}
	t.Logf("attempts=%d %+v", r.Attempts, o)
}

// Responses stall past the timeout: every attempt, including the ones still in
// flight when the window closes, is waited for and counted as a read timeout.
func TestStallPastTimeoutIsCountedNotDropped(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	s := startFaultServer(t)
	timeout := 400 * time.Millisecond
	t0 := time.Now()
	r, err := Run(context.Background(), Config{URL: s.url("/stall"), Visitors: 5, Duration: time.Second, KeepAlive: true, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	checkInvariant(t, r)
	// Every request the server read is an attempt of the run: the ones in
	// flight when the window closed too (each visitor has one: its attempts
	// are back to back). Once the client has closed them all, the server's
	// count is final.
	testenv.WaitFor(t, time.Minute, "the client to close its stalled connections", func() bool { return s.open() == 0 })
	if sent := s.stalled.Load(); r.Outcomes.ReadTimeout != r.Attempts || r.Attempts != sent || r.Attempts < 5 {
		t.Fatalf("server read %d requests; the run counted %d attempts, want all of them, all read timeouts: %+v", sent, r.Attempts, r.Outcomes)
	}
	// They ran to their deadline (a read timeout each), after the window.
	if took < time.Second || r.ElapsedMs < 1000 {
		t.Fatalf("the in-flight attempts were not waited for: run took %v, elapsed %.0f ms", took, r.ElapsedMs)
	}
	if r.Latency.Count != 0 || r.RPS != 0 {
		t.Fatalf("timeouts must not be latencies or answers: %+v rps=%v", r.Latency, r.RPS)
	}
}

// Warm-up attempts are counted apart and never in the window.
func TestWarmupExcluded(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	s := startFaultServer(t)
	t0 := time.Now()
	r, err := Run(context.Background(), Config{URL: s.url("/ok"), Visitors: 2, Duration: 300 * time.Millisecond, Warmup: 300 * time.Millisecond, KeepAlive: true})
	took := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, r)
	if r.WarmupAttempts == 0 || r.Attempts == 0 {
		t.Fatalf("warmup %d attempts %d", r.WarmupAttempts, r.Attempts)
	}
	// The window began after the warm-up, so it is at most the run's wall
	// time less the warm-up, however slow the machine (a stall can make it
	// shorter than the 300 ms asked: elapsed runs from the first counted
	// attempt to the last answer).
	if r.ElapsedMs <= 0 || r.ElapsedMs > float64((took-300*time.Millisecond).Milliseconds())+1 {
		t.Fatalf("elapsed %.0f ms of a %v run should be the window, not warm-up + window", r.ElapsedMs, took)
	}
	// Bytes: every OK response is 1024 body bytes; the window's bytes only.
	if r.Bytes.Body != 1024*r.Outcomes.OK {
		t.Fatalf("body bytes %d for %d answers", r.Bytes.Body, r.Outcomes.OK)
	}
}

// Keep-alive closes are counted apart and are not failures; the next attempt reconnects.
func TestKeepAliveClosesCountedApart(t *testing.T) {
	s := startFaultServer(t)
	r, err := Run(context.Background(), Config{URL: s.url("/ka-close"), Visitors: 1, Requests: 20, KeepAlive: true})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, r)
	if r.Outcomes.OK != 20 || r.KeepAliveCloses != 20 || r.Connections != 20 {
		t.Fatalf("ok=%d kaCloses=%d conns=%d", r.Outcomes.OK, r.KeepAliveCloses, r.Connections)
	}
}

// A server's close of a kept connection between two requests must be
// seen before the next request goes out: it is a keep-alive close, and the
// request goes out on a new connection.
//   - idle-close: the server drops the connection after the answer
//     (Apache's KeepAliveTimeout); the visitor comes back after 100 ms.
//   - linger-close: it half-closes after the answer and lingers without
//     answering (Apache event when its workers are busy); the visitor
//     comes back after 20 ms, sooner than the TLS idle check looks.
//     The cleartext path forgot the poller's notice of the close and waited
//     out its timeout; over TLS the request goes out and then sees the
//     close (counted as closed, never lost).
//
// The server's close leaves with its answer (corked), so it has arrived
// before the visitor sends again, however busy the machine.
func TestServerCloseOfKeptConnectionSeenBeforeSending(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	for _, tc := range []struct {
		path  string
		rate  float64
		tls   bool
		whole bool // every attempt ok, one connection each, the closes counted apart
	}{
		{"/idle-close", 10, false, true},
		{"/idle-close", 10, true, true},
		{"/linger-close", 50, false, true},
		{"/linger-close", 50, true, false},
	} {
		name := tc.path[1:] + map[bool]string{false: "/http", true: "/https"}[tc.tls]
		t.Run(name, func(t *testing.T) {
			s := startFaultServer(t)
			var pool *x509.CertPool
			if tc.tls {
				s, pool = startTLSFaultServer(t)
			}
			const n = 5
			r, err := Run(context.Background(), Config{URL: s.url(tc.path), Visitors: 1, Rate: tc.rate, Requests: n,
				KeepAlive: true, RootCAs: pool, Timeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariant(t, r)
			if r.Outcomes.ReadTimeout != 0 {
				t.Fatalf("requests sent on a closed connection waited out their timeout: %+v %+v", r.Outcomes, r.Errors)
			}
			if tc.whole && (r.Outcomes.OK != n || r.Connections != n || r.KeepAliveCloses != n-1) {
				t.Fatalf("ok=%d conns=%d kaCloses=%d outcomes %+v errors %+v", r.Outcomes.OK, r.Connections, r.KeepAliveCloses, r.Outcomes, r.Errors)
			}
		})
	}
}

// Open loop: the server stalls for 1 s after the first request. Requests
// intended during the stall must show the wait from their intended send time
// (no coordinated omission), while a closed loop sees a single slow request.
func TestOpenLoopHasNoCoordinatedOmission(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	const stall = time.Second
	rate := 200.0
	run := func(open bool) result.Run {
		s := startFaultServer(t)
		s.stallDur = stall
		cfg := Config{URL: s.url("/stall-once"), Visitors: 1, Duration: 2 * time.Second, KeepAlive: true, Timeout: 5 * time.Second}
		if open {
			cfg.Rate = rate
		}
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		checkInvariant(t, r)
		return r
	}
	open, closed := run(true), run(false)
	if open.Model != "open" || closed.Model != "closed" {
		t.Fatal("each result must name its model")
	}
	// Requests intended in the stall's first half waited ≥ 0.5 s: about rate/2 of them.
	openSlow := float64(open.Latency.Count) * (1 - pctBelow(open, 500))
	if open.Latency.Max < 1000 || openSlow < rate*0.4 {
		t.Fatalf("open loop hides the stall: max=%.0fms p50=%.1fms slow=%.0f", open.Latency.Max, open.Latency.P50, openSlow)
	}
	if closed.Latency.P90 > 100 || closed.Latency.Max < 1000 {
		t.Fatalf("closed loop: want one 1 s request and fast others, got p90=%.1f max=%.0f", closed.Latency.P90, closed.Latency.Max)
	}
	if open.Outcomes.OK < int64(rate*1.8) {
		t.Fatalf("open loop sent %d, want about %v", open.Outcomes.OK, rate*2)
	}
	t.Logf("open: n=%d p50=%.1fms p99=%.0fms max=%.0fms; closed: n=%d p50=%.2fms p99=%.2fms max=%.0fms",
		open.Latency.Count, open.Latency.P50, open.Latency.P99, open.Latency.Max,
		closed.Latency.Count, closed.Latency.P50, closed.Latency.P99, closed.Latency.Max)
}

// pctBelow estimates the fraction of latencies below ms from the percentile table.
func pctBelow(r result.Run, ms float64) float64 {
	f := 0.0
	for _, p := range r.Latency.Percentiles {
		if p.Ms < ms {
			f = p.Pct / 100
		}
	}
	return f
}

// Open loop against a server slower than the arrival rate: answers take 250 ms
// while 20 are due per second on one connection. A closed loop would report
// every answer as fine (250 ms < timeout); from the intended send times the
// waits grow past the 600 ms timeout and those attempts count as failures.
func TestOpenLoopCountsWaitsPastTimeout(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	s := startFaultServer(t)
	r, err := Run(context.Background(), Config{URL: s.url("/slow"), Visitors: 1, Rate: 20, Duration: time.Second, KeepAlive: true, Timeout: 600 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, r)
	o := r.Outcomes
	// Which timeout a late attempt lands in (queued, reading, or even
	// connecting on a loaded machine) depends on scheduling; that every
	// attempt lands in exactly one, some answered and some too late, does not.
	late := o.QueueTimeout + o.ReadTimeout + o.ConnectTimeout
	if r.Attempts != 20 || o.OK < 1 || late < 1 || o.OK+late != 20 {
		t.Fatalf("want 20 attempts, answered or timed out: %d %+v", r.Attempts, o)
	}
	if r.Queue == nil || r.Queue.Max < 200 {
		t.Fatalf("queue wait not recorded: %+v", r.Queue)
	}
	c, err := Run(context.Background(), Config{URL: s.url("/slow"), Visitors: 1, Duration: time.Second, KeepAlive: true, Timeout: 600 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if c.Outcomes.OK != c.Attempts {
		t.Fatalf("closed loop: want all answered, got %+v", c.Outcomes)
	}
}
