package benchgen

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// faultServer is a raw HTTP/1.1 server on loopback whose path chooses the
// fault: the client's accounting is what is under test, so every byte and
// every close is under the test's control.
type faultServer struct {
	ln     net.Listener
	scheme string // "" is http
	mu     sync.Mutex
	conns  map[net.Conn]bool
	// stallUntil: /stall-once responses wait until then.
	stallOnce sync.Once
	stallDur  time.Duration
	stallEnd  time.Time
	wg        sync.WaitGroup
	// killAfter > 0: the server dies right after its killAfter-th answer
	// to /ok (a crash at a known point of a run, not at a guessed time).
	killAfter atomic.Int64
	answered  atomic.Int64
	stalled   atomic.Int64 // requests to /stall read
	killOnce  sync.Once
}

var body1k = strings.Repeat("x", 1024)

func startFaultServer(t *testing.T) *faultServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveFaults(t, ln)
}

// startTLSFaultServer is the same over TLS, with httptest's certificate
// (for 127.0.0.1); the pool verifies it.
func startTLSFaultServer(t *testing.T) (*faultServer, *x509.CertPool) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cert, pool := testCert()
	s := serveFaults(t, tls.NewListener(ln, &tls.Config{Certificates: cert}))
	s.scheme = "https"
	return s, pool
}

// testCert is httptest's certificate for 127.0.0.1, and a pool that
// verifies it.
func testCert() ([]tls.Certificate, *x509.CertPool) {
	ts := httptest.NewTLSServer(http.NotFoundHandler())
	ts.Close() // only its certificate is wanted
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	return ts.TLS.Certificates, pool
}

func serveFaults(t *testing.T, ln net.Listener) *faultServer {
	return serveConns(t, ln, (*faultServer).serve)
}

// serveConns accepts on ln and hands each connection to handle, closing it
// when handle returns; the test's cleanup kills the server.
func serveConns(t *testing.T, ln net.Listener, handle func(*faultServer, net.Conn)) *faultServer {
	s := &faultServer{ln: ln, conns: map[net.Conn]bool{}}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns[c] = true
			s.mu.Unlock()
			go func() {
				defer func() {
					c.Close()
					s.mu.Lock()
					delete(s.conns, c)
					s.mu.Unlock()
				}()
				handle(s, c)
			}()
		}
	}()
	t.Cleanup(s.kill)
	return s
}

func (s *faultServer) url(path string) string {
	if s.scheme == "" {
		s.scheme = "http"
	}
	return s.scheme + "://" + s.ln.Addr().String() + path
}

// corked runs write with TCP_CORK set on c's TCP connection, so what it
// writes (an answer and a shutdown, or an answer before a close) leaves in
// one go: the client never sees the answer without what follows it.
func corked(c net.Conn, write func()) {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		write()
		return
	}
	cork := func(on int) {
		rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_CORK, on) })
	}
	cork(1)
	write()
	cork(0)
}

// open is the number of connections the server holds.
func (s *faultServer) open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// kill closes the listener and every connection, as a crashed server would.
func (s *faultServer) kill() {
	s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *faultServer) serve(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			return
		}
		path := f[1]
		closeReq := false
		for {
			h, err := br.ReadString('\n')
			if err != nil {
				return
			}
			if strings.EqualFold(strings.TrimSpace(h), "connection: close") {
				closeReq = true
			}
			if h == "\r\n" {
				break
			}
		}
		ok := func(status string, body string) {
			fmt.Fprintf(c, "HTTP/1.1 %s\r\nContent-Length: %d\r\nContent-Type: text/plain\r\n\r\n%s", status, len(body), body)
		}
		switch path {
		case "/ok":
			ok("200 OK", body1k)
			if n := s.answered.Add(1); n == s.killAfter.Load() {
				go s.killOnce.Do(s.kill)
			}
		case "/chunked":
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n%s\r\n0\r\n\r\n", body1k)
		case "/eof-body":
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\n\r\n%s", body1k)
			return
		case "/ka-close":
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
			return
		case "/idle-close":
			// Keep-alive as far as the headers say, but the server drops the
			// connection once idle (Apache's KeepAliveTimeout). The close
			// leaves with the answer (corked), so it is there before the
			// client can send again, however busy the machine.
			corked(c, func() { ok("200 OK", "ok"); c.Close() })
			return
		case "/linger-close":
			// Apache event's close of a kept connection when its workers are
			// busy: it shuts down its side after the answer, and then reads
			// and throws away what comes (lingering) without answering.
			corked(c, func() {
				ok("200 OK", "ok")
				if cw, ok := c.(interface{ CloseWrite() error }); ok {
					cw.CloseWrite()
				}
			})
			c.SetReadDeadline(time.Now().Add(3 * time.Second))
			io.Copy(io.Discard, c)
			return
		case "/extra":
			// An answer followed by bytes nobody asked for, in one write.
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA")
		case "/301":
			ok("301 Moved Permanently", "")
		case "/404":
			ok("404 Not Found", "no")
		case "/503":
			ok("503 Service Unavailable", "busy")
		case "/600":
			ok("600 Odd", "")
		case "/short":
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: 1024\r\n\r\n%s", body1k[:500])
			return
		case "/reset":
			c.(*net.TCPConn).SetLinger(0) // close sends RST
			return
		case "/close":
			return
		case "/garbage":
			fmt.Fprintf(c, "SPDY/9 banana\r\n\r\n")
			return
		case "/slow":
			time.Sleep(250 * time.Millisecond)
			ok("200 OK", "slow")
		case "/stall":
			// Never answer; the connection ends when the client gives up
			// (a read timeout closes it), so a test can wait for that.
			s.stalled.Add(1)
			io.Copy(io.Discard, c)
			return
		case "/stall-once":
			// The first request stalls the whole server for stallDur: every
			// response due during the stall waits until it ends.
			s.stallOnce.Do(func() { s.stallEnd = time.Now().Add(s.stallDur) })
			if d := time.Until(s.stallEnd); d > 0 {
				time.Sleep(d)
			}
			ok("200 OK", "ok")
		default:
			ok("404 Not Found", "")
		}
		if closeReq {
			return
		}
	}
}
