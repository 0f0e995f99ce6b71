package benchgen

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"time"
)

// h1Client is one visitor's HTTP/1.1 connection on a plain net.Conn: it
// writes a prebuilt request, parses the status line and headers itself and
// discards the body, so every byte is counted where it crosses the socket and
// nothing is retried or pooled behind the visitor's back.
type h1Client struct {
	t *target
	wired
	raw  net.Conn // the counting TCP conn
	conn net.Conn // raw, or TLS over raw
	// readBuf reads responses from fio, or conn. Between attempts its
	// buffer is in the pool, unless bytes nobody asked for are in it: the
	// next attempt then drops the connection.
	readBuf
	fio      *fdIO // plain TCP: raw socket I/O (nil over TLS)
	lastUsed time.Time
	deadline time.Time // the deadline set on conn
}

// readBuf is a connection's read buffer, taken from brPool while an answer
// is read and given back after it, so an idle connection holds none (h1
// and h2 alike).
type readBuf struct {
	r  io.Reader     // what answers are read from
	br *bufio.Reader // nil while the buffer is in the pool
}

// brPool holds the read buffers of connections not reading right now.
var brPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 32<<10) }}

// reader takes a read buffer for the connection, if it has none.
func (b *readBuf) reader() *bufio.Reader {
	if b.br == nil {
		b.br = brPool.Get().(*bufio.Reader)
		b.br.Reset(b.r)
	}
	return b.br
}

// release gives the read buffer back unless it holds unread bytes.
func (b *readBuf) release(always bool) {
	if b.br != nil && (always || b.br.Buffered() == 0) {
		b.br.Reset(nil)
		brPool.Put(b.br)
		b.br = nil
	}
}

// deadlineSlack: how much earlier than asked an h1 timeout may fire.
const deadlineSlack = 10 * time.Millisecond

func newH1(t *target) *h1Client { return &h1Client{t: t} }

// keepDeadline gives conn the attempt's deadline, and marks when a is sent
// (now, or after a new connection's handshake). Moving the deadline costs a
// timer update per request, so a deadline (*set) at most deadlineSlack
// earlier than the attempt's own is kept: a timeout fires up to 10 ms
// early, never late. Shared by h1 and h2.
func keepDeadline(conn net.Conn, set *time.Time, deadline time.Time, a *attempt, now time.Time) {
	if d := deadline.Sub(*set); d < 0 || d > deadlineSlack || a.newConn {
		conn.SetDeadline(deadline)
		*set = deadline
	}
	if a.newConn {
		now = time.Now()
	}
	a.markSent(now)
}

func (c *h1Client) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn, c.raw, c.fio, c.r = nil, nil, nil, nil
	}
	c.release(true)
}

// idleClosed reports whether the server closed a TLS connection we kept
// idle (KeepAliveTimeout): a peek at the socket that does not wait sees EOF
// or a reset. Checked only after an idle gap, before anything is sent, so it
// is not a retry. (A read with a deadline already past cannot do it: Go
// fails such a read before it looks at the socket.) Cleartext needs no such
// check: fdIO reads the idle socket before every request.
func (c *h1Client) idleClosed() bool {
	tc, ok := c.raw.(*countConn).Conn.(*net.TCPConn)
	if !ok {
		return false
	}
	closed, data := peekSocket(tc)
	if closed || !data {
		return closed
	}
	// The bytes may be a session ticket (harmless) or the server's
	// close_notify: let the TLS layer read them, and no more (reads that
	// would wait fail at once, as timeouts: a deadline of a millisecond
	// expired before the read on a busy machine, and the close went unseen).
	cc := c.raw.(*countConn)
	cc.noWait = true
	_, err := c.reader().Peek(1)
	cc.noWait = false
	return err == nil || !isTimeout(err)
}

func (c *h1Client) dial(ctx context.Context, deadline time.Time) error {
	d := net.Dialer{Deadline: deadline}
	raw, err := d.DialContext(ctx, "tcp", c.t.addr)
	if err != nil {
		return err
	}
	c.raw = &countConn{Conn: raw, w: &c.w}
	c.conn = c.raw
	if c.t.tls != nil {
		cfg := c.t.tls.Clone()
		cfg.NextProtos = []string{"http/1.1"}
		tc := tls.Client(c.raw, cfg)
		tc.SetDeadline(deadline)
		if err := tc.HandshakeContext(ctx); err != nil {
			raw.Close()
			c.conn, c.raw = nil, nil
			return err
		}
		c.conn = tc
	}
	c.r = c.conn
	if tc, ok := raw.(*net.TCPConn); ok && c.t.tls == nil {
		if c.fio, err = newFdIO(tc, &c.w); err != nil {
			raw.Close()
			c.conn, c.raw, c.r = nil, nil, nil
			return err
		}
		c.r = c.fio
	}
	return nil
}

func (c *h1Client) do(ctx context.Context, deadline time.Time, a *attempt) {
	runAttempt(c, ctx, deadline, a)
}

func (c *h1Client) connected() bool { return c.conn != nil }

// unusable: bytes nobody asked for make a kept connection unclean; over
// TLS an idle one may have been closed by the server.
func (c *h1Client) unusable(now time.Time) bool {
	return c.br != nil && c.br.Buffered() > 0 || c.fio == nil && now.Sub(c.lastUsed) > idleCheckAfter && c.idleClosed()
}

// exchange writes the request and reads its answer; the connection is
// closed after an answer that says so, or when keep-alive is off.
func (c *h1Client) exchange(a *attempt, deadline, now time.Time) (unsent bool, ph phase, err error) {
	keepDeadline(c.conn, &c.deadline, deadline, a, now)
	if c.fio != nil {
		// Sent, then waited for: the read buffer is taken after.
		c.fio.req = c.t.h1req
		c.fio.await()
	} else if _, err := c.conn.Write(c.t.h1req); err != nil {
		return false, phaseSend, err
	}
	closeAfter, err := c.readResponse(a)
	a.end = time.Now()
	c.lastUsed = a.end
	switch {
	case c.fio != nil && c.fio.stale:
		// Nothing was sent: the server had closed the kept connection
		// (a keep-alive close, counted as one), so this attempt goes out
		// on a new one. A new connection found closed is a failure.
		return true, phaseHead, errNoResponse
	case c.fio != nil && c.fio.sendErr != nil:
		return false, phaseSend, c.fio.sendErr
	case err != nil:
		return false, a.readPhase(), err
	}
	if closeAfter || !c.t.keepAlive {
		if c.t.keepAlive {
			a.kaClose = true
		}
		c.close()
	}
	return false, 0, nil
}

var (
	hdrContentLength    = []byte("content-length:")
	hdrTransferEncoding = []byte("transfer-encoding:")
	hdrConnection       = []byte("connection:")
)

// h1Head is what a response's head says about its body and its connection.
type h1Head struct {
	status     int
	length     int64 // Content-Length; -1 when none was given
	chunked    bool
	closeAfter bool
}

// readResponse reads one response. closeAfter says the server will close
// (Connection: close, HTTP/1.0 without keep-alive, or a body delimited by EOF).
func (c *h1Client) readResponse(a *attempt) (closeAfter bool, err error) {
	br := c.reader()
	if _, err := br.Peek(1); err != nil {
		if errors.Is(err, io.EOF) {
			return false, errNoResponse
		}
		return false, err
	}
	a.firstByte = time.Now()
	h, err := c.readHead(br, a)
	if err != nil {
		return false, err
	}
	a.gotHead = true
	if h.status >= 100 && h.status < 200 {
		// Interim responses (100 Continue, 103 Early Hints): read the final one.
		return c.readResponse(a)
	}
	return c.discardBody(br, a, h)
}

// readHead reads the status line and the headers, up to the empty line.
func (c *h1Client) readHead(br *bufio.Reader, a *attempt) (h1Head, error) {
	http10, err := readStatusLine(br, a)
	if err != nil {
		return h1Head{}, err
	}
	// An HTTP/1.0 request or answer means close, unless the answer says keep-alive.
	h := h1Head{status: a.status, length: -1, closeAfter: http10 || c.t.http10}
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return h, headErr(err)
		}
		a.headerBytes += int64(len(line))
		if len(line) <= 2 {
			return h, nil
		}
		if err := h.parseHeader(line); err != nil {
			return h, err
		}
	}
}

// readStatusLine reads "HTTP/1.x NNN ..." into a.status; http10 says the
// server answered as HTTP/1.0.
func readStatusLine(br *bufio.Reader, a *attempt) (http10 bool, err error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return false, headErr(err)
	}
	a.headerBytes += int64(len(line))
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return false, &errProtocol{"bad status line " + strconv.Quote(string(trimCRLF(line)))}
	}
	status, perr := strconv.Atoi(string(line[9:12]))
	if perr != nil {
		return false, &errProtocol{"bad status code " + strconv.Quote(string(line[9:12]))}
	}
	a.status = status
	return line[7] == '0', nil
}

// parseHeader notes the one header line among those that say how the body
// is delimited and whether the connection is kept; others are skipped.
func (h *h1Head) parseHeader(line []byte) error {
	switch {
	case hasPrefixFold(line, hdrContentLength):
		v, perr := strconv.ParseInt(string(bytes.TrimSpace(line[len(hdrContentLength):])), 10, 64)
		if perr != nil || v < 0 {
			return &errProtocol{"bad Content-Length " + strconv.Quote(string(trimCRLF(line)))}
		}
		h.length = v
	case hasPrefixFold(line, hdrTransferEncoding):
		h.chunked = containsFold(line, "chunked")
	case hasPrefixFold(line, hdrConnection):
		v := line[len(hdrConnection):]
		if containsFold(v, "close") {
			h.closeAfter = true
		} else if containsFold(v, "keep-alive") {
			h.closeAfter = false
		}
	}
	return nil
}

// discardBody reads the body the head announces and throws it away;
// closeAfter is also true when the body runs to the end of the connection.
func (c *h1Client) discardBody(br *bufio.Reader, a *attempt, h h1Head) (closeAfter bool, err error) {
	switch {
	case c.t.method == "HEAD" || h.status == 204 || h.status == 304:
	case h.chunked:
		if err := c.discardChunked(a); err != nil {
			return false, err
		}
	case h.length >= 0:
		n, err := br.Discard(int(h.length))
		a.bodyBytes += int64(n)
		if err != nil {
			return false, bodyErr(err)
		}
	default:
		// Body delimited by the end of the connection.
		n, err := io.Copy(io.Discard, br)
		a.bodyBytes += n
		if err != nil {
			return false, bodyErr(err)
		}
		return true, nil
	}
	return h.closeAfter, nil
}

func (c *h1Client) discardChunked(a *attempt) error {
	br := c.br
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return bodyErr(err)
		}
		sz := bytes.TrimSpace(line)
		if i := bytes.IndexByte(sz, ';'); i >= 0 {
			sz = sz[:i]
		}
		n, perr := strconv.ParseInt(string(sz), 16, 64)
		if perr != nil || n < 0 {
			return &errProtocol{"bad chunk size " + strconv.Quote(string(trimCRLF(line)))}
		}
		if n == 0 {
			// Trailers until an empty line.
			for {
				line, err = br.ReadSlice('\n')
				if err != nil {
					return bodyErr(err)
				}
				if len(line) <= 2 {
					return nil
				}
			}
		}
		m, err := br.Discard(int(n))
		a.bodyBytes += int64(m)
		if err != nil {
			return bodyErr(err)
		}
		if _, err := br.Discard(2); err != nil { // CRLF after the chunk
			return bodyErr(err)
		}
	}
}

// headErr: EOF inside the headers is a response cut short.
func headErr(err error) error {
	if errors.Is(err, io.EOF) {
		return errShort
	}
	if errors.Is(err, bufio.ErrBufferFull) {
		return &errProtocol{"header line longer than 32 KiB"}
	}
	return err
}

func bodyErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errShort
	}
	return err
}

func hasPrefixFold(line, p []byte) bool {
	return len(line) >= len(p) && bytes.EqualFold(line[:len(p)], p)
}

// containsFold reports whether lower-case word is in b, ignoring ASCII case,
// without allocating (headers are parsed on every request).
func containsFold(b []byte, word string) bool {
	for i := 0; i+len(word) <= len(b); i++ {
		if bytes.EqualFold(b[i:i+len(word)], []byte(word)) {
			return true
		}
	}
	return false
}

func trimCRLF(b []byte) []byte { return bytes.TrimRight(b, "\r\n") }
