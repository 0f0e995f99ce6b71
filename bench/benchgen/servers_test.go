package benchgen

import (
	"context"
	"crypto/x509"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/testsrv"
)

// caddyRoots is the pool with Caddy's internal root CA, so the TLS runs verify
// the certificate for real (SNI "localhost") instead of skipping verification.
func caddyRoots(t testing.TB, s *testsrv.Server) *x509.CertPool {
	t.Helper()
	b, err := os.ReadFile(s.RootCA())
	if err != nil {
		t.Fatalf("caddy's root CA: %v\n%s", err, s.Log())
	}
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(b) {
		t.Fatal("caddy's root CA: no PEM certificate")
	}
	return p
}

// h1, h2 (TLS + ALPN), h2c and h3 against Debian's Caddy: every protocol
// gets every answer, verified (a response in another HTTP version would be a
// protocol error), with the same accounting.
func TestProtocolsAgainstCaddy(t *testing.T) {
	s := testsrv.StartCaddy(t)
	roots := caddyRoots(t, s)
	tlsURL := s.TLSURL(testsrv.Small)
	for _, c := range []struct{ proto, url string }{
		{"h1", tlsURL},
		{"h2", tlsURL},
		{"h3", tlsURL},
		{"h2c", "http://127.0.0.1:" + itoa(s.HTTPPort) + testsrv.Small},
		{"h1", "http://127.0.0.1:" + itoa(s.HTTPPort) + testsrv.Small},
	} {
		t.Run(c.proto+"-"+c.url[:5], func(t *testing.T) {
			r, err := Run(context.Background(), Config{URL: c.url, Proto: c.proto, Visitors: 3, Requests: 60,
				KeepAlive: true, RootCAs: roots, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			checkInvariant(t, r)
			if r.Outcomes.OK != 60 || r.Proto != c.proto {
				t.Fatalf("%s: %+v %v", c.proto, r.Outcomes, r.Errors)
			}
			if r.Connections != 3 || r.Bytes.Body != 60*1024 || r.Bytes.WireIn <= r.Bytes.Body {
				t.Fatalf("%s: conns=%d bytes=%+v", c.proto, r.Connections, r.Bytes)
			}
			t.Logf("%s %s: %d ok, connect p50 %.2f ms, latency p50 %.2f ms, wire in %d for %d body bytes",
				c.proto, c.url[:5], r.Outcomes.OK, r.Connect.P50, r.Latency.P50, r.Bytes.WireIn, r.Bytes.Body)
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// The static scenario's target against Debian's nginx (the server the
// comparison benchmark pits benchgen, wrk and ab against): every answer
// whole, one connection per visitor kept alive, and the bytes read from the
// socket equal the answers' headers plus bodies.
func TestStaticAgainstNginx(t *testing.T) {
	s := testsrv.StartNginx(t, testsrv.NginxOptions{})
	const n = 3000
	r, err := Run(context.Background(), Config{URL: s.URL(testsrv.Small), Visitors: 10, KeepAlive: true, Requests: n, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, r)
	if r.Outcomes.OK != n || r.Connections != 10 || r.KeepAliveReqs != n-10 {
		t.Fatalf("ok %d of %d, connections %d, keep-alive requests %d; outcomes %+v errors %+v",
			r.Outcomes.OK, r.Attempts, r.Connections, r.KeepAliveReqs, r.Outcomes, r.Errors)
	}
	if r.Bytes.Body != n*1024 || r.Bytes.WireIn != r.Bytes.Headers+r.Bytes.Body {
		t.Fatalf("body %d (want %d), wire in %d, headers %d", r.Bytes.Body, n*1024, r.Bytes.WireIn, r.Bytes.Headers)
	}
}
