// Package h3probe makes one HTTP/3 request with quic-go, the client wptest
// builds in because Debian 12's curl and h2load cannot speak HTTP/3. Server
// profiles use it (through `wptest h3probe`) to prove that a server really
// answers over QUIC.
package h3probe

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// Options configure a probe.
type Options struct {
	// ServerName is the TLS SNI. It must be set when the URL's host is an IP:
	// Go sends no SNI for an IP address, and Caddy then fails the QUIC
	// handshake ("tls: internal error"; research/feasibility.md §6).
	ServerName string
	// CAFile is a PEM file of certificates to trust (e.g. the host's
	// self-signed certificate). Empty = the system roots.
	CAFile string
	// Header is sent with the request (e.g. Accept-Encoding).
	Header http.Header
	// Timeout bounds the whole request; 0 = 10s.
	Timeout time.Duration
	// MaxBody bounds the body read; 0 = 16 MiB.
	MaxBody int64
}

// Result is what the server answered.
type Result struct {
	Proto  string      `json:"proto"`
	Status int         `json:"status"`
	Header http.Header `json:"header"`
	Body   []byte      `json:"-"`
}

// Get fetches rawURL over HTTP/3.
func Get(ctx context.Context, rawURL string, opt Options) (Result, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return Result{}, fmt.Errorf("h3probe: %w", err)
	}
	if u.Scheme != "https" {
		return Result{}, fmt.Errorf("h3probe: %s: HTTP/3 needs an https URL", rawURL)
	}
	tlsConf := &tls.Config{ServerName: opt.ServerName, MinVersion: tls.VersionTLS13}
	if tlsConf.ServerName == "" {
		tlsConf.ServerName = u.Hostname()
	}
	if opt.CAFile != "" {
		pem, err := os.ReadFile(opt.CAFile)
		if err != nil {
			return Result{}, fmt.Errorf("h3probe: CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return Result{}, fmt.Errorf("h3probe: CA file %s holds no PEM certificate", opt.CAFile)
		}
		tlsConf.RootCAs = pool
	}
	timeout := opt.Timeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	tr := &http3.Transport{
		TLSClientConfig:    tlsConf,
		QUICConfig:         &quic.Config{HandshakeIdleTimeout: timeout},
		DisableCompression: true, // report the bytes as sent
	}
	defer tr.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return Result{}, fmt.Errorf("h3probe: %w", err)
	}
	for k, vs := range opt.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return Result{}, fmt.Errorf("h3probe: GET %s over HTTP/3 (SNI %q): no answer within %s", rawURL, tlsConf.ServerName, timeout)
		}
		return Result{}, fmt.Errorf("h3probe: GET %s over HTTP/3 (SNI %q): %w", rawURL, tlsConf.ServerName, err)
	}
	defer resp.Body.Close()
	limit := opt.MaxBody
	if limit == 0 {
		limit = 16 << 20
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return Result{}, fmt.Errorf("h3probe: read body of %s: %w", rawURL, err)
	}
	return Result{Proto: resp.Proto, Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}
