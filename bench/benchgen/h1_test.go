package benchgen

import (
	"context"
	"io"
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
// netpoller, whole, on every keep-alive request.
func TestRequestLargerThanSocketBufferIsSentWhole(t *testing.T) {
	const pad = 600 << 10
	var got atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.Header.Get("X-Pad")) == pad {
			got.Add(1)
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	r, err := Run(context.Background(), Config{URL: srv.URL + "/", Visitors: 2, KeepAlive: true, Requests: 20,
		Header: []string{"X-Pad: " + strings.Repeat("p", pad)}, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if r.Attempts != 20 || r.Outcomes.OK != 20 || got.Load() != 20 {
		t.Fatalf("attempts %d ok %d, server saw %d whole requests; outcomes %+v errors %+v", r.Attempts, r.Outcomes.OK, got.Load(), r.Outcomes, r.Errors)
	}
	if r.Connections != 2 {
		t.Errorf("connections = %d, want 2 (keep-alive)", r.Connections)
	}
	if r.Bytes.WireOut < 20*pad {
		t.Errorf("wire out %d bytes, want at least %d", r.Bytes.WireOut, 20*pad)
	}
}
