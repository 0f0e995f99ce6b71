package benchgen

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/result"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2Conn is one server connection: the reader hands WINDOW_UPDATEs and PING
// ACKs to the handlers; writes are serialized.
type h2Conn struct {
	c       net.Conn
	fr      *http2.Framer
	wmu     sync.Mutex
	enc     *hpack.Encoder
	encBuf  bytes.Buffer
	windows chan uint32 // stream ids of WINDOW_UPDATEs
	pings   chan [8]byte
	done    chan struct{} // closed when the connection's reader ends
}

// startH2FaultServer is a raw HTTP/2 server (x/net's framer) whose :path
// chooses the fault, so every frame and every close is under the test's
// control; over TLS with ALPN alpn (default h2; "" for none).
func startH2FaultServer(t *testing.T, useTLS bool, alpn ...string) (*faultServer, *x509.CertPool) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var pool *x509.CertPool
	if useTLS {
		var cert []tls.Certificate
		cert, pool = testCert()
		switch {
		case alpn == nil:
			alpn = []string{"h2"}
		case len(alpn) == 1 && alpn[0] == "":
			alpn = nil // a server that knows no ALPN
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: cert, NextProtos: alpn})
	}
	s := serveConns(t, ln, func(_ *faultServer, c net.Conn) { serveH2(c) })
	if useTLS {
		s.scheme = "https"
	}
	return s, pool
}

func serveH2(c net.Conn) {
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(c, preface); err != nil || string(preface) != http2.ClientPreface {
		return
	}
	hc := &h2Conn{c: c, fr: http2.NewFramer(c, c), windows: make(chan uint32, 64), pings: make(chan [8]byte, 4), done: make(chan struct{})}
	hc.enc = hpack.NewEncoder(&hc.encBuf)
	hc.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	hc.locked(func() { hc.fr.WriteSettings() })
	var handlers sync.WaitGroup
	defer handlers.Wait()
	defer close(hc.done)
	for {
		f, err := hc.fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				hc.locked(func() { hc.fr.WriteSettingsAck() })
			}
		case *http2.WindowUpdateFrame:
			if f.StreamID != 0 {
				select {
				case hc.windows <- f.StreamID:
				default:
				}
			}
		case *http2.PingFrame:
			if f.IsAck() {
				select {
				case hc.pings <- f.Data:
				default:
				}
			}
		case *http2.MetaHeadersFrame:
			path := f.PseudoValue("path")
			sid := f.StreamID
			handlers.Go(func() { hc.answer(path, sid) })
		}
	}
}

func (hc *h2Conn) locked(f func()) {
	hc.wmu.Lock()
	defer hc.wmu.Unlock()
	f()
}

// shut ends the server's side of the connection (FIN, or TLS's
// close_notify) and leaves the reader reading: closing with the client's
// frames unread would send a reset instead, which can destroy what was
// sent before it.
func (hc *h2Conn) shut() {
	if cw, ok := hc.c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
}

// block encodes response fields with the connection's (indexing) encoder.
func (hc *h2Conn) block(kv ...string) []byte {
	hc.encBuf.Reset()
	for i := 0; i < len(kv); i += 2 {
		hc.enc.WriteField(hpack.HeaderField{Name: kv[i], Value: kv[i+1]})
	}
	return bytes.Clone(hc.encBuf.Bytes())
}

func (hc *h2Conn) headers(sid uint32, end bool, kv ...string) {
	hc.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: sid, BlockFragment: hc.block(kv...), EndHeaders: true, EndStream: end})
}

func (hc *h2Conn) answer(path string, sid uint32) {
	hc.wmu.Lock()
	defer hc.wmu.Unlock()
	body := []byte(body1k)
	ok := func(status string, b []byte) {
		hc.headers(sid, len(b) == 0, ":status", status, "content-length", itoa(len(b)), "content-type", "text/plain")
		if len(b) > 0 {
			hc.fr.WriteData(sid, true, b)
		}
	}
	switch path {
	case "/ok":
		ok("200", body)
	case "/padded-trailers":
		// Padding, two DATA frames, and trailers end the stream.
		hc.headers(sid, false, ":status", "200", "content-length", "1024")
		hc.fr.WriteDataPadded(sid, false, body[:512], make([]byte, 10))
		hc.fr.WriteData(sid, false, body[512:])
		hc.headers(sid, true, "x-trailer", "yes")
	case "/interim":
		hc.headers(sid, false, ":status", "103", "link", "</style.css>; rel=preload")
		ok("200", body)
	case "/no-length":
		hc.headers(sid, false, ":status", "200")
		hc.fr.WriteData(sid, true, body)
	case "/204":
		hc.headers(sid, true, ":status", "204")
	case "/301":
		ok("301", nil)
	case "/404":
		ok("404", []byte("no"))
	case "/503":
		ok("503", []byte("busy"))
	case "/600":
		ok("600", nil)
	case "/short":
		hc.headers(sid, false, ":status", "200", "content-length", "1024")
		hc.fr.WriteData(sid, true, body[:500])
	case "/long":
		hc.headers(sid, false, ":status", "200", "content-length", "100")
		hc.fr.WriteData(sid, true, body)
	case "/cut":
		hc.headers(sid, false, ":status", "200", "content-length", "1024")
		hc.fr.WriteData(sid, false, body[:500])
		hc.shut()
	case "/rst":
		hc.fr.WriteRSTStream(sid, http2.ErrCodeInternal)
	case "/goaway-unprocessed":
		// The server says it will not process our stream, and goes.
		hc.fr.WriteGoAway(0, http2.ErrCodeNo, nil)
		hc.shut()
	case "/close":
		hc.shut()
	case "/garbage":
		io.WriteString(hc.c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	case "/push":
		hc.fr.WritePushPromise(http2.PushPromiseParam{StreamID: sid, PromiseID: 2, BlockFragment: hc.block(":method", "GET", ":path", "/x", ":scheme", "http", ":authority", "a"), EndHeaders: true})
	case "/big-frame":
		hc.headers(sid, false, ":status", "200")
		hc.fr.WriteRawFrame(http2.FrameData, http2.FlagDataEndStream, sid, make([]byte, 20000))
	case "/no-status":
		hc.headers(sid, true, "content-length", "0")
	case "/stall":
		// Never answer: the client's timeout ends it.
	case "/goaway-after":
		// GOAWAY that still covers this stream, before the answer's end:
		// the answer counts, and the next request takes a new connection.
		hc.headers(sid, false, ":status", "200", "content-length", "1024")
		hc.fr.WriteGoAway(sid, http2.ErrCodeNo, nil)
		hc.fr.WriteData(sid, true, body)
	case "/ok-ping":
		// The answer and a PING after its end, in one segment: the PING
		// is read with the answer and waits in the client's buffer.
		corked(hc.c, func() { ok("200", body); hc.fr.WritePing(false, [8]byte{9}) })
	case "/idle-close":
		// Answer, then end the connection once idle: the server's side is
		// shut down with the answer (corked), so the close is there before
		// the client can send again; the reader goes on reading until the
		// client goes (a close with the client's frames unread would be a
		// reset, which can destroy the answer in flight).
		corked(hc.c, func() { ok("200", body); hc.shut() })
	case "/ping":
		// The answer waits for the ACK of the server's PING, which the
		// client sends while it waits for the answer.
		ping := [8]byte{1, 2, 3, 4, 5, 6, 7, 8}
		hc.fr.WritePing(false, ping)
		hc.wmu.Unlock()
		var got [8]byte
		select {
		case got = <-hc.pings:
		case <-hc.done:
		}
		hc.wmu.Lock()
		if got != ping {
			hc.fr.WriteRSTStream(sid, http2.ErrCodeProtocol)
			return
		}
		ok("200", body)
	case "/big":
		// 17 MiB: past the client's 16 MiB stream window, so the rest
		// waits for the client's WINDOW_UPDATE on the stream.
		const window, total = h2StreamWindow, h2StreamWindow + 1<<20
		hc.headers(sid, false, ":status", "200", "content-length", itoa(total))
		chunk := make([]byte, h2MaxFrame)
		for sent := 0; sent < window; sent += len(chunk) {
			hc.fr.WriteData(sid, false, chunk)
		}
		hc.wmu.Unlock()
		for got := uint32(0); got != sid; {
			select {
			case got = <-hc.windows:
			case <-hc.done:
				hc.wmu.Lock()
				return
			}
		}
		hc.wmu.Lock()
		for sent := window; sent < total; sent += len(chunk) {
			hc.fr.WriteData(sid, sent+len(chunk) == total, chunk)
		}
	default:
		ok("404", nil)
	}
}

// Each HTTP/2 fault lands in its own bucket, and only there, over h2c and
// over TLS: what the hand-written client makes of every frame the server
// may send.
func TestH2FaultsHaveTheirBuckets(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	cases := []struct {
		path string
		want result.Outcome
		body int64 // body bytes per attempt, for answers
	}{
		{"/ok", result.OK, 1024},
		{"/padded-trailers", result.OK, 1024},
		{"/interim", result.OK, 1024},
		{"/no-length", result.OK, 1024},
		{"/204", result.OK, 0},
		{"/ping", result.OK, 1024},
		{"/goaway-after", result.OK, 1024},
		{"/301", result.HTTP3xx, 0},
		{"/404", result.HTTP4xx, 2},
		{"/503", result.HTTP5xx, 4},
		{"/600", result.HTTP1xx, 0},
		{"/short", result.ShortBody, 500},
		{"/cut", result.ShortBody, 500},
		{"/rst", result.Reset, 0},
		{"/goaway-unprocessed", result.Reset, 0},
		{"/close", result.Closed, 0},
		{"/long", result.ProtocolError, 1024},
		{"/garbage", result.ProtocolError, 0},
		{"/push", result.ProtocolError, 0},
		{"/big-frame", result.ProtocolError, 0},
		{"/no-status", result.ProtocolError, 0},
		{"/stall", result.ReadTimeout, 0},
	}
	for _, useTLS := range []bool{false, true} {
		s, pool := startH2FaultServer(t, useTLS)
		proto := map[bool]string{false: "h2c", true: "h2"}[useTLS]
		for _, c := range cases {
			t.Run(proto+c.path, func(t *testing.T) {
				// Short timeouts only where the fault is a timeout: a loaded
				// machine must not turn an answer into a timeout.
				timeout := 5 * time.Second
				if c.want == result.ReadTimeout {
					timeout = 300 * time.Millisecond
				}
				r, err := Run(context.Background(), Config{URL: s.url(c.path), Proto: proto, Visitors: 2, Requests: 6,
					KeepAlive: true, Timeout: timeout, RootCAs: pool})
				if err != nil {
					t.Fatal(err)
				}
				checkInvariant(t, r)
				a := r.Outcomes.Array()
				if r.Attempts != 6 || a[c.want] != 6 {
					t.Fatalf("want 6 attempts all %s, got %d: %+v errors=%v", c.want, r.Attempts, r.Outcomes, r.Errors)
				}
				if r.Bytes.Body != 6*c.body {
					t.Fatalf("body bytes %d, want 6 × %d", r.Bytes.Body, c.body)
				}
				// A kept connection serves every answer that leaves it
				// clean (one or two visitors may have taken the six);
				// a failure or a GOAWAY takes a new one.
				if c.want > result.HTTP5xx || c.path == "/goaway-after" {
					if r.Connections != 6 {
						t.Fatalf("%d connections, want 6: %+v", r.Connections, r.Outcomes)
					}
				} else if r.Connections > 2 || r.Connections+r.KeepAliveReqs != 6 {
					t.Fatalf("%d connections for %d kept-alive requests, want at most 2 and 6 in all", r.Connections, r.KeepAliveReqs)
				}
			})
		}
	}
}

// A GOAWAY before the answer ends, or a close that comes with the answer:
// the next request goes out on a new connection, counted as a keep-alive
// close, and every attempt is answered. A 17 MiB answer needs the client's
// WINDOW_UPDATE to finish.
func TestH2KeptConnectionsAndFlowControl(t *testing.T) {
	for _, useTLS := range []bool{false, true} {
		s, pool := startH2FaultServer(t, useTLS)
		proto := map[bool]string{false: "h2c", true: "h2"}[useTLS]
		for _, c := range []struct {
			path           string
			n, conns, kaCl int64
		}{
			{"/goaway-after", 5, 5, 4},
			{"/idle-close", 5, 5, 4},
			{"/ok", 5, 1, 0},
			{"/big", 2, 1, 0},
		} {
			t.Run(proto+c.path, func(t *testing.T) {
				r, err := Run(context.Background(), Config{URL: s.url(c.path), Proto: proto, Visitors: 1, Requests: c.n,
					KeepAlive: true, Timeout: 20 * time.Second, RootCAs: pool})
				if err != nil {
					t.Fatal(err)
				}
				checkInvariant(t, r)
				if r.Outcomes.OK != c.n || r.Connections != c.conns || r.KeepAliveCloses != c.kaCl {
					t.Fatalf("ok=%d conns=%d kaCloses=%d, want %d %d %d; outcomes %+v errors %+v",
						r.Outcomes.OK, r.Connections, r.KeepAliveCloses, c.n, c.conns, c.kaCl, r.Outcomes, r.Errors)
				}
			})
		}
	}
}

// A TLS server that does not agree to h2: one that refuses it in ALPN
// fails the handshake (a connect error, as any TLS failure); one that knows
// no ALPN answers the handshake, and then h2 would be spoken to a server
// that did not say it speaks it (a protocol error, as an answer in another
// HTTP version is).
func TestH2WithoutALPN(t *testing.T) {
	for _, c := range []struct {
		alpn string
		want result.Outcome
		msg  string
	}{
		{"http/1.1", result.ConnectError, "no application protocol"},
		{"", result.ProtocolError, "ALPN"},
	} {
		s, pool := startH2FaultServer(t, true, c.alpn)
		r, err := Run(context.Background(), Config{URL: s.url("/ok"), Proto: "h2", Visitors: 1, Requests: 3,
			KeepAlive: true, Timeout: 5 * time.Second, RootCAs: pool})
		if err != nil {
			t.Fatal(err)
		}
		checkInvariant(t, r)
		if r.Outcomes.Array()[c.want] != 3 || len(r.Errors) == 0 || !strings.Contains(r.Errors[0].Message, c.msg) {
			t.Fatalf("ALPN %q: %+v %v", c.alpn, r.Outcomes, r.Errors)
		}
	}
}

// The request's header block decodes to the request, and is the same for
// every request (nothing is added to the server's HPACK table).
func TestH2RequestBlock(t *testing.T) {
	tg, err := newTarget(&Config{URL: "https://example.com:8443/a/b?c=d", Proto: "h2", Method: "HEAD",
		Header: []string{"Accept-Encoding: gzip", "X-Long: " + strings.Repeat("v", 200), "Connection: close"}})
	if err != nil {
		t.Fatal(err)
	}
	block := h2RequestBlock(tg)
	var got []string
	d := hpack.NewDecoder(4096, func(f hpack.HeaderField) { got = append(got, f.Name+": "+f.Value) })
	for range 2 { // twice through one decoder: no table state
		got = got[:0]
		if _, err := d.Write(block); err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{":method: HEAD", ":scheme: https", ":authority: example.com:8443", ":path: /a/b?c=d",
		"accept-encoding: gzip", "user-agent: wptest-bench", "x-long: " + strings.Repeat("v", 200)}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A block past one frame is split into CONTINUATIONs.
	big := make([]byte, 2*h2MaxFrame+5)
	fr := http2.NewFramer(nil, bytes.NewReader(appendHeaders(nil, 7, big)))
	var sizes []int
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			break
		}
		sizes = append(sizes, int(f.Header().Length))
	}
	if len(sizes) != 3 || sizes[0] != h2MaxFrame || sizes[2] != 5 {
		t.Fatalf("frames %v", sizes)
	}
}
