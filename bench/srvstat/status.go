package srvstat

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"
)

// statusTimeout bounds one /server-status request: a sample is due every second.
const statusTimeout = 900 * time.Millisecond

// statusClient fetches an http:// status URL over one kept-alive
// connection, one goroutine, no transport: net/http's client costs about
// twice the CPU per request here (its reader and writer goroutines hand the
// request and answer over between threads), and the request is made every
// second. Anything else (https) goes through net/http.
type statusClient struct {
	url   string
	host  string // host:port to dial
	req   []byte
	conn  net.Conn
	br    *bufio.Reader
	body  []byte
	httpc *http.Client // for URLs this client does not speak
}

func newStatusClient(raw string) *statusClient {
	c := &statusClient{url: raw}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Host == "" || u.User != nil {
		c.httpc = &http.Client{Timeout: statusTimeout}
		return c
	}
	c.host = u.Host
	if u.Port() == "" {
		c.host = net.JoinHostPort(u.Hostname(), "80")
	}
	c.req = []byte("GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: wptest-srvstat\r\n\r\n")
	return c
}

// get returns the status page's body (valid until the next get).
func (c *statusClient) get(ctx context.Context) ([]byte, error) {
	if c.httpc != nil {
		return c.getHTTP(ctx)
	}
	deadline := time.Now().Add(statusTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	for {
		reused := c.conn != nil
		if !reused {
			d := net.Dialer{Deadline: deadline}
			conn, err := d.DialContext(ctx, "tcp", c.host)
			if err != nil {
				return nil, err
			}
			c.conn = conn
			if c.br == nil {
				c.br = bufio.NewReaderSize(conn, 4096)
			} else {
				c.br.Reset(conn)
			}
		}
		b, err := c.roundTrip(ctx, deadline)
		if err == nil {
			return b, nil
		}
		c.close()
		// A kept connection the server closed while idle fails before any
		// answer: try once more on a new one.
		if !reused || !errors.Is(err, errStale) || ctx.Err() != nil {
			return nil, err
		}
	}
}

// errStale: the kept connection was gone before the answer began.
var errStale = errors.New("connection closed before the answer")

// roundTrip sends the request on the kept connection and reads the answer
// into c.body; a connection the server closed before answering is errStale.
func (c *statusClient) roundTrip(ctx context.Context, deadline time.Time) ([]byte, error) {
	conn := c.conn
	conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if _, err := conn.Write(c.req); err != nil {
		return nil, fmt.Errorf("%w: %v", errStale, err)
	}
	head, err := c.readHead()
	if err != nil {
		return nil, err
	}
	c.body = c.body[:0]
	switch {
	case head.chunked:
		err = c.readChunked()
	case head.length >= 0:
		if head.length > 1<<20 {
			return nil, fmt.Errorf("status page of %d bytes", head.length)
		}
		err = c.readBody(head.length)
	default:
		err = c.readToClose()
		head.keep = false
	}
	if err != nil {
		return nil, err
	}
	if !head.keep {
		c.close()
	}
	if head.code != 200 {
		return nil, fmt.Errorf("status %d", head.code)
	}
	return c.body, nil
}

// respHead is what the status line and headers say about the body.
type respHead struct {
	code    int
	length  int64 // -1: not given
	chunked bool
	keep    bool // the connection may be used again
}

// readHead reads the status line and the headers.
func (c *statusClient) readHead() (respHead, error) {
	line, err := c.br.ReadSlice('\n')
	if err != nil {
		if len(line) == 0 && (err == io.EOF || errors.Is(err, net.ErrClosed) || isReset(err)) {
			return respHead{}, fmt.Errorf("%w: %v", errStale, err)
		}
		return respHead{}, err
	}
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return respHead{}, fmt.Errorf("bad status line %q", bytes.TrimSpace(line))
	}
	code, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return respHead{}, fmt.Errorf("bad status line %q", bytes.TrimSpace(line))
	}
	head := respHead{code: code, length: -1, keep: line[7] == '1'}
	for {
		h, err := c.br.ReadSlice('\n')
		if err != nil {
			return respHead{}, fmt.Errorf("headers: %w", err)
		}
		h = bytes.TrimRight(h, "\r\n")
		if len(h) == 0 {
			return head, nil
		}
		k, v, ok := bytes.Cut(h, []byte(":"))
		if !ok {
			continue
		}
		v = bytes.TrimSpace(v)
		switch {
		case bytes.EqualFold(k, []byte("Content-Length")):
			if head.length, err = strconv.ParseInt(string(v), 10, 64); err != nil || head.length < 0 {
				return respHead{}, fmt.Errorf("bad Content-Length %q", v)
			}
		case bytes.EqualFold(k, []byte("Transfer-Encoding")):
			head.chunked = bytes.EqualFold(v, []byte("chunked"))
		case bytes.EqualFold(k, []byte("Connection")):
			if bytes.EqualFold(v, []byte("close")) {
				head.keep = false
			} else if bytes.EqualFold(v, []byte("keep-alive")) {
				head.keep = true
			}
		}
	}
}

// readChunked reads a chunked body (at most 1 MB) and its trailers.
func (c *statusClient) readChunked() error {
	for {
		l, err := c.br.ReadSlice('\n')
		if err != nil {
			return fmt.Errorf("chunk: %w", err)
		}
		l, _, _ = bytes.Cut(bytes.TrimSpace(l), []byte(";"))
		n, err := strconv.ParseInt(string(l), 16, 64)
		if err != nil || n < 0 || int64(len(c.body))+n > 1<<20 {
			return fmt.Errorf("bad chunk size %q", l)
		}
		if n == 0 {
			break
		}
		if err := c.readBody(n); err != nil {
			return err
		}
		if _, err := c.br.Discard(2); err != nil { // CRLF
			return fmt.Errorf("chunk: %w", err)
		}
	}
	for { // trailers, up to the empty line
		l, err := c.br.ReadSlice('\n')
		if err != nil {
			return fmt.Errorf("trailer: %w", err)
		}
		if len(bytes.TrimSpace(l)) == 0 {
			return nil
		}
	}
}

// readToClose reads a body that ends when the server closes (at most 1 MB).
func (c *statusClient) readToClose() error {
	for {
		if len(c.body) > 1<<20 {
			return fmt.Errorf("status page over 1 MB")
		}
		b, err := c.br.ReadSlice('\n')
		c.body = append(c.body, b...)
		if err == io.EOF {
			return nil
		}
		if err != nil && err != bufio.ErrBufferFull {
			return err
		}
	}
}

func (c *statusClient) readBody(n int64) error {
	start := len(c.body)
	c.body = slices.Grow(c.body, int(n))[:start+int(n)]
	if _, err := io.ReadFull(c.br, c.body[start:]); err != nil {
		return fmt.Errorf("body: %w", err)
	}
	return nil
}

func (c *statusClient) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}

func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && !op.Timeout()
}

func (c *statusClient) getHTTP(ctx context.Context) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.httpc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil || resp.StatusCode != 200 {
		return nil, fmt.Errorf("status %d %v", resp.StatusCode, err)
	}
	return b, nil
}
