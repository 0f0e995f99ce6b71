package benchgen

import (
	"context"
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
	t        *target
	w        wire
	udp      net.PacketConn
	qtr      *quic.Transport
	qc       *quic.Conn
	cc       *http3.ClientConn
	htr      *http3.Transport
	raddr    *net.UDPAddr
	lastUsed time.Time
}

func newH3(t *target) *h3Client {
	return &h3Client{t: t, htr: &http3.Transport{DisableCompression: true}}
}

func (c *h3Client) wire() (int64, int64) { return c.w.in.Load(), c.w.out.Load() }

func (c *h3Client) close() {
	if c.qc != nil {
		c.qc.CloseWithError(0, "")
		c.qc, c.cc = nil, nil
	}
	if c.qtr != nil {
		c.qtr.Close()
		c.qtr = nil
	}
	if c.udp != nil {
		c.udp.Close()
		c.udp = nil
	}
}

func (c *h3Client) dial(ctx context.Context, a *attempt) error {
	t0 := time.Now()
	if c.raddr == nil {
		ra, err := net.ResolveUDPAddr("udp", c.t.addr)
		if err != nil {
			return err
		}
		c.raddr = ra
	}
	udp, err := net.ListenUDP("udp", nil)
	if err != nil {
		return err
	}
	c.udp = &countPacketConn{PacketConn: udp, w: &c.w}
	c.qtr = &quic.Transport{Conn: c.udp}
	cfg := c.t.tls.Clone()
	cfg.NextProtos = []string{http3.NextProtoH3}
	qc, err := c.qtr.Dial(ctx, c.raddr, cfg, &quic.Config{MaxIdleTimeout: 60 * time.Second})
	if err != nil {
		c.close()
		return err
	}
	c.qc = qc
	c.cc = c.htr.NewClientConn(qc)
	a.newConn = true
	a.connect = time.Since(t0)
	return nil
}

func (c *h3Client) do(ctx context.Context, deadline time.Time, a *attempt) {
	if c.qc != nil && c.qc.Context().Err() != nil {
		c.close()
		a.kaCloseBefore = true
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	if c.qc == nil {
		if err := c.dial(ctx, a); err != nil {
			a.fail(err, phaseDial)
			return
		}
	} else {
		a.reused = true
	}
	c.lastUsed = tracedRoundTrip(ctx, c.cc, c.t, 3, a)
	if a.err != nil {
		c.close()
	}
}

// tracedRoundTrip sends the target's request on rt (quic-go's HTTP/3), timing the
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

// roundTrip sends req, reads the whole body and fills a.
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
