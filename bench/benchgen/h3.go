package benchgen

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// h3Client is one visitor's QUIC connection with HTTP/3 on it
// (quic-go/http3 ClientConn): one UDP socket, one connection, one request at a
// time. Bytes are counted as UDP datagram payloads.
type h3Client struct {
	t *target
	wired
	h3Conn
	htr      *http3.Transport
	raddr    *net.UDPAddr
	lastUsed time.Time
	// Made once per visitor, not per request: the request (a shallow copy
	// per attempt carries its context) and the trace of its first
	// response byte, in a context under the run's.
	req      *http.Request
	runCtx   context.Context
	traceCtx context.Context
	cur      *attempt // the attempt the trace reports to
}

func newH3(t *target) *h3Client {
	c := &h3Client{t: t, htr: &http3.Transport{DisableCompression: true}}
	c.req, _ = http.NewRequest(t.method, t.url.String(), nil)
	// Read only, by every visitor: RoundTrip must not change a request.
	c.req.Header = t.header
	return c
}

func (c *h3Client) close() { c.h3Conn.close() }

func (c *h3Client) dial(ctx context.Context, a *attempt) error {
	t0 := time.Now()
	if c.raddr == nil {
		ra, err := net.ResolveUDPAddr("udp", c.t.addr)
		if err != nil {
			return err
		}
		c.raddr = ra
	}
	if err := c.h3Conn.dial(ctx, c.raddr, c.t.tls, &c.w, c.htr); err != nil {
		return err
	}
	a.newConn = true
	a.connect = time.Since(t0)
	return nil
}

// h3Conn is an HTTP/3 connection with what it stands on, each its own: a
// UDP socket (counting datagram payloads into a wire), the QUIC transport
// on it, the QUIC connection and its http3 ClientConn. (h3 and browse.)
type h3Conn struct {
	udp net.PacketConn
	qtr *quic.Transport
	qc  *quic.Conn
	cc  *http3.ClientConn
}

// dial connects to raddr over a new UDP socket; on an error, what it made
// is closed.
func (q *h3Conn) dial(ctx context.Context, raddr *net.UDPAddr, tlsCfg *tls.Config, w *wire, htr *http3.Transport) error {
	udp, err := net.ListenUDP("udp", nil)
	if err != nil {
		return err
	}
	q.udp = &countPacketConn{PacketConn: udp, w: w}
	q.qtr = &quic.Transport{Conn: q.udp}
	cfg := tlsCfg.Clone()
	cfg.NextProtos = []string{http3.NextProtoH3}
	qc, err := q.qtr.Dial(ctx, raddr, cfg, &quic.Config{MaxIdleTimeout: 60 * time.Second})
	if err != nil {
		q.close()
		return err
	}
	q.qc = qc
	q.cc = htr.NewClientConn(qc)
	return nil
}

func (q *h3Conn) close() {
	if q.qc != nil {
		q.qc.CloseWithError(0, "")
		q.qc, q.cc = nil, nil
	}
	if q.qtr != nil {
		q.qtr.Close()
		q.qtr = nil
	}
	if q.udp != nil {
		q.udp.Close()
		q.udp = nil
	}
}

func (c *h3Client) do(ctx context.Context, deadline time.Time, a *attempt) {
	if c.qc != nil && c.qc.Context().Err() != nil {
		c.close()
		a.kaCloseBefore = true
	}
	if ctx != c.runCtx {
		c.runCtx = ctx
		c.traceCtx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			GotFirstResponseByte: func() {
				if a := c.cur; a != nil {
					a.firstByte = time.Now()
				}
			},
		})
	}
	ctx, cancel := context.WithDeadline(c.traceCtx, deadline)
	defer cancel()
	if c.qc == nil {
		if err := c.dial(ctx, a); err != nil {
			a.fail(err, phaseDial)
			return
		}
	} else {
		a.reused = true
	}
	c.cur = a
	a.markSent(time.Now())
	roundTrip(c.cc, c.req.WithContext(ctx), 3, a)
	c.cur = nil
	c.lastUsed = a.end
	if a.err != nil {
		c.close()
	}
}

// roundTrip sends req, reads the whole body and fills a.
// A response in another HTTP version than asked for is a protocol error.
func roundTrip(rt *http3.ClientConn, req *http.Request, major int, a *attempt) {
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
