package benchgen

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// bconn is one of a browsing visitor's connections: an h1 keep-alive
// connection (one request at a time), or the visitor's one h2 or h3
// connection (requests multiplexed on it). Connections are net/http's
// single-connection ClientConn (h1, h2, h2c) and quic-go's http3
// ClientConn, over sockets that count every byte into the visitor's wire:
// unlike benchgen's own clients (one request in flight per connection),
// these multiplex, and a browse visitor sends a few dozen requests a page,
// not thousands a second.
type bconn struct {
	b  *browser
	mu sync.Mutex // held while (re)connecting, so concurrent h2/h3 requests share one dial
	cc *http.ClientConn
	// h3
	udp *countPacketConn
	qtr *quic.Transport
	qc  *quic.Conn
	h3  *http3.ClientConn
	// idle is signalled when the h1 connection may have become free again
	// (its state hook).
	idle chan struct{}
}

// settle waits until an h1 connection whose answer was read whole is free
// for the next request, or broken. Its read loop hands it back a moment
// after the body's end; a request context cancelled in that moment (the
// page view's, at its end) would close a healthy connection, and the next
// page view would count a keep-alive close that the server never made.
func (l *bconn) settle() {
	for l.cc != nil && l.cc.Available() == 0 && l.cc.Err() == nil {
		<-l.idle
	}
}

// usable reports whether the connection is up and can take a request.
func (l *bconn) usable() bool {
	switch {
	case l.cc != nil:
		return l.cc.Err() == nil
	case l.qc != nil:
		return l.qc.Context().Err() == nil
	}
	return false
}

func (l *bconn) connected() bool { return l.cc != nil || l.qc != nil }

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
	if l.b.bs.t.proto == "h3" {
		err = l.dialH3(ctx)
	} else {
		l.cc, err = l.b.tr.NewClientConn(ctx, l.b.bs.t.url.Scheme, l.b.bs.t.addr)
		if err == nil && l.b.pool != nil {
			l.idle = make(chan struct{}, 1)
			idle := l.idle
			l.cc.SetStateHook(func(*http.ClientConn) {
				select {
				case idle <- struct{}{}:
				default:
				}
			})
		}
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
	if l.cc != nil {
		l.cc.Close()
		l.cc = nil
	}
	if l.qc != nil {
		l.qc.CloseWithError(0, "")
		l.qc, l.h3 = nil, nil
	}
	if l.qtr != nil {
		l.qtr.Close()
		l.qtr = nil
	}
	if l.udp != nil {
		l.udp.Close()
		l.udp = nil
	}
}

func (l *bconn) roundTrip(req *http.Request) (*http.Response, error) {
	if l.h3 != nil {
		return l.h3.RoundTrip(req)
	}
	if l.cc == nil {
		return nil, errors.New("not connected")
	}
	return l.cc.RoundTrip(req)
}

func (l *bconn) dialH3(ctx context.Context) error {
	t := l.b.bs.t
	ra, err := net.ResolveUDPAddr("udp", t.addr)
	if err != nil {
		return err
	}
	udp, err := net.ListenUDP("udp", nil)
	if err != nil {
		return err
	}
	l.udp = &countPacketConn{PacketConn: udp, w: &l.b.w}
	l.qtr = &quic.Transport{Conn: l.udp}
	cfg := t.tls.Clone()
	cfg.NextProtos = []string{http3.NextProtoH3}
	qc, err := l.qtr.Dial(ctx, ra, cfg, &quic.Config{MaxIdleTimeout: 60 * time.Second})
	if err != nil {
		return err
	}
	l.qc = qc
	l.h3 = (&http3.Transport{DisableCompression: true}).NewClientConn(qc)
	l.b.note(func(c *viewCounts) { c.negotiated[qc.ConnectionState().TLS.NegotiatedProtocol]++ })
	return nil
}

// newBrowseTransport is the visitor's dialer for h1, h2 and h2c: each new
// connection counts its bytes into the visitor's wire, and its protocol.
// Only ClientConns are made from it (never Transport.RoundTrip), so nothing
// is pooled or retried behind the visitor's back.
func newBrowseTransport(b *browser) *http.Transport {
	t := b.bs.t
	tr := &http.Transport{DisableCompression: true, MaxResponseHeaderBytes: 1 << 20}
	var p http.Protocols
	switch t.proto {
	case "h2":
		p.SetHTTP2(true)
	case "h2c":
		p.SetUnencryptedHTTP2(true)
	default:
		p.SetHTTP1(true)
	}
	tr.Protocols = &p
	dialTCP := func(ctx context.Context, network, addr string) (*countConn, error) {
		var d net.Dialer
		raw, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countConn{Conn: raw, w: &b.w}, nil
	}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialTCP(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		proto := "http/1.1"
		if t.proto == "h2c" {
			proto = "h2c"
		}
		b.note(func(vc *viewCounts) { vc.negotiated[proto]++ })
		return c, nil
	}
	tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialTCP(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cfg := t.tls.Clone()
		want := "http/1.1"
		if t.proto == "h2" {
			want = "h2"
		}
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
