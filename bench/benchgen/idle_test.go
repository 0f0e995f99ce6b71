package benchgen

import (
	"bytes"
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/internal/testenv"
)

// visitorGoroutines counts the goroutines running a visitor's code.
func visitorGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if bytes.Contains(g, []byte("benchgen.(*visitor)")) {
			count++
		}
	}
	return count
}

// An open-loop visitor that only holds its connection waits on a timer, not
// in a goroutine: 400 visitors clicking every 10 s, the first 40 answered
// and idle, the rest not yet due, and no visitor goroutine per visitor. A
// cancelled run then ends at once: every attempt made was counted once, and
// every connection is closed.
func TestIdleOpenLoopVisitorsHoldNoGoroutine(t *testing.T) {
	s := startFaultServer(t)
	const visitors = 400
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type ran struct {
		r   result.Run
		err error
	}
	done := make(chan ran, 1)
	go func() {
		r, err := Run(ctx, Config{URL: s.url("/ok"), Visitors: visitors, Rate: visitors / 10, Duration: time.Hour,
			KeepAlive: true, Timeout: 10 * time.Second})
		done <- ran{r, err}
	}()
	testenv.WaitFor(t, time.Minute, "40 visitors answered", func() bool { return s.answered.Load() >= 40 })
	// One goroutine per visitor would be 400; only attempts in flight have one.
	if g := visitorGoroutines(); g >= visitors/2 {
		t.Fatalf("%d goroutines run visitor code for %d visitors, %d of them answered", g, visitors, s.answered.Load())
	}
	cancel()
	var got ran
	select {
	case got = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the cancelled run did not return")
	}
	if got.err != nil {
		t.Fatal(got.err)
	}
	r := got.r
	checkInvariant(t, r)
	// Once the server has seen every connection close, its count is final.
	testenv.WaitFor(t, time.Minute, "the visitors' connections to close", func() bool { return s.open() == 0 })
	if n := s.answered.Load(); r.Attempts != n || r.Outcomes.OK != n || r.Latency.Count != uint64(n) {
		t.Fatalf("the server answered %d requests; the run counted %d attempts, %d ok, %d latencies", n, r.Attempts, r.Outcomes.OK, r.Latency.Count)
	}
	if g := visitorGoroutines(); g != 0 {
		t.Fatalf("%d visitor goroutines left after the run", g)
	}
}

// A kept h1 connection holds no read buffer between attempts: it is taken
// from the pool for a response and given back after. Only a buffer with
// bytes nobody asked for stays, and the next attempt drops that connection
// (a keep-alive close) and goes out on a new one.
func TestIdleConnectionHoldsNoReadBuffer(t *testing.T) {
	s := startFaultServer(t)
	for _, path := range []string{"/ok", "/extra"} {
		tg, err := newTarget(&Config{URL: s.url(path), KeepAlive: true})
		if err != nil {
			t.Fatal(err)
		}
		c := newH1(tg)
		for i := range 3 {
			a := attempt{start: time.Now()}
			c.do(context.Background(), time.Now().Add(10*time.Second), &a)
			if a.outcome != result.OK || c.conn == nil {
				t.Fatalf("%s #%d: %s %v, connection kept: %v", path, i, a.outcome, a.err, c.conn != nil)
			}
			extra := path == "/extra"
			if held := c.br != nil; held != extra {
				t.Fatalf("%s #%d: read buffer held between attempts: %v", path, i, held)
			}
			if again := i > 0 && extra; a.kaCloseBefore != again || a.newConn != (i == 0 || again) {
				t.Fatalf("%s #%d: keep-alive close before %v, new connection %v", path, i, a.kaCloseBefore, a.newConn)
			}
		}
		c.close()
		if c.br != nil {
			t.Fatalf("%s: a closed connection kept its read buffer", path)
		}
	}
}

// Visitors share their counts and histograms (more visitors than shards):
// every attempt is counted once, and the merged histograms hold every
// sample, closed and open loop.
func TestCountsAddUpAcrossSharedShards(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	const visitors, n = 100, 3000
	if numShards(visitors) >= visitors {
		t.Fatalf("%d shards for %d visitors: the test wants them shared", numShards(visitors), visitors)
	}
	for _, rate := range []float64{0, 2000} {
		s := startFaultServer(t)
		r, err := Run(context.Background(), Config{URL: s.url("/ok"), Visitors: visitors, Requests: n, Rate: rate,
			KeepAlive: true, Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		checkInvariant(t, r)
		// Once the server has seen every connection close, its count is final.
		testenv.WaitFor(t, time.Minute, "the visitors' connections to close", func() bool { return s.open() == 0 })
		if r.Attempts != n || r.Outcomes.OK != n || s.answered.Load() != n {
			t.Fatalf("rate %v: %d attempts, %d ok, the server answered %d; want %d", rate, r.Attempts, r.Outcomes.OK, s.answered.Load(), n)
		}
		if r.Latency.Count != n || r.TTFB.Count != n || r.Bytes.Body != n*1024 {
			t.Fatalf("rate %v: %d latencies, %d TTFBs, %d body bytes for %d answers", rate, r.Latency.Count, r.TTFB.Count, r.Bytes.Body, n)
		}
		if r.Connect.Count != uint64(r.Connections) || r.Connections < 1 || r.Connections > visitors {
			t.Fatalf("rate %v: %d connect times for %d connections", rate, r.Connect.Count, r.Connections)
		}
		if rate > 0 && (r.Queue == nil || r.Queue.Count != n) {
			t.Fatalf("rate %v: queue waits %+v for %d attempts", rate, r.Queue, n)
		}
	}
}

// A kept h2 or h2c connection holds no read buffer between attempts either,
// and a frame payload buffer only as large as the frames it read (a header
// block here, not SETTINGS_MAX_FRAME_SIZE). Frames read with an answer but
// after its end keep the buffer: the next attempt reads them first (a PING
// answered), on the same connection.
func TestIdleH2ConnectionHoldsNoReadBuffer(t *testing.T) {
	for _, c := range []struct {
		proto, path string
		held        bool
	}{
		{"h2c", "/ok", false},
		{"h2", "/ok", false},
		{"h2c", "/ok-ping", true},
	} {
		s, pool := startH2FaultServer(t, c.proto == "h2")
		tg, err := newTarget(&Config{URL: s.url(c.path), Proto: c.proto, KeepAlive: true, RootCAs: pool})
		if err != nil {
			t.Fatal(err)
		}
		cl := newH2(tg)
		for i := range 3 {
			a := attempt{start: time.Now()}
			cl.do(context.Background(), time.Now().Add(10*time.Second), &a)
			if a.outcome != result.OK || cl.conn == nil || a.newConn != (i == 0) || a.kaCloseBefore {
				t.Fatalf("%s %s #%d: %s %v, connection kept %v, new %v, keep-alive close %v",
					c.proto, c.path, i, a.outcome, a.err, cl.conn != nil, a.newConn, a.kaCloseBefore)
			}
			if held := cl.br != nil; held != c.held {
				t.Fatalf("%s %s #%d: read buffer held between attempts: %v", c.proto, c.path, i, held)
			}
			if n := cap(cl.pbuf); n > 1024 {
				t.Fatalf("%s %s #%d: a %d-byte payload buffer kept for header blocks", c.proto, c.path, i, n)
			}
		}
		cl.close()
		if cl.br != nil {
			t.Fatalf("%s %s: a closed connection kept its read buffer", c.proto, c.path)
		}
	}
}
