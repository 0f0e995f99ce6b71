package benchgen

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/http2/hpack"
)

// h2Client is one visitor's HTTP/2 connection (TLS with ALPN "h2", or h2c
// with prior knowledge), written by hand as h1 is: one goroutine reads the
// frames the visitor waits for, so a request costs no hand-off to a reader
// goroutine, no http.Request and no header maps (net/http's client cost
// 1.8x h2load's CPU per request over TLS, 2.5x in cleartext:
// BenchmarkVersusH2load). One connection, one stream at a time (no
// multiplexing), no retry: a request the server refused unprocessed
// (GOAWAY, RST_STREAM) is counted as a reset. Socket I/O goes through fdIO
// in keep mode, under TLS too (fdConn): the request is queued and sent by
// the read that waits for its answer, once that read found the socket idle;
// frames found there (SETTINGS, PING, GOAWAY) are handled first, and a
// GOAWAY or a close found before the request left is a keep-alive close,
// as for h1. Bytes are counted at the TCP socket (TLS records included).
// As h1's, its read buffer goes back to the pool after each answer (and in
// cleartext is taken only once the answer can be read).
type h2Client struct {
	t *target
	wired
	tcp  *net.TCPConn
	fio  *fdIO
	conn net.Conn // fdConn, or TLS over it; nil when not connected
	// readBuf reads frames from conn. Between attempts its buffer is in the
	// pool, unless frames that came after our stream's end are in it (the
	// next attempt reads them first).
	readBuf
	dec    *hpack.Decoder
	block  []byte // the request's header block, the same for every request
	hdrs   []byte // a response header block being gathered
	pbuf   []byte // a frame's payload (HEADERS, PING, GOAWAY...), as large as the largest yet
	out    []byte // frames being built
	fh     [9]byte
	next   uint32 // the next stream id
	stream uint32 // the stream in flight, 0 between requests
	goAway bool   // the server sent GOAWAY: no new stream on this connection
	// DATA bytes received since the last WINDOW_UPDATE, connection-wide.
	connRecv int64
	deadline time.Time
	resp     h2Resp
}

// h2Resp is the response being read.
type h2Resp struct {
	status     int
	cl         int64 // content-length, -1 if none
	gotHead    bool  // the final (non-1xx) HEADERS came
	streamRecv int64 // DATA bytes since the stream's last WINDOW_UPDATE
	body       int64
	// What the header block being decoded said.
	blkStatus int
	blkCL     int64
	fieldErr  error // a malformed header field
}

// HTTP/2 frames (RFC 9113 §6).
const (
	frameData         = 0x0
	frameHeaders      = 0x1
	frameRSTStream    = 0x3
	frameSettings     = 0x4
	framePushPromise  = 0x5
	framePing         = 0x6
	frameGoAway       = 0x7
	frameWindowUpdate = 0x8
	frameContinuation = 0x9

	flagEndStream  = 0x1
	flagAck        = 0x1
	flagEndHeaders = 0x4
	flagPadded     = 0x8
	flagPriority   = 0x20

	h2Preface      = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
	h2MaxFrame     = 16384 // SETTINGS_MAX_FRAME_SIZE both ways (the default)
	h2DefaultWin   = 65535
	h2StreamWindow = 16 << 20 // so a body up to 8 MB needs no WINDOW_UPDATE
	h2ConnWindow   = 1 << 30
	h2MaxStreamID  = 1<<31 - 1
	h2MaxHeaders   = 64 << 10 // most header block bytes we take
)

func newH2(t *target) *h2Client {
	return &h2Client{t: t, block: h2RequestBlock(t)}
}

func (c *h2Client) close() {
	if c.tcp != nil {
		c.tcp.Close()
		c.tcp, c.fio, c.conn, c.r = nil, nil, nil, nil
	}
	c.release(true)
}

func (c *h2Client) dial(ctx context.Context, deadline time.Time) error {
	d := net.Dialer{Deadline: deadline}
	raw, err := d.DialContext(ctx, "tcp", c.t.addr)
	if err != nil {
		return err
	}
	tcp := raw.(*net.TCPConn)
	f, err := newFdIO(tcp, &c.w)
	if err != nil {
		tcp.Close()
		return err
	}
	f.keep = true
	tcp.SetDeadline(deadline)
	c.tcp, c.fio, c.deadline = tcp, f, deadline
	var conn net.Conn = &fdConn{Conn: tcp, f: f}
	if c.t.tls != nil {
		cfg := c.t.tls.Clone()
		cfg.NextProtos = []string{"h2"}
		tc := tls.Client(conn, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			c.close()
			return err
		}
		if p := tc.ConnectionState().NegotiatedProtocol; p != "h2" {
			c.close()
			return &errProtocol{fmt.Sprintf("the server chose %q in ALPN, not h2", p)}
		}
		conn = tc
	}
	c.conn, c.r = conn, conn
	c.dec = hpack.NewDecoder(4096, c.field)
	c.dec.SetMaxStringLength(h2MaxHeaders)
	c.next, c.stream, c.goAway, c.connRecv = 1, 0, false, 0
	// The preface, our SETTINGS (no push; a large stream window) and a
	// large connection window: queued, they leave with the first request.
	c.out = append(c.out[:0], h2Preface...)
	c.out = appendFrameHeader(c.out, 12, frameSettings, 0, 0)
	c.out = appendSetting(c.out, 0x2, 0) // SETTINGS_ENABLE_PUSH
	c.out = appendSetting(c.out, 0x4, h2StreamWindow)
	c.out = appendWindowUpdate(c.out, 0, h2ConnWindow-h2DefaultWin)
	if _, err := c.conn.Write(c.out); err != nil {
		c.close()
		return err
	}
	return nil
}

func (c *h2Client) do(ctx context.Context, deadline time.Time, a *attempt) {
	runAttempt(c, ctx, deadline, a)
}

func (c *h2Client) connected() bool { return c.conn != nil }

// unusable: the server said it takes no new stream (or the ids ran out).
func (c *h2Client) unusable(time.Time) bool { return c.goAway || c.next > h2MaxStreamID }

// exchange sends the request on a new stream and reads its answer.
// Unsent: nothing left, and the server had closed the kept connection or
// said GOAWAY (a keep-alive close, counted as one).
func (c *h2Client) exchange(a *attempt, deadline, now time.Time) (unsent bool, ph phase, err error) {
	keepDeadline(c.tcp, &c.deadline, deadline, a, now)
	c.stream = c.next
	c.next += 2
	sends := c.fio.sends
	c.out = appendHeaders(c.out[:0], c.stream, c.block)
	_, err = c.conn.Write(c.out) // queued
	if err == nil {
		if c.t.tls == nil {
			// Sent, then waited for (unless frames were already waiting:
			// the first read takes them, and sends it once the socket is
			// idle), so the read buffer is taken once the answer is there.
			// Not under TLS: records TLS has read but not yet opened
			// (a close_notify) are not on the socket, and must be seen
			// before the request goes; the first read through TLS sends it.
			c.fio.await()
		}
		err = c.readResponse(a)
	}
	a.end = time.Now()
	if err == nil {
		return false, 0, nil
	}
	unsent = c.fio.sends == sends &&
		(errors.Is(err, errNoResponse) || isGoAway(err) || errors.Is(err, syscall.ECONNRESET))
	ph = a.readPhase()
	if c.fio.sendErr != nil {
		ph = phaseSend
	}
	return unsent, ph, err
}

// errGoAway: the server will not process our stream (its GOAWAY's last
// stream id is below it).
type errGoAway struct {
	code, last uint32
}

func (e *errGoAway) Error() string {
	return fmt.Sprintf("GOAWAY (%s, last stream %d): the request was not processed", h2Code(e.code), e.last)
}

func isGoAway(err error) bool {
	var g *errGoAway
	return errors.As(err, &g)
}

// errStreamReset: RST_STREAM on our stream.
type errStreamReset struct{ code uint32 }

func (e *errStreamReset) Error() string {
	return fmt.Sprintf("stream reset by the server (RST_STREAM %s)", h2Code(e.code))
}

func h2Code(c uint32) string {
	names := []string{"NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT",
		"STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR",
		"ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"}
	if int(c) < len(names) {
		return names[c]
	}
	return "0x" + strconv.FormatUint(uint64(c), 16)
}

func h2Protocol(format string, args ...any) error {
	return &errProtocol{"HTTP/2: " + fmt.Sprintf(format, args...)}
}

// readResponse reads frames until our stream ends, answering SETTINGS and
// PING and giving flow-control credit as it goes.
func (c *h2Client) readResponse(a *attempt) error {
	c.resp = h2Resp{cl: -1}
	c.reader()
	for {
		length, typ, flags, sid, err := c.frameHeader(a)
		if err != nil {
			return err
		}
		done := false
		switch typ {
		case frameData:
			done, err = c.data(a, length, flags, sid)
		case frameHeaders:
			done, err = c.headers(a, length, flags, sid)
		case frameSettings:
			err = c.settings(a, length, flags, sid)
		case framePing:
			err = c.ping(a, length, flags, sid)
		case frameGoAway:
			err = c.goAwayFrame(a, length, sid)
		case frameRSTStream:
			err = c.rstStream(a, length, sid)
		case framePushPromise:
			err = h2Protocol("PUSH_PROMISE, though push is off")
		case frameContinuation:
			err = h2Protocol("CONTINUATION outside a header block")
		default: // WINDOW_UPDATE (we send no DATA), PRIORITY, unknown types
			if _, derr := c.br.Discard(length); derr != nil {
				err = c.ioErr(derr, a)
			}
		}
		if err != nil || done {
			return err
		}
	}
}

// frameHeader reads the next frame's 9-byte header into c.fh.
func (c *h2Client) frameHeader(a *attempt) (length int, typ, flags byte, sid uint32, err error) {
	if _, err := io.ReadFull(c.br, c.fh[:]); err != nil {
		return 0, 0, 0, 0, c.ioErr(err, a)
	}
	length = int(c.fh[0])<<16 | int(c.fh[1])<<8 | int(c.fh[2])
	if length > h2MaxFrame {
		return 0, 0, 0, 0, h2Protocol("a frame of %d bytes, over SETTINGS_MAX_FRAME_SIZE", length)
	}
	return length, c.fh[3], c.fh[4], binary.BigEndian.Uint32(c.fh[5:]) & h2MaxStreamID, nil
}

// settings reads a SETTINGS frame and acknowledges it (an ACK of ours is
// only checked).
func (c *h2Client) settings(a *attempt, length int, flags byte, sid uint32) error {
	if sid != 0 || flags&flagAck != 0 && length != 0 || length%6 != 0 {
		return h2Protocol("bad SETTINGS frame")
	}
	if _, err := c.br.Discard(length); err != nil {
		return c.ioErr(err, a)
	}
	if flags&flagAck != 0 {
		return nil
	}
	// Nothing in the server's settings binds a client that sends one small
	// HEADERS frame at a time; the ACK is owed.
	return c.write(appendFrameHeader(c.out[:0], 0, frameSettings, flagAck, 0))
}

// ping reads a PING frame and answers it (an answer to ours is only read).
func (c *h2Client) ping(a *attempt, length int, flags byte, sid uint32) error {
	if sid != 0 || length != 8 {
		return h2Protocol("bad PING frame")
	}
	p, err := c.payload(length)
	if err != nil {
		return c.ioErr(err, a)
	}
	if flags&flagAck != 0 {
		return nil
	}
	return c.write(append(appendFrameHeader(c.out[:0], 8, framePing, flagAck, 0), p...))
}

// goAwayFrame reads a GOAWAY frame: no new stream on this connection, and
// an error if ours is above the last one the server will process.
func (c *h2Client) goAwayFrame(a *attempt, length int, sid uint32) error {
	if sid != 0 || length < 8 {
		return h2Protocol("bad GOAWAY frame")
	}
	p, err := c.payload(length)
	if err != nil {
		return c.ioErr(err, a)
	}
	c.goAway = true
	last := binary.BigEndian.Uint32(p) & h2MaxStreamID
	if c.stream > last {
		return &errGoAway{code: binary.BigEndian.Uint32(p[4:]), last: last}
	}
	// Our stream is below the last one: it is answered.
	return nil
}

// rstStream reads a RST_STREAM frame: an error if it resets our stream.
func (c *h2Client) rstStream(a *attempt, length int, sid uint32) error {
	if sid == 0 || length != 4 {
		return h2Protocol("bad RST_STREAM frame")
	}
	p, err := c.payload(length)
	if err != nil {
		return c.ioErr(err, a)
	}
	if sid == c.stream {
		return &errStreamReset{code: binary.BigEndian.Uint32(p)}
	}
	return nil
}

// data reads a DATA frame; done at the end of our stream.
func (c *h2Client) data(a *attempt, length int, flags byte, sid uint32) (done bool, err error) {
	if sid == 0 {
		return false, h2Protocol("DATA on stream 0")
	}
	pad := 0
	n := length
	if flags&flagPadded != 0 {
		if length < 1 {
			return false, h2Protocol("padded DATA frame of 0 bytes")
		}
		p, err := c.br.ReadByte()
		if err != nil {
			return false, c.ioErr(err, a)
		}
		pad = int(p)
		n = length - 1 - pad
		if n < 0 {
			return false, h2Protocol("DATA padding longer than the frame")
		}
	}
	ours := sid == c.stream
	if ours && !c.resp.gotHead {
		return false, h2Protocol("DATA before the response headers")
	}
	m, err := c.br.Discard(n)
	if ours {
		c.resp.body += int64(m)
		a.bodyBytes += int64(m)
	}
	if err != nil {
		return false, c.ioErr(err, a)
	}
	if _, err := c.br.Discard(pad); err != nil {
		return false, c.ioErr(err, a)
	}
	// Flow control counts the whole frame, padding included.
	c.connRecv += int64(length)
	c.out = c.out[:0]
	if c.connRecv >= h2ConnWindow/2 {
		c.out = appendWindowUpdate(c.out, 0, uint32(c.connRecv))
		c.connRecv = 0
	}
	if ours && flags&flagEndStream == 0 {
		c.resp.streamRecv += int64(length)
		if c.resp.streamRecv >= h2StreamWindow/2 {
			c.out = appendWindowUpdate(c.out, c.stream, uint32(c.resp.streamRecv))
			c.resp.streamRecv = 0
		}
	}
	if len(c.out) > 0 {
		if err := c.write(c.out); err != nil {
			return false, err
		}
	}
	if ours && flags&flagEndStream != 0 {
		return true, c.endStream()
	}
	return false, nil
}

// headers reads a HEADERS frame and its CONTINUATIONs and decodes the block
// (always: HPACK's table is the connection's); done at the end of our stream.
func (c *h2Client) headers(a *attempt, length int, flags byte, sid uint32) (done bool, err error) {
	if sid == 0 || sid != c.stream {
		return false, h2Protocol("HEADERS on stream %d, not ours (%d)", sid, c.stream)
	}
	p, err := c.payload(length)
	if err != nil {
		return false, c.ioErr(err, a)
	}
	if flags&flagPadded != 0 {
		if len(p) < 1 || int(p[0]) >= len(p) {
			return false, h2Protocol("bad HEADERS padding")
		}
		p = p[1 : len(p)-int(p[0])]
	}
	if flags&flagPriority != 0 {
		if len(p) < 5 {
			return false, h2Protocol("HEADERS too short for its priority")
		}
		p = p[5:]
	}
	c.hdrs = append(c.hdrs[:0], p...)
	for fl := flags; fl&flagEndHeaders == 0; {
		if _, err := io.ReadFull(c.br, c.fh[:]); err != nil {
			return false, c.ioErr(err, a)
		}
		n := int(c.fh[0])<<16 | int(c.fh[1])<<8 | int(c.fh[2])
		if c.fh[3] != frameContinuation || binary.BigEndian.Uint32(c.fh[5:])&h2MaxStreamID != sid || n > h2MaxFrame {
			return false, h2Protocol("a header block not continued by CONTINUATION")
		}
		if len(c.hdrs)+n > h2MaxHeaders {
			return false, h2Protocol("a header block over %d bytes", h2MaxHeaders)
		}
		fl = c.fh[4]
		q, err := c.payload(n)
		if err != nil {
			return false, c.ioErr(err, a)
		}
		c.hdrs = append(c.hdrs, q...)
	}
	trailers := c.resp.gotHead
	c.resp.blkStatus, c.resp.blkCL, c.resp.fieldErr = 0, -1, nil
	if _, err := c.dec.Write(c.hdrs); err != nil {
		return false, h2Protocol("header block: %v", err)
	}
	if err := c.dec.Close(); err != nil {
		return false, h2Protocol("header block: %v", err)
	}
	if c.resp.fieldErr != nil {
		return false, c.resp.fieldErr
	}
	end := flags&flagEndStream != 0
	if trailers {
		if !end || c.resp.blkStatus != 0 {
			return false, h2Protocol("a second HEADERS that is not trailers")
		}
		return true, c.endStream()
	}
	if a.firstByte.IsZero() {
		a.firstByte = time.Now()
	}
	switch s := c.resp.blkStatus; {
	case s == 0:
		return false, h2Protocol("response without :status")
	case s >= 100 && s < 200:
		if end {
			return false, h2Protocol("stream ended on a %d", s)
		}
		return false, nil // interim: the final response follows
	}
	c.resp.status, c.resp.cl = c.resp.blkStatus, c.resp.blkCL
	c.resp.gotHead = true
	a.gotHead = true
	a.status = c.resp.status
	if end {
		return true, c.endStream()
	}
	return false, nil
}

// field takes one decoded response header field.
func (c *h2Client) field(f hpack.HeaderField) {
	switch {
	case f.Name == ":status":
		s, err := strconv.Atoi(f.Value)
		if c.resp.blkStatus != 0 || len(f.Value) != 3 || err != nil || s < 100 {
			c.resp.fieldErr = h2Protocol("bad :status %q", f.Value)
			return
		}
		c.resp.blkStatus = s
	case f.Name == "content-length":
		n, err := strconv.ParseInt(f.Value, 10, 64)
		if err != nil || n < 0 {
			c.resp.fieldErr = h2Protocol("bad content-length %q", f.Value)
			return
		}
		c.resp.blkCL = n
	case strings.HasPrefix(f.Name, ":"):
		c.resp.fieldErr = h2Protocol("pseudo-header %q in a response", f.Name)
	}
}

// endStream: our stream ended; the body must match its content-length.
func (c *h2Client) endStream() error {
	c.stream = 0
	r := &c.resp
	if c.t.method == "HEAD" || r.status == 204 || r.status == 304 || r.cl < 0 || r.body == r.cl {
		return nil
	}
	if r.body < r.cl {
		return errShort
	}
	return h2Protocol("%d body bytes for a content-length of %d", r.body, r.cl)
}

// payload reads a frame's payload (at most h2MaxFrame bytes) into a buffer
// valid until the next read.
func (c *h2Client) payload(n int) ([]byte, error) {
	if cap(c.pbuf) < n {
		// As large as needed, not h2MaxFrame: the buffer stays with the
		// connection, and most frames read here are small header blocks.
		c.pbuf = make([]byte, min(h2MaxFrame, max(n, 2*cap(c.pbuf), 256)))
	}
	b := c.pbuf[:n]
	_, err := io.ReadFull(c.br, b)
	return b, err
}

// write queues frames; they leave with the next read that waits.
func (c *h2Client) write(p []byte) error {
	_, err := c.conn.Write(p)
	return err
}

// ioErr: the connection ended before our stream did.
func (c *h2Client) ioErr(err error, a *attempt) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		if a.gotHead {
			return errShort
		}
		return errNoResponse
	}
	return err
}

func appendFrameHeader(b []byte, length int, typ, flags byte, sid uint32) []byte {
	return append(b, byte(length>>16), byte(length>>8), byte(length), typ, flags,
		byte(sid>>24), byte(sid>>16), byte(sid>>8), byte(sid))
}

func appendSetting(b []byte, id uint16, v uint32) []byte {
	return append(b, byte(id>>8), byte(id), byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

func appendWindowUpdate(b []byte, sid, inc uint32) []byte {
	b = appendFrameHeader(b, 4, frameWindowUpdate, 0, sid)
	return append(b, byte(inc>>24), byte(inc>>16), byte(inc>>8), byte(inc))
}

// appendHeaders frames a header block on stream sid, ending the stream (a
// GET or HEAD has no body), split into CONTINUATIONs past h2MaxFrame.
func appendHeaders(b []byte, sid uint32, block []byte) []byte {
	typ, flags := byte(frameHeaders), byte(flagEndStream)
	for {
		n := min(len(block), h2MaxFrame)
		f := flags
		if n == len(block) {
			f |= flagEndHeaders
		}
		b = appendFrameHeader(b, n, typ, f, sid)
		b = append(b, block[:n]...)
		block = block[n:]
		if len(block) == 0 {
			return b
		}
		typ, flags = frameContinuation, 0
	}
}

// h2RequestBlock is the request's HPACK header block. Every field is a
// literal never added to the server's table (or an entry of the static
// table), so the same bytes serve every request on every connection.
func h2RequestBlock(t *target) []byte {
	scheme := "http"
	if t.tls != nil {
		scheme = "https"
	}
	authority := t.url.Host
	var b []byte
	// Static table indices (RFC 7541 Appendix A).
	b = hpackField(b, 2, ":method", t.method, map[string]int{"GET": 2})
	b = hpackField(b, 6, ":scheme", scheme, map[string]int{"http": 6, "https": 7})
	b = hpackField(b, 1, ":authority", authority, nil)
	b = hpackField(b, 4, ":path", t.url.RequestURI(), map[string]int{"/": 4})
	for _, k := range slices.Sorted(maps.Keys(t.header)) {
		name := strings.ToLower(k)
		switch name {
		case "host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
			continue // HTTP/1 only (RFC 9113 §8.2.2); Host is :authority
		}
		for _, v := range t.header[k] {
			b = hpackField(b, 0, name, v, nil)
		}
	}
	return b
}

// hpackField appends name: value, indexed when the static table has both
// (full, at full[value]), else a literal without indexing whose name is
// static entry nameIdx (0: the name is a literal too), not Huffman-coded.
func hpackField(b []byte, nameIdx int, name, value string, full map[string]int) []byte {
	if i, ok := full[value]; ok {
		return hpackInt(b, 7, 0x80, uint64(i))
	}
	b = hpackInt(b, 4, 0x00, uint64(nameIdx))
	if nameIdx == 0 {
		b = hpackInt(b, 7, 0, uint64(len(name)))
		b = append(b, name...)
	}
	b = hpackInt(b, 7, 0, uint64(len(value)))
	return append(b, value...)
}

// hpackInt is RFC 7541 §5.1's integer with an n-bit prefix after the bits in first.
func hpackInt(b []byte, n uint, first byte, v uint64) []byte {
	max := uint64(1)<<n - 1
	if v < max {
		return append(b, first|byte(v))
	}
	b = append(b, first|byte(max))
	for v -= max; v >= 128; v >>= 7 {
		b = append(b, byte(v&0x7f)|0x80)
	}
	return append(b, byte(v))
}
