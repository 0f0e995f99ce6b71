package benchgen

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/quic-go/quic-go/http3"
)

// bconn is one of a browsing visitor's connections: an h1 keep-alive
// connection (one request at a time, driven here: the request written,
// then its answer read with net/http's parser, on the visitor's goroutine),
// or the visitor's one h2 connection (net/http's single-connection
// ClientConn) or h3 connection (quic-go's http3 ClientConn), requests
// multiplexed on it. Every socket counts its bytes into the visitor's wire.
// Not net/http's h1 client: its read loop drops a kept connection when its
// write loop has not confirmed the last request within 50 ms, which on a
// busy load generator made keep-alive closes the server never made.
type bconn struct {
	b  *browser
	mu sync.Mutex // held while (re)connecting, so concurrent h2/h3 requests share one dial
	// h1
	conn      net.Conn
	br        *bufio.Reader
	h1closed  bool        // the last answer said Connection: close (or the connection failed)
	stop      func() bool // ends the request's context watch
	firstByte time.Time
	// h2, h2c
	cc *http.ClientConn
	// h3
	h3 h3Conn
}

// usable reports whether the connection is up and can take a request.
func (l *bconn) usable() bool {
	switch {
	case l.conn != nil:
		return !l.h1closed && l.br.Buffered() == 0 // bytes nobody asked for: unclean
	case l.cc != nil:
		return l.cc.Err() == nil
	case l.h3.qc != nil:
		return l.h3.qc.Context().Err() == nil
	}
	return false
}

func (l *bconn) connected() bool { return l.conn != nil || l.cc != nil || l.h3.qc != nil }

// ensure connects l if it is not, and reports whether the request rides on a
// connection made before it. A kept connection the server has closed since
// is replaced, and counted as a keep-alive close.
func (l *bconn) ensure(ctx context.Context, a *attempt) (reused bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.connected() && l.usable() {
		return true, nil
	}
	if l.connected() {
		l.closeLocked()
		l.b.note(func(c *viewCounts) { c.kaCloses++ })
	}
	t0 := time.Now()
	switch l.b.bs.t.proto {
	case "h3":
		err = l.dialH3(ctx)
	case "h1":
		if l.conn, err = l.b.dialH1(ctx); err == nil {
			l.br = bufio.NewReaderSize(l.conn, 32<<10)
			l.h1closed = false
		}
	default:
		l.cc, err = l.b.tr.NewClientConn(ctx, l.b.bs.t.url.Scheme, l.b.bs.t.addr)
	}
	if err != nil {
		l.closeLocked()
		return false, err
	}
	a.newConn, a.connect = true, time.Since(t0)
	l.b.note(func(c *viewCounts) { c.connect = append(c.connect, a.connect) })
	return false, nil
}

// drop closes the connection (after a failed request on it).
func (l *bconn) drop() {
	l.mu.Lock()
	l.closeLocked()
	l.mu.Unlock()
}

func (l *bconn) closeLocked() {
	if l.conn != nil {
		l.conn.Close()
		l.conn, l.br = nil, nil
	}
	if l.cc != nil {
		l.cc.Close()
		l.cc = nil
	}
	l.h3.close()
}

func (l *bconn) roundTrip(req *http.Request) (*http.Response, error) {
	switch {
	case l.h3.cc != nil:
		return l.h3.cc.RoundTrip(req)
	case l.cc != nil:
		return l.cc.RoundTrip(req)
	case l.conn != nil:
		return l.h1RoundTrip(req)
	}
	return nil, errors.New("not connected")
}

// h1RoundTrip writes req and reads its answer's head; the caller reads the
// body, then calls h1Done. The page view's deadline is the connection's;
// its cancellation (the run's) fails the read at once.
func (l *bconn) h1RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if d, ok := ctx.Deadline(); ok {
		l.conn.SetDeadline(d)
	}
	conn := l.conn
	l.stop = context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	if err := req.Write(conn); err != nil {
		l.h1Done(nil)
		return nil, err
	}
	if _, err := l.br.Peek(1); err != nil {
		l.h1Done(nil)
		if errors.Is(err, io.EOF) {
			return nil, errNoResponse
		}
		return nil, err
	}
	l.firstByte = time.Now()
	for {
		resp, err := http.ReadResponse(l.br, req)
		if err != nil {
			l.h1Done(nil)
			return nil, headErr(err)
		}
		// Interim answers (103 Early Hints): the final one follows.
		if resp.StatusCode < 100 || resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			return resp, nil
		}
	}
}

// h1Done ends a request on an h1 connection: its answer (nil: it failed)
// says whether the connection is kept.
func (l *bconn) h1Done(resp *http.Response) {
	if l.stop != nil {
		l.stop()
		l.stop = nil
	}
	if resp == nil || resp.Close {
		l.h1closed = true
	}
}

func (l *bconn) dialH3(ctx context.Context) error {
	t := l.b.bs.t
	ra, err := net.ResolveUDPAddr("udp", t.addr)
	if err != nil {
		return err
	}
	if err := l.h3.dial(ctx, ra, t.tls, &l.b.w, &http3.Transport{DisableCompression: true}); err != nil {
		return err
	}
	qc := l.h3.qc
	l.b.note(func(c *viewCounts) { c.negotiated[qc.ConnectionState().TLS.NegotiatedProtocol]++ })
	return nil
}

// dialTCP connects to the target, counting bytes into the visitor's wire.
func (b *browser) dialTCP(ctx context.Context) (*countConn, error) {
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", b.bs.t.addr)
	if err != nil {
		return nil, err
	}
	return &countConn{Conn: raw, w: &b.w}, nil
}

// dialTLS is dialTCP and a TLS handshake offering ALPN want only.
func (b *browser) dialTLS(ctx context.Context, want string) (net.Conn, error) {
	c, err := b.dialTCP(ctx)
	if err != nil {
		return nil, err
	}
	cfg := b.bs.t.tls.Clone()
	cfg.NextProtos = []string{want}
	tc := tls.Client(c, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		c.Close()
		return nil, err
	}
	got := tc.ConnectionState().NegotiatedProtocol
	if want == "h2" && got != "h2" {
		tc.Close()
		return nil, fmt.Errorf("server chose ALPN %q, not h2", got)
	}
	if got == "" {
		got = "http/1.1" // no ALPN: HTTP/1.1 by default
	}
	b.note(func(vc *viewCounts) { vc.negotiated[got]++ })
	return tc, nil
}

// dialH1 is one new h1 connection, over TLS for https.
func (b *browser) dialH1(ctx context.Context) (net.Conn, error) {
	if b.bs.t.tls != nil {
		return b.dialTLS(ctx, "http/1.1")
	}
	c, err := b.dialTCP(ctx)
	if err == nil {
		b.note(func(vc *viewCounts) { vc.negotiated["http/1.1"]++ })
	}
	return c, err
}

// newBrowseTransport makes the visitor's h2 and h2c connections (only
// ClientConns are made from it, never Transport.RoundTrip, so nothing is
// pooled or retried behind the visitor's back).
func newBrowseTransport(b *browser) *http.Transport {
	tr := &http.Transport{DisableCompression: true, MaxResponseHeaderBytes: 1 << 20}
	var p http.Protocols
	if b.bs.t.proto == "h2c" {
		p.SetUnencryptedHTTP2(true)
	} else {
		p.SetHTTP2(true)
	}
	tr.Protocols = &p
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := b.dialTCP(ctx)
		if err == nil {
			b.note(func(vc *viewCounts) { vc.negotiated["h2c"]++ })
		}
		return c, err
	}
	tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return b.dialTLS(ctx, "h2")
	}
	return tr
}

// lanePool is a visitor's h1 connections: up to Conns, each carrying one
// request at a time. A request takes a free connection that is up if there
// is one, else a free slot that connects (as a browser opens a new
// connection only when every open one is busy), else waits.
type lanePool struct {
	mu   sync.Mutex
	idle []*bconn
	free chan struct{} // one token per idle lane
}

func newLanePool(b *browser, n int) *lanePool {
	p := &lanePool{free: make(chan struct{}, n)}
	for range n {
		p.idle = append(p.idle, &bconn{b: b})
		p.free <- struct{}{}
	}
	return p
}

func (p *lanePool) get(ctx context.Context) (*bconn, error) {
	select {
	case <-p.free:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	pick := len(p.idle) - 1
	for i, l := range p.idle {
		if l.connected() && l.usable() {
			pick = i
			break
		}
	}
	l := p.idle[pick]
	p.idle = append(p.idle[:pick], p.idle[pick+1:]...)
	return l, nil
}

func (p *lanePool) put(l *bconn) {
	p.mu.Lock()
	p.idle = append(p.idle, l)
	p.mu.Unlock()
	p.free <- struct{}{}
}

// closeAll closes every connection; only when no request is in flight.
func (p *lanePool) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.idle {
		l.drop()
	}
}
