package benchgen

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// tlsAlert is a TLS 1.3 close_notify record on the wire: a 5-byte header,
// the 2-byte alert and its content type, and a 16-byte AEAD tag.
const tlsAlert = 24

// The bytes a run records (Bytes.WireIn and WireOut, what results judges a
// load generator's link on) are what crossed its sockets, TLS records
// included, as the server counts them beneath its TLS, to the byte but for
// the close_notify alerts either side sends as it closes a connection,
// which the other may close before reading (and the client's own at the
// end of a run, after its last attempt): each direction differs from the
// server's count by whole alerts, at most one per connection.
func TestRecordedWireBytesAreWhatCrossed(t *testing.T) {
	page := strings.Repeat("x", 20<<10)
	for _, c := range []struct {
		proto     string
		keepAlive bool
	}{{"h1", true}, {"h1", false}, {"h2", true}, {"h2", false}} {
		name := c.proto + map[bool]string{true: " keep-alive", false: " no keep-alive"}[c.keepAlive]
		t.Run(name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			cl := &countingListener{Listener: ln}
			cert, _ := testCert()
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(page)) }),
				TLSConfig: &tls.Config{Certificates: cert, NextProtos: []string{"h2", "http/1.1"}}}
			go srv.ServeTLS(cl, "", "")
			defer srv.Close()
			r, err := Run(context.Background(), Config{URL: "https://" + ln.Addr().String() + "/", Proto: c.proto, Insecure: true,
				Visitors: 3, Requests: 60, KeepAlive: c.keepAlive, Timeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if r.Outcomes.OK != 60 || r.Bytes.Body != 60*int64(len(page)) {
				t.Fatalf("%+v, %d body bytes %v", r.Outcomes, r.Bytes.Body, r.Errors)
			}
			// Run returns after closing its connections; the server's
			// counts are final once it has seen every close.
			done := make(chan struct{})
			go func() { cl.wg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatal("server connections still open a minute after the run")
			}
			in, out := cl.in.Load(), cl.out.Load()
			for _, d := range []struct {
				what           string
				client, server int64
			}{{"sent (the server read)", r.Bytes.WireOut, in}, {"received (the server wrote)", r.Bytes.WireIn, out}} {
				if diff := d.client - d.server; diff%tlsAlert != 0 || diff > r.Connections*tlsAlert || -diff > r.Connections*tlsAlert {
					t.Errorf("the client recorded %d bytes %s %d, over %d connections: not whole close_notify alerts apart", d.client, d.what, d.server, r.Connections)
				}
			}
			t.Logf("%s: client in/out %d/%d, server wrote/read %d/%d, %d connections", name, r.Bytes.WireIn, r.Bytes.WireOut, out, in, r.Connections)
		})
	}
}
