package benchgen

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"time"
)

// h2Client is one visitor's HTTP/2 connection (TLS with ALPN "h2", or h2c
// with prior knowledge), made with Transport.NewClientConn: one connection,
// no pool, no retry on another connection. Bytes are counted on the TCP conn
// under TLS. One request at a time (no multiplexing), like an h1 visitor.
type h2Client struct {
	t        *target
	w        wire
	tr       *http.Transport
	cc       *http.ClientConn
	lastUsed time.Time
}

func newH2(t *target) *h2Client {
	c := &h2Client{t: t}
	p := new(http.Protocols)
	if t.proto == "h2c" {
		p.SetUnencryptedHTTP2(true)
	} else {
		p.SetHTTP2(true)
	}
	// A Transport of its own per visitor, without MaxConnsPerHost (Go 1.26.8
	// panics on ClientConn.Close when it is set; see loadgen-anchors.md §3).
	c.tr = &http.Transport{
		Protocols:          p,
		DisableCompression: true,
		TLSClientConfig:    t.tls.Clone(), // its own: the Transport edits NextProtos
		ForceAttemptHTTP2:  true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &countConn{Conn: conn, w: &c.w}, nil
		},
	}
	return c
}

func (c *h2Client) wire() (int64, int64) { return c.w.in.Load(), c.w.out.Load() }

func (c *h2Client) close() {
	if c.cc != nil {
		c.cc.Close()
		c.cc = nil
	}
}

func (c *h2Client) do(ctx context.Context, deadline time.Time, a *attempt) {
	if c.cc != nil && (c.cc.Err() != nil || c.cc.Available() == 0) {
		// GOAWAY or idle close by the server: reconnect before sending.
		c.close()
		a.kaCloseBefore = true
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	if c.cc == nil {
		t0 := time.Now()
		scheme := "https"
		if c.t.proto == "h2c" {
			scheme = "http"
		}
		cc, err := c.tr.NewClientConn(ctx, scheme, c.t.addr)
		if err != nil {
			a.fail(err, phaseDial)
			return
		}
		c.cc = cc
		a.newConn = true
		a.connect = time.Since(t0)
	} else {
		a.reused = true
	}
	c.lastUsed = tracedRoundTrip(ctx, c.cc, c.t, 2, a)
	if a.err != nil {
		c.close()
	}
}

// tracedRoundTrip sends the target's request on rt (h2 or h3), timing the
// first response byte, and returns when the attempt ended.
func tracedRoundTrip(ctx context.Context, rt roundTripper, t *target, proto int, a *attempt) time.Time {
	req, _ := http.NewRequestWithContext(ctx, t.method, t.url.String(), nil)
	req.Header = t.header.Clone()
	req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotFirstResponseByte: func() { a.firstByte = time.Now() },
	}))
	a.sent = time.Now()
	roundTrip(rt, req, proto, a)
	return a.end
}

type roundTripper interface {
	RoundTrip(*http.Request) (*http.Response, error)
}

// roundTrip sends req, reads the whole body and fills a; shared by h2 and h3.
// A response in another HTTP version than asked for is a protocol error.
func roundTrip(rt roundTripper, req *http.Request, major int, a *attempt) {
	resp, err := rt.RoundTrip(req)
	if err != nil {
		a.fail(err, phaseHead)
		return
	}
	if resp.ProtoMajor != major {
		resp.Body.Close()
		a.fail(&errProtocol{fmt.Sprintf("asked for HTTP/%d, got %s", major, resp.Proto)}, phaseHead)
		return
	}
	if a.firstByte.IsZero() {
		a.firstByte = time.Now()
	}
	a.gotHead = true
	a.status = resp.StatusCode
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	a.bodyBytes += n
	a.end = time.Now()
	if err != nil {
		a.fail(err, phaseBody)
		return
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		a.fail(errShort, phaseBody)
		return
	}
	a.finish()
}
