package srvstat

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/testsrv"
	"github.com/wptest/wptest/internal/testenv"
)

const statusText = "Total Accesses: 10\nBusyWorkers: 3\nIdleWorkers: 7\nScoreboard: __W_K_R___....\n"

// The status client against Go's HTTP server: each way an answer can be
// framed (length, chunks, close), an error status, and a kept connection.
func TestStatusClientFraming(t *testing.T) {
	var conns atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/length", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(statusText)))
		w.Write([]byte(statusText))
	})
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, r *http.Request) {
		for _, l := range strings.SplitAfter(statusText, "\n") {
			w.Write([]byte(l))
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/close", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		w.Write([]byte(statusText))
	})
	mux.HandleFunc("/missing", http.NotFound)
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	ctx := context.Background()
	for _, path := range []string{"/length", "/chunked", "/close"} {
		c := newStatusClient(srv.URL + path + "?auto")
		for i := range 3 {
			b, err := c.get(ctx)
			if err != nil || string(b) != statusText {
				t.Fatalf("%s #%d: %q, %v", path, i, b, err)
			}
		}
		c.close()
	}
	// 1 connection each for /length and /chunked (kept), 3 for /close.
	if n := conns.Load(); n != 5 {
		t.Fatalf("%d connections for 9 requests, want 5 (keep-alive)", n)
	}
	c := newStatusClient(srv.URL + "/missing")
	if _, err := c.get(ctx); err == nil || !strings.Contains(err.Error(), "status 404") {
		t.Fatalf("404: %v", err)
	}
	// The server is gone: refused at once, not a wait for a timeout.
	srv.Close()
	if _, err := newStatusClient(srv.URL + "/length").get(ctx); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("server gone: %v, want connection refused", err)
	}
}

// Against Apache's mod_status: a kept connection that Apache closed while
// idle (KeepAliveTimeout 1 s) is replaced without an error in the sample.
func TestStatusAgainstApacheAcrossIdleClose(t *testing.T) {
	s := testsrv.StartApache(t, testsrv.ApacheOptions{MaxRequestWorkers: 50, KeepAliveTimeout: 1})
	sm := New(Config{StatusURL: s.URL("/server-status?auto"), NoPSS: true})
	defer sm.Close()
	ctx := context.Background()
	var kept net.Conn
	for i := range 3 {
		smp, err := sm.Sample(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if w := smp.Apache; w == nil || w.Error != "" || w.Slots < 50 || w.Busy < 1 {
			t.Fatalf("sample %d: apache %+v", i, w)
		}
		if i > 0 && sm.status.conn == kept {
			t.Fatalf("sample %d went over the connection Apache had closed", i)
		}
		kept = sm.status.conn
		testenv.WaitFor(t, time.Minute, "Apache to close the idle status connection", func() bool { return peerClosed(t, kept) })
	}
}

// peerClosed reports whether the other end has closed c (a peek sees EOF),
// without taking anything from it.
func peerClosed(t *testing.T, c net.Conn) bool {
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	rc.Control(func(fd uintptr) {
		var b [1]byte
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = n == 0 && err == nil
	})
	return closed
}
