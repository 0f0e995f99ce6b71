package benchgen

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestContainsFold(t *testing.T) {
	for _, c := range []struct {
		b, word string
		want    bool
	}{
		{" Keep-Alive\r\n", "keep-alive", true},
		{" close\r\n", "close", true},
		{" CLOSE\r\n", "close", true},
		{" clos\r\n", "close", false},
		{"", "close", false},
		{"Transfer-Encoding: gzip, Chunked\r\n", "chunked", true},
		{"Transfer-Encoding: gzip\r\n", "chunked", false},
	} {
		if got := containsFold([]byte(c.b), c.word); got != c.want {
			t.Errorf("containsFold(%q, %q) = %v, want %v", c.b, c.word, got, c.want)
		}
	}
}

// A request larger than the socket's buffers cannot go out in the one raw
// write the plain-TCP path makes: the rest must follow through the
// netpoller, whole, on every keep-alive request. The server reads nothing
// for a moment, so the buffers fill.
func TestRequestLargerThanSocketBufferIsSentWhole(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	const pad = 8 << 20
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var whole atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReaderSize(c, 64<<10)
				for {
					time.Sleep(50 * time.Millisecond)
					n := 0
					for {
						line, err := br.ReadSlice('\n')
						n += len(line)
						if err == bufio.ErrBufferFull {
							continue
						}
						if err != nil {
							return
						}
						if len(line) <= 2 {
							break
						}
					}
					if n > pad {
						whole.Add(1)
					}
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				}
			}()
		}
	}()
	r, err := Run(context.Background(), Config{URL: "http://" + ln.Addr().String() + "/", Visitors: 2, KeepAlive: true, Requests: 6,
		Header: []string{"X-Pad: " + strings.Repeat("p", pad)}, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Attempts != 6 || r.Outcomes.OK != 6 || whole.Load() != 6 {
		t.Fatalf("attempts %d ok %d, server saw %d whole requests; outcomes %+v errors %+v", r.Attempts, r.Outcomes.OK, whole.Load(), r.Outcomes, r.Errors)
	}
	if r.Connections != 2 {
		t.Errorf("connections = %d, want 2 (keep-alive)", r.Connections)
	}
	if r.Bytes.WireOut < 6*pad {
		t.Errorf("wire out %d bytes, want at least %d", r.Bytes.WireOut, 6*pad)
	}
}

// The plain-TCP path sends the request inside the read and then waits for
// readability without trying the socket: an answer whose readiness were
// lost would hang until the timeout. Many short exchanges on many
// connections must all end well before it.
func TestNoLostWakeups(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, body1k)
	}))
	defer srv.Close()
	r, err := Run(context.Background(), Config{URL: srv.URL + "/", Visitors: 64, KeepAlive: true, Requests: 20000,
		Timeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, r)
	if r.Outcomes.OK != 20000 || r.Connections != 64 {
		t.Fatalf("ok %d of %d, connections %d; outcomes %+v errors %+v", r.Outcomes.OK, r.Attempts, r.Connections, r.Outcomes, r.Errors)
	}
}

// The request as it goes on the wire: HTTP/1.0 is ab's (Connection:
// Keep-Alive only when kept alive, since 1.0 closes by default).
func TestRequestBytes(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{URL: "http://h:8/a?b=1", KeepAlive: true}, "GET /a?b=1 HTTP/1.1\r\nHost: h:8\r\nUser-Agent: wptest-bench\r\n\r\n"},
		{Config{URL: "http://h:8/a"}, "GET /a HTTP/1.1\r\nHost: h:8\r\nUser-Agent: wptest-bench\r\nConnection: close\r\n\r\n"},
		{Config{URL: "http://h/a", KeepAlive: true, HTTP10: true}, "GET /a HTTP/1.0\r\nHost: h\r\nUser-Agent: wptest-bench\r\nConnection: Keep-Alive\r\n\r\n"},
		{Config{URL: "http://h/a", HTTP10: true, Method: "HEAD", Header: []string{"Accept: */*"}}, "HEAD /a HTTP/1.0\r\nHost: h\r\nUser-Agent: wptest-bench\r\nAccept: */*\r\n\r\n"},
	} {
		tg, err := newTarget(&c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if string(tg.h1req) != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.cfg, tg.h1req, c.want)
		}
	}
	if _, err := newTarget(&Config{URL: "https://h/a", Proto: "h2", HTTP10: true}); err == nil || !strings.Contains(err.Error(), "HTTP/1.0") {
		t.Fatalf("HTTP/1.0 over h2: got %v", err)
	}
}

// An HTTP/1.0 request is answered on a kept connection only when the
// answer says keep-alive; the fault server's answers do not, so every
// answer ends its connection (a keep-alive close, not a failure), even
// though the server would have read on.
func TestHTTP10KeepsOnlyWhatTheServerKeeps(t *testing.T) {
	s := startFaultServer(t)
	r, err := Run(context.Background(), Config{URL: s.url("/ok"), Visitors: 1, Requests: 3, KeepAlive: true, HTTP10: true, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, r)
	if r.Outcomes.OK != 3 || r.Connections != 3 || r.KeepAliveCloses != 3 {
		t.Fatalf("ok %d, %d connections, %d keep-alive closes: %+v", r.Outcomes.OK, r.Connections, r.KeepAliveCloses, r.Errors)
	}
}
