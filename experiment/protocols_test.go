package experiment

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/hostmanifest"
	"github.com/wptest/wptest/results"
)

// Whether a server speaks a protocol is what it answers, not what its
// profile declares: against a real Caddy that serves h1 only (declared to
// serve h1, h2 and h3) and one that serves all three (declared h1 only),
// the protocol check follows the request both ways, and so does the post's
// "speaks HTTP/1.1 only" claim.
func TestProtocolFollowsTheRequest(t *testing.T) {
	testenv.Integration(t)
	caddy := testenv.NeedBinary(t, "caddy")
	testenv.NeedBinary(t, "openssl")
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if out, err := exec.Command("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
		"-nodes", "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
		"-keyout", key, "-out", cert).CombinedOutput(); err != nil {
		t.Fatalf("openssl: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.js"), []byte("let x = 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h1only := startCaddy(t, caddy, dir, "h1only", "h1", cert, key)
	all := startCaddy(t, caddy, dir, "all", "h1 h2 h3", cert, key)
	declares := func(ps ...string) *hostmanifest.Manifest {
		return &hostmanifest.Manifest{Profile: "p", Server: &provision.Server{Protocols: ps}}
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		port     int
		declared *hostmanifest.Manifest
		proto    string
		want     string // in the reason ("": served)
	}{
		{"declares h2, serves h1 only", h1only, declares("h1", "h2", "h3"), "h2", "the server refused it in ALPN (remote error: tls: no application protocol)"},
		{"declares h3, serves h1 only", h1only, declares("h1", "h2", "h3"), "h3", "did not answer the QUIC handshake"},
		{"declares h1 only, serves h2", all, declares("h1"), "h2", ""},
		{"declares h1 only, serves h3", all, declares("h1"), "h3", ""},
		{"over h1 nothing is asked", h1only, declares("h2"), "h1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log strings.Builder
			r := &runner{sp: &Spec{HTTPSPort: tc.port, HTTPPort: tc.port}, srv: &server{addr: "127.0.0.1"}, lg: inProcessLoad{}, opt: Options{Log: &log}}
			sc := results.Scenario{Name: "s", Kind: "static", Path: "/x.js", Proto: tc.proto}
			got := r.notServed(ctx, tc.declared, sc)
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Fatalf("notServed = %q, want %q", got, tc.want)
			}
			if tc.proto != "h1" && !strings.Contains(log.String(), "declares") {
				t.Errorf("the declaration that the request contradicts is not logged: %q", log.String())
			}
			// The claim reads what the request found.
			rec := results.Record{Point: results.Point{Key: "k", Column: "cpanel-apache", Scenario: "s", Step: "c=10"}, NotApplicable: got}
			if got == "" {
				rec.Set = result.Set{Run: &result.Run{Attempts: 10, Outcomes: result.Outcomes{OK: 10}}}
			}
			m := &results.Manifest{Columns: []results.Column{{ID: "cpanel-apache", Enabled: true}}, Scenarios: []results.Scenario{sc},
				Claims: []results.Claim{{ID: "only-h1", Scenario: "s", Visitors: 10, Metric: "served", Unit: "yes/no",
					Published: []results.Figure{{Term: "cpanel-apache", Text: "no", Value: 0}}}}}
			v := results.EvaluateClaims(m, []results.Record{rec})[0]
			if want := map[bool]string{true: results.Holds, false: results.Differs}[got != ""]; v.Verdict != want {
				t.Errorf("\"speaks HTTP/1.1 only\" reads %s (%s), want %s", v.Verdict, v.How, want)
			}
		})
	}
}

// startCaddy runs Caddy with TLS on a free TCP+UDP port serving dir with
// protocols protos, and waits until it answers over TCP.
func startCaddy(t *testing.T, caddy, dir, name, protos, cert, key string) int {
	t.Helper()
	port := testenv.FreeUDPAndTCPPort(t)
	conf := filepath.Join(dir, name+".Caddyfile")
	src := "{\n\tadmin off\n\tskip_install_trust\n\tauto_https off\n\tservers {\n\t\tprotocols " + protos + "\n\t}\n}\n" +
		"https://127.0.0.1:" + strconv.Itoa(port) + " {\n\ttls " + cert + " " + key + "\n\troot * " + dir + "\n\tfile_server\n}\n"
	if err := os.WriteFile(conf, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(caddy, "run", "--config", conf, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	logf, _ := os.Create(filepath.Join(dir, name+".log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	testenv.WaitFor(t, 30*time.Second, "caddy "+name+" listening", func() bool {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return port
}

// The load goes to the port the live profile's server block declares for
// the scenario's protocol; a profile that declares none is reached on the
// experiment's ports.
func TestURLUsesDeclaredPorts(t *testing.T) {
	r := &runner{sp: &Spec{HTTPPort: 80, HTTPSPort: 443}, srv: &server{addr: "2001:db8::1"}}
	for _, c := range []struct {
		ports map[string]int
		proto string
		want  string
	}{
		{nil, "h1", "http://[2001:db8::1]:80/x"},
		{nil, "h3", "https://[2001:db8::1]:443/x"},
		{map[string]int{"http": 8080, "https": 8443}, "h1", "http://[2001:db8::1]:8080/x"},
		{map[string]int{"http": 8080, "https": 8443}, "h2c", "http://[2001:db8::1]:8080/x"},
		{map[string]int{"http": 8080, "https": 8443}, "h2", "https://[2001:db8::1]:8443/x"},
		{map[string]int{"http": 8080}, "h2", "https://[2001:db8::1]:443/x"},
	} {
		r.srv.ports = c.ports
		if got := r.url("/x", c.proto); got != c.want {
			t.Errorf("ports %v, %s: %s, want %s", c.ports, c.proto, got, c.want)
		}
	}
}

// Only an answer in another protocol, a refusal in ALPN or a QUIC
// handshake nobody answers says "no": a server that is down, or one that
// answered in the protocol but badly, says nothing of the protocol.
func TestNotAnsweredIn(t *testing.T) {
	for _, tc := range []struct {
		proto string
		o     result.Outcomes
		msg   string
		want  string
	}{
		{"h2", result.Outcomes{OK: 1}, "", ""},
		{"h2", result.Outcomes{ProtocolError: 1}, `malformed response: the server chose "" in ALPN, not h2`, "answered in another protocol"},
		{"h2", result.Outcomes{ProtocolError: 1}, "malformed response: h2 frame too large", ""},
		{"h2", result.Outcomes{ConnectRefused: 1}, "connect: connection refused", ""},
		{"h2", result.Outcomes{ConnectError: 1}, "remote error: tls: no application protocol", "refused it in ALPN"},
		{"h2", result.Outcomes{ConnectError: 1}, "tls: server selected unadvertised ALPN protocol", "answered in another protocol"},
		{"h2", result.Outcomes{ConnectError: 1}, "tls: failed to verify certificate", ""},
		{"h2", result.Outcomes{ReadTimeout: 1}, "timeout", ""},
		{"h3", result.Outcomes{ConnectRefused: 1}, "connection refused", "refused the connection"},
		{"h3", result.Outcomes{ConnectTimeout: 1}, "timeout: no recent network activity", "did not answer the QUIC handshake"},
		{"h2", result.Outcomes{ConnectTimeout: 1}, "i/o timeout", ""},
	} {
		got := notAnsweredIn(tc.proto, tc.o, tc.msg)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s %+v %q: %q, want %q", tc.proto, tc.o, tc.msg, got, tc.want)
		}
	}
}
