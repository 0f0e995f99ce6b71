package benchgen

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/bench/testsrv"
	"github.com/wptest/wptest/internal/testenv"
)

// BenchmarkVersusH2load measures benchgen's client CPU per request for h2
// (TLS + ALPN), h2c and h3 against h2load (Debian's nghttp2-client) on the
// same server in one run: Debian's Caddy pinned to core 0, every client
// pinned to core 1, 50 connections, one request in flight on each (h2load
// -m 1, as benchgen's visitors), a 1 KB file, in rounds of a Williams design
// (as BenchmarkVersusWrkAndAB). Debian 12's h2load is built without QUIC
// (no ngtcp2/nghttp3), so h3 is held against h2load's h2 on the same
// server (what the nearest C tool costs per request; QUIC's own cost, user
// space crypto and a datagram per packet, is part of the ratio) and against
// quic-go's own HTTP/3 client with nothing around it (what benchgen adds to
// the library it stands on). Ratios: the geometric mean of the per-round
// ratios with a 95% interval (from 6 rounds on); bar 1.3x, reported.
//
//	go test -run '^$' -bench VersusH2load -benchtime 12x -timeout 60m ./bench/benchgen/ -args -versus.round=2s
func BenchmarkVersusH2load(b *testing.B) {
	testenv.NeedBinary(b, "h2load")
	testenv.NeedBinary(b, "taskset")
	if runtime.NumCPU() < 2 {
		b.Skip("needs two cores: server on one, client on the other")
	}
	s := testsrv.StartCaddyWith(b, testsrv.CaddyOptions{CPUs: "0", NoEncode: true})
	tlsURL := s.TLSURL(testsrv.Small)
	h2cURL := "http://127.0.0.1:" + strconv.Itoa(s.HTTPPort) + testsrv.Small
	secs := roundSecs(b)
	ca := "BENCHGEN_CA=" + s.RootCA()
	ours := func(name, u, proto string, env ...string) *benchTool {
		return &benchTool{name: name, run: func() toolRun {
			return runBenchgen(b, u, secs, append(env, "BENCHGEN_PROTO="+proto, ca)...)
		}}
	}
	h2 := ours("benchgen-h2", tlsURL, "h2")
	h2c := ours("benchgen-h2c", h2cURL, "h2c")
	h3 := ours("benchgen-h3", tlsURL, "h3")
	quicgo := ours("quic-go-h3", tlsURL, "h3", "BENCHGEN_BARE=h3")
	h2load := &benchTool{name: "h2load-h2", run: func() toolRun { return runH2load(b, tlsURL, secs) }}
	h2loadC := &benchTool{name: "h2load-h2c", run: func() toolRun { return runH2load(b, h2cURL, secs) }}
	tools := []*benchTool{h2, h2load, h2c, h2loadC, h3, quicgo}
	inRounds(b, s.Pid(), tools)
	for _, c := range []struct {
		a, ref *benchTool
		unit   string
	}{
		{h2, h2load, "h2-cpu/h2load"},
		{h2c, h2loadC, "h2c-cpu/h2load"},
		{h3, h2load, "h3-cpu/h2load-h2"},
		{h3, quicgo, "h3-cpu/quic-go"},
	} {
		v := perRound(c.a, c.ref, cpu)
		reportRatio(b, v, c.unit)
		reportBar(b, v, c.unit, fmt.Sprintf("caddy: %s's client CPU per request ÷ %s's", c.a.name, c.ref.name))
	}
	reportRatio(b, perRound(h2, h2load, rps), "h2-rps/h2load")
	reportRatio(b, perRound(h2c, h2loadC, rps), "h2c-rps/h2load")
	reportRatio(b, perRound(h3, h2load, rps), "h3-rps/h2load-h2")
	reportTools(b, "caddy", tools)
}

// runH2load runs h2load on core 1: 50 connections, one stream each.
func runH2load(b *testing.B, u string, secs int) toolRun {
	args := []string{"h2load", "-t1", "-c50", "-m1", "-D", strconv.Itoa(secs)}
	if len(u) > 5 && u[:5] == "https" {
		args = append(args, "--npn-list=h2")
	}
	c := pinned(append(args, u)...)
	out, err := c.CombinedOutput()
	if err != nil {
		b.Fatalf("h2load: %v\n%s", err, out)
	}
	rps := grepFloat(b, out, `finished in [\d.]+m?s, ([\d.]+) req/s`)
	n := grepFloat(b, out, `(\d+) succeeded`)
	if n == 0 {
		b.Fatalf("h2load: no answer:\n%s", out)
	}
	if failed := grepFloat(b, out, `(\d+) failed`); failed > 0 {
		b.Logf("h2load: %.0f failed of %.0f", failed, failed+n)
	}
	return toolRun{rps: rps, answered: n, cpuUsPerReq: float64(procCPU(c).Microseconds()) / n, clientCPU: procCPU(c)}
}

func rootsFrom(file string) (*x509.CertPool, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("%s: no PEM certificate", file)
	}
	return p, nil
}

// bareH3 is quic-go's HTTP/3 client with nothing around it, for
// BenchmarkVersusH2load: each visitor dials one QUIC connection as
// benchgen's h3 visitor does and sends requests on it for cfg.Duration,
// reading each body, with no timing, histogram or accounting; only 2xx
// answers and failures are counted (a failure ends the visitor).
func bareH3(cfg Config) (result.Run, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return result.Run{}, err
	}
	raddr, err := net.ResolveUDPAddr("udp", u.Host)
	if err != nil {
		return result.Run{}, err
	}
	tc := &tls.Config{ServerName: u.Hostname(), RootCAs: cfg.RootCAs, NextProtos: []string{http3.NextProtoH3}}
	var ok, failed atomic.Int64
	var first atomic.Pointer[string] // the first failure's message
	start := time.Now()
	end := start.Add(cfg.Duration)
	var wg sync.WaitGroup
	for range cfg.Visitors {
		wg.Go(func() {
			fail := func(err error) {
				failed.Add(1)
				msg := err.Error()
				first.CompareAndSwap(nil, &msg)
			}
			udp, err := net.ListenUDP("udp", nil)
			if err != nil {
				fail(err)
				return
			}
			tr := &quic.Transport{Conn: udp}
			defer tr.Close()
			qc, err := tr.Dial(context.Background(), raddr, tc, &quic.Config{MaxIdleTimeout: time.Minute})
			if err != nil {
				fail(err)
				return
			}
			defer qc.CloseWithError(0, "")
			cc := (&http3.Transport{DisableCompression: true}).NewClientConn(qc)
			for time.Now().Before(end) {
				req, _ := http.NewRequest(http.MethodGet, cfg.URL, nil)
				resp, err := cc.RoundTrip(req)
				if err != nil {
					fail(err)
					return
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode/100 != 2 {
					fail(errors.Join(err, fmt.Errorf("status %d", resp.StatusCode)))
					return
				}
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	n := ok.Load()
	r := result.Run{Attempts: n + failed.Load(), Outcomes: result.Outcomes{OK: n, OtherError: failed.Load()},
		RPS: float64(n) / time.Since(start).Seconds()}
	if msg := first.Load(); msg != nil {
		r.Errors = []result.ErrorSample{{Outcome: "other_error", Message: *msg, Count: failed.Load()}}
	}
	return r, nil
}
