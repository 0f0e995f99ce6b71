package benchgen

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/bench/testsrv"
	"github.com/wptest/wptest/internal/testenv"
)

// An open loop's cost is bounded by its window, not its rate. At a rate no
// machine keeps (1e308/s) and an attempt timeout of an hour, the run
// returns (it used to send on, one attempt after another, until each
// intended send's deadline passed: here an hour, 30 s by default, and
// against a port that refuses, one refused dial after another). What it
// sent is what the client could start in the window and the grace after
// it (windowGrace); every other intended send is counted at once, a
// queue timeout that never left this machine; and the run says that the
// point measured the load generator (Run.Limit), not the server. Counts,
// not times: the attempts are exactly window × rate (one per nanosecond),
// what was sent is exactly what the server saw (or the refused dials), and
// the rest are the unsent.

const (
	owRate    = 1e308
	owWindow  = 300 * time.Millisecond
	owTimeout = time.Hour
	owVisits  = 4
)

// runToWindowEnd runs the open loop at owRate against url, with a safety net
// that fails the test if the run ends only when it cancels it.
func runToWindowEnd(t *testing.T, url string) result.Run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := Run(ctx, Config{URL: url, Visitors: owVisits, KeepAlive: true, Rate: owRate, Duration: owWindow, Timeout: owTimeout})
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the run ended only when the test's safety net cancelled it (%d attempts)", r.Attempts)
	}
	return r
}

// checkWindow: what every such run must say, sent being the attempts that
// left this machine as the other side counted them.
func checkWindow(t *testing.T, r result.Run, sent int64) {
	t.Helper()
	if want := int64(owWindow / time.Nanosecond); r.Attempts != want {
		t.Errorf("%d attempts, want the %d the schedule intended in the window", r.Attempts, want)
	}
	if sent <= 0 || r.Attempts-r.Outcomes.QueueTimeout != sent {
		t.Errorf("%d attempts, %d queue timeouts: %d sent, but the other side counts %d", r.Attempts, r.Outcomes.QueueTimeout, r.Attempts-r.Outcomes.QueueTimeout, sent)
	}
	if !strings.Contains(r.Limit, "measured the load generator") {
		t.Errorf("a rate no machine keeps is not reported as the load generator's limit: %q", r.Limit)
	}
	unsent := false
	for _, e := range r.Errors {
		unsent = unsent || e.Message == errWindowOver.Error()
	}
	if !unsent {
		t.Errorf("no send counted unsent at the window's end: %v", r.Errors)
	}
	checkInvariant(t, r)
}

func TestOpenLoopWindowBoundsItsCost(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	t.Run("live server", func(t *testing.T) {
		var served atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			served.Add(1)
			w.Write([]byte("hello"))
		}))
		defer srv.Close()
		r := runToWindowEnd(t, srv.URL+"/")
		checkWindow(t, r, served.Load())
		if r.Outcomes.OK != served.Load() {
			t.Errorf("%d answered, the server served %d", r.Outcomes.OK, served.Load())
		}
	})
	t.Run("refusing port", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there now: every dial is refused
		r := runToWindowEnd(t, "http://"+addr+"/")
		checkWindow(t, r, r.Outcomes.ConnectRefused)
		if r.Outcomes.ConnectRefused == 0 || r.Outcomes.ConnectRefused+r.Outcomes.QueueTimeout != r.Attempts {
			t.Errorf("outcomes %+v: want refused dials and unsent sends only", r.Outcomes)
		}
	})
	// A rate the machine keeps: nothing unsent at the window's end, no limit.
	t.Run("kept rate", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }))
		defer srv.Close()
		r, err := Run(context.Background(), Config{URL: srv.URL + "/", Visitors: owVisits, KeepAlive: true, Rate: 20, Duration: owWindow, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if r.Attempts != 6 || r.Outcomes.OK != 6 || r.Limit != "" {
			t.Errorf("%d attempts, %d ok, limit %q: want 6 answered, no limit", r.Attempts, r.Outcomes.OK, r.Limit)
		}
	})
}

// The same against real Apache (bench/testsrv), whose access log counts
// the requests it served: what the client sent.
func TestOpenLoopWindowApache(t *testing.T) {
	s := testsrv.StartApache(t, testsrv.ApacheOptions{Extra: "CustomLog {{.Dir}}/access.log \"%U\"\n"})
	served := func() int64 {
		b, _ := os.ReadFile(filepath.Join(s.Dir, "access.log"))
		return int64(strings.Count(string(b), testsrv.Small+"\n"))
	}
	r := runToWindowEnd(t, s.URL(testsrv.Small))
	// Apache logs a request once it has answered it: wait for the count.
	sent := r.Attempts - r.Outcomes.QueueTimeout
	if err := testenv.Poll(time.Minute, func() bool { return served() >= sent }); err != nil {
		t.Fatalf("Apache served %d, the client sent %d", served(), sent)
	}
	checkWindow(t, r, served())
	if r.Outcomes.OK != sent {
		t.Errorf("%d answered of %d sent: %+v", r.Outcomes.OK, sent, r.Outcomes)
	}
}
