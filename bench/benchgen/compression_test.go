package benchgen

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/testsrv"
)

// countingListener counts every byte the server reads and writes on its
// connections: the server's own view of the wire.
type countingListener struct {
	net.Listener
	in, out atomic.Int64
	wg      sync.WaitGroup
}

type srvConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
	io   sync.RWMutex // held (read) by reads and writes in flight: counted before Close reports
}

func (c *srvConn) Read(p []byte) (int, error) {
	c.io.RLock()
	defer c.io.RUnlock()
	n, err := c.Conn.Read(p)
	c.l.in.Add(int64(n))
	return n, err
}

// Write is counted before Close says the connection is done: HTTP/2's
// server writes frames from another goroutine than the one that closes,
// and the client may have read a frame whose write has not returned yet.
func (c *srvConn) Write(p []byte) (int, error) {
	c.io.RLock()
	defer c.io.RUnlock()
	n, err := c.Conn.Write(p)
	c.l.out.Add(int64(n))
	return n, err
}

func (c *srvConn) Close() error {
	err := c.Conn.Close() // in-flight reads and writes return now
	c.once.Do(func() {
		go func() { c.io.Lock(); c.io.Unlock(); c.l.wg.Done() }() // writes after this write nothing
	})
	return err
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.wg.Add(1)
	return &srvConn{Conn: c, l: l}, nil
}

// Bytes on the wire, measured at the client's connection, must equal what the
// server wrote and read, for h1 and h2c, with a gzip-compressed stylesheet.
func TestCompressionBytesOnWireMatchServer(t *testing.T) {
	var sb strings.Builder
	for i := 0; sb.Len() < 140<<10; i++ {
		fmt.Fprintf(&sb, ".c%d{color:#%06x;margin:%dpx %dpx}\n", i, i*2654435761%0xffffff, i%17, i%5)
	}
	css := sb.String() // ~140 KB, compresses about 5x
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write([]byte(css))
	zw.Close()
	for _, proto := range []string{"h1", "h2c"} {
		t.Run(proto, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			cl := &countingListener{Listener: ln}
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/css")
				if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
					w.Header().Set("Content-Encoding", "gzip")
					w.Write(gz.Bytes())
					return
				}
				w.Write([]byte(css))
			}), Protocols: new(http.Protocols)}
			srv.Protocols.SetHTTP1(true)
			srv.Protocols.SetUnencryptedHTTP2(true)
			go srv.Serve(cl)
			defer srv.Close()
			r, err := Run(context.Background(), Config{URL: "http://" + ln.Addr().String() + "/style.css", Proto: proto,
				Header: []string{AcceptGzip}, Visitors: 2, Requests: 40, KeepAlive: true})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariant(t, r)
			// Run returns after closing its connections; let the server see the closes.
			done := make(chan struct{})
			go func() { cl.wg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatal("server connections still open a minute after the run")
			}
			if r.Outcomes.OK != 40 {
				t.Fatalf("%+v %v", r.Outcomes, r.Errors)
			}
			if r.Bytes.Body != 40*int64(gz.Len()) {
				t.Fatalf("body bytes %d, want 40 × %d compressed bytes", r.Bytes.Body, gz.Len())
			}
			// The connections are closed, so the server's counters are final.
			if r.Bytes.WireIn != cl.out.Load() || r.Bytes.WireOut != cl.in.Load() {
				t.Fatalf("client wire in/out %d/%d, server wrote/read %d/%d", r.Bytes.WireIn, r.Bytes.WireOut, cl.out.Load(), cl.in.Load())
			}
			t.Logf("%s: %d bytes on the wire per answer for %d compressed (%d plain); server agrees to the byte",
				proto, r.Bytes.WireIn/40, gz.Len(), len(css))
		})
	}
}

// Against Caddy's encode gzip, the stylesheet travels compressed: the wire
// carries a fraction of the file, and the same request without the header
// carries all of it.
func TestCompressionAgainstCaddy(t *testing.T) {
	s := testsrv.StartCaddy(t)
	u := "http://127.0.0.1:" + itoa(s.HTTPPort) + testsrv.CSS
	plain, err := Run(context.Background(), Config{URL: u, Visitors: 1, Requests: 10, KeepAlive: true})
	if err != nil {
		t.Fatal(err)
	}
	comp, err := Run(context.Background(), Config{URL: u, Header: []string{AcceptGzip}, Visitors: 1, Requests: 10, KeepAlive: true})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, plain)
	checkInvariant(t, comp)
	if plain.Outcomes.OK != 10 || comp.Outcomes.OK != 10 {
		t.Fatalf("plain %+v comp %+v", plain.Outcomes, comp.Outcomes)
	}
	pw, cw := plain.Bytes.WireIn/10, comp.Bytes.WireIn/10
	if pw < 140<<10 || cw*3 > pw {
		t.Fatalf("wire per answer: plain %d, gzip %d", pw, cw)
	}
	t.Logf("style.css on the wire: %d bytes plain, %d gzip (%.1fx)", pw, cw, float64(pw)/float64(cw))
}
