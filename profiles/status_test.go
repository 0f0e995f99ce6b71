package profiles_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/profiles"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/hostmanifest"
)

var statusText = regexp.MustCompile(`(?m)^BusyWorkers: [0-9]+$(?s:.*)^IdleWorkers: [0-9]+$(?s:.*)^Scoreboard: [_SRWKDCLGI.]+$`)

// TestApacheStatusLoopbackOnly applies both Apache profiles on this machine
// (ports 8080/8443) with WordPress's rewrite rules in the docroot: the
// status page wptest samples answers loopback (IPv4, IPv6, TLS) with the
// worker counts, not WordPress's index.php, and refuses a client in another
// network namespace, which still gets the site.
func TestApacheStatusLoopbackOnly(t *testing.T) {
	testenv.NeedRoot(t)
	// This machine's PHP (Debian's phpX.Y-* packages, `make deps`).
	testenv.NeedBinary(t, "php")
	out, err := exec.Command("php", "-r", `echo PHP_MAJOR_VERSION, ".", PHP_MINOR_VERSION;`).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"apache2ctl", "php-cgi" + string(out), "php-fpm" + string(out), "curl", "openssl"} {
		testenv.NeedBinary(t, b)
	}
	ruid2 := "file://" + testenv.Ruid2Source(t)
	ns := testenv.NewNetNS(t)
	testenv.LockLocalServer(t)
	ctx := context.Background()
	h := host.NewLocal(nil)
	facts, err := h.Facts(ctx)
	if err != nil {
		t.Fatal(err)
	}

	for _, name := range []string{"cpanel-apache", "tuned-apache"} {
		t.Run(name, func(t *testing.T) {
			var vars []string
			if name == "cpanel-apache" {
				vars = append(vars, "ruid2_source_url="+ruid2)
			}
			apply(ctx, t, h, name, facts.Platform, vars...)
			ensureWordPressRules(t, "/home/wpsite/public_html/.htaccess")
			client := loopbackClient(t)

			// The rewrite is live: a permalink that is no file reaches
			// index.php (whatever it answers), not Apache's own 404.
			code, body := get(t, client, "http://127.0.0.1:8080/wptest-no-such-permalink/")
			if code == 404 && strings.Contains(body, "The requested URL was not found on this server") {
				t.Fatalf("WordPress's rewrite is not active (Apache's own 404 for a permalink): the status checks below would prove nothing")
			}
			for _, u := range []string{"http://127.0.0.1:8080", "http://[::1]:8080", "https://127.0.0.1:8443"} {
				code, body := get(t, client, u+"/whm-server-status?auto")
				if code != 200 || !statusText.MatchString(body) {
					t.Errorf("%s/whm-server-status?auto from loopback: %d, want 200 with BusyWorkers/IdleWorkers/Scoreboard:\n%.400s", u, code, body)
				}
			}

			// From another address: refused; the site itself answers there.
			base := "http://" + ns.HostIP + ":8080"
			if got := curlIn(t, ns, base+"/wptest-probe.css"); got != "200" {
				t.Fatalf("the namespace cannot reach the site (%s): the refusal below would prove nothing", got)
			}
			for _, p := range []string{"/whm-server-status?auto", "/whm-server-status", "/whm-server-status/x.php"} {
				if got := curlIn(t, ns, base+p); got != "403" {
					t.Errorf("%s from %s: %s, want 403", p, ns.NSIP, got)
				}
			}
		})
	}
}

// apply applies a shipped profile here as `wptest up` does, and records
// it in the host manifest (the experiment runner checks it).
func apply(ctx context.Context, t *testing.T, h host.Host, name, platform string, vars ...string) {
	t.Helper()
	p, diags := provision.Load(profiles.FS, name, provision.Vars{Args: append([]string{"http_port=8080", "https_port=8443"}, vars...)})
	if diags.HasErrors() {
		t.Fatalf("load %s: %v", name, diags)
	}
	r, diags := p.Render(platform)
	if diags.HasErrors() {
		t.Fatalf("render %s: %v", name, diags)
	}
	prev := ""
	m, err := hostmanifest.Read(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	if m != nil {
		prev = m.Profile
	}
	// Whatever server another test left here is stopped first, as `wptest up` does.
	r.Retire(m.Services())
	start := time.Now()
	rep, err := r.Apply(ctx, h, nil)
	if err != nil {
		t.Fatalf("apply %s: %v", name, err)
	}
	if err := hostmanifest.Write(ctx, h, hostmanifest.FromReport(rep, "wptest (profiles test)", prev)); err != nil {
		t.Fatal(err)
	}
	passed := false
	for _, c := range rep.Checks {
		if c.ID == "check.server_status" {
			passed = c.Passed
		}
	}
	if !passed {
		t.Errorf("apply %s: check.server_status missing or failed", name)
	}
	t.Logf("applied %s in %.1fs (%d changes)", name, time.Since(start).Seconds(), rep.Changes)
}

// ensureWordPressRules puts WordPress's rules in the docroot unless they
// are there (a seeded fixture has them), and restores the file afterwards.
func ensureWordPressRules(t *testing.T, path string) {
	t.Helper()
	old, err := os.ReadFile(path)
	if err == nil && bytes.Contains(old, []byte("RewriteRule . /index.php [L]")) {
		return
	}
	existed := err == nil
	if err := os.WriteFile(path, []byte(stage.WordPressHtaccess), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if existed {
			_ = os.WriteFile(path, old, 0o644)
		} else {
			_ = os.Remove(path)
		}
	})
}

// loopbackClient trusts the profiles' self-signed certificate (for localhost).
func loopbackClient(t *testing.T) *http.Client {
	t.Helper()
	pem, err := os.ReadFile("/etc/wptest/tls/cert.pem")
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatal("no certificate in /etc/wptest/tls/cert.pem")
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "localhost"}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func get(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, string(b)
}

// curlIn is the HTTP status a client inside ns gets for url.
func curlIn(t *testing.T, ns *testenv.NetNS, url string) string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "exec", ns.Name, "curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "20", url).CombinedOutput()
	if err != nil {
		t.Fatalf("curl %s in %s: %v %s", url, ns.Name, err, out)
	}
	return strings.TrimSpace(string(out))
}
