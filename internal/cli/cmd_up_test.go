package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/h3probe"
	"github.com/wptest/wptest/internal/testenv"
)

// upJSON is the part of `up -o json` / `swap -o json` the test reads.
type upJSON struct {
	Previous string `json:"previous_profile"`
	Agent    string `json:"agent"`
	Report   struct {
		Profile  string `json:"profile"`
		Platform string `json:"platform"`
		Changes  int    `json:"changes"`
		Checks   []struct {
			ID     string `json:"id"`
			Passed bool   `json:"passed"`
			Error  string `json:"error"`
		} `json:"checks"`
	} `json:"report"`
	Manifest *struct {
		Profile    string            `json:"profile"`
		Previous   string            `json:"previous_profile"`
		Deviations []string          `json:"deviations"`
		Versions   map[string]string `json:"versions"`
		Apache     *struct {
			MPM     string   `json:"mpm"`
			Modules []string `json:"modules"`
		} `json:"apache"`
	} `json:"manifest"`
}

// The checks each profile must have run and passed: they are the proof that
// the profile is what its name says (a profile that silently dropped one
// would fail here).
var wantChecks = map[string][]string{
	"tuned-apache":  {"check.wordpress_page", "check.server_header", "check.mpm_event", "check.php_fpm_opcache_site_user", "check.css_gzip", "check.h2_alpn", "check.h2c", "check.server_status"},
	"cpanel-apache": {"check.wordpress_page", "check.server_header", "check.mpm_prefork", "check.php_cgi_no_opcache_site_user", "check.php_process_per_request", "check.css_not_compressed", "check.tls_http11", "check.no_http2", "check.server_status"},
	"caddy":         {"check.wordpress_page", "check.server_header", "check.php_fpm_opcache_site_user", "check.css_precompressed_header", "check.css_precompressed_bytes", "check.h2_alpn", "check.h2c", "check.h3"},
}

// TestUpSwapChain drives the real servers of this machine over a real
// OpenSSH sshd on loopback, the way a user drives a remote host:
// up tuned-apache -> swap cpanel-apache -> swap caddy -> swap tuned-apache,
// every step's checks passing, then a repeated up reporting 0 changes; the
// Debian host manifest lists no uid-switching deviation (mod_ruid2 is built
// from its pinned source); corehttpd without its
// package source is refused before anything changes. Ports 8080/8443.
func TestUpSwapChain(t *testing.T) {
	testenv.NeedRoot(t)
	for _, b := range []string{"apache2ctl", "php-cgi8.2", "php-fpm8.2", "caddy", "curl", "openssl", "go"} {
		testenv.NeedBinary(t, b)
	}
	ruid2 := "file://" + testenv.Ruid2Source(t)
	testenv.LockLocalServer(t)

	// The agent: the real wptest binary (the test binary cannot stand in
	// for it), which the caddy profile's h3 check runs on the host.
	agent := filepath.Join(t.TempDir(), "wptest")
	if out, err := exec.Command("go", "build", "-o", agent, "github.com/wptest/wptest/cmd/wptest").CombinedOutput(); err != nil {
		t.Fatalf("go build wptest: %v\n%s", err, out)
	}
	sshd := testenv.SSHD(t)
	ctx := context.Background()
	conn := []string{"--target", sshd.Target, "--known-hosts", sshd.KnownHostsFile, "--identity", sshd.IdentityFile}
	ports := []string{"-var", "http_port=8080", "-var", "https_port=8443"}

	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := Run(ctx, &App{Args: args, Stdout: &stdout, Stderr: &stderr})
		return code, stdout.String(), stderr.String()
	}
	step := func(verb, profile string) (upJSON, time.Duration) {
		t.Helper()
		args := append(append([]string{verb, "--profile", profile, "--agent", agent, "-o", "json"}, conn...), ports...)
		if profile == "cpanel-apache" {
			args = append(args, "-var", "ruid2_source_url="+ruid2)
		}
		start := time.Now()
		code, out, errOut := run(args...)
		took := time.Since(start)
		if code != 0 {
			t.Fatalf("wptest %s --profile %s: exit %d\nstderr:\n%s\nstdout:\n%s", verb, profile, code, errOut, out)
		}
		var res upJSON
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("wptest %s -o json: %v\n%s", verb, err, out)
		}
		if res.Report.Profile != profile || res.Report.Platform != "debian-12" {
			t.Fatalf("%s: report is for %s on %s", verb, res.Report.Profile, res.Report.Platform)
		}
		passed := map[string]bool{}
		for _, c := range res.Report.Checks {
			if !c.Passed {
				t.Errorf("%s %s: check %s did not pass: %s", verb, profile, c.ID, c.Error)
			}
			passed[c.ID] = c.Passed
		}
		for _, id := range wantChecks[profile] {
			if !passed[id] {
				t.Errorf("%s %s: check %s missing or failed", verb, profile, id)
			}
		}
		if res.Manifest == nil || res.Manifest.Profile != profile {
			t.Fatalf("%s %s: no host manifest for it in the output", verb, profile)
		}
		t.Logf("%-4s %-13s %6.1fs  %2d changes  %d checks passed  (agent: %s)", verb, profile, took.Seconds(), res.Report.Changes, len(res.Report.Checks), res.Agent)
		return res, took
	}

	var timings []string
	record := func(what string, d time.Duration) {
		timings = append(timings, what+" "+d.Round(100*time.Millisecond).String())
	}

	res, d := step("up", "tuned-apache")
	record("up tuned-apache", d)

	res, d = step("swap", "cpanel-apache")
	record("swap cpanel-apache", d)
	if res.Manifest.Previous != "tuned-apache" {
		t.Errorf("manifest after swap to cpanel-apache: previous_profile %q, want tuned-apache", res.Manifest.Previous)
	}
	if containsSub(res.Manifest.Deviations, "uid") || containsSub(res.Manifest.Deviations, "mod_ruid2") {
		t.Errorf("Debian host manifest lists a uid-switching deviation: %q", res.Manifest.Deviations)
	}
	if res.Manifest.Apache == nil || res.Manifest.Apache.MPM != "prefork" || !containsSub(res.Manifest.Apache.Modules, "ruid2_module") || containsSub(res.Manifest.Apache.Modules, "mpm_itk_module") || containsSub(res.Manifest.Apache.Modules, "http2_module") {
		t.Errorf("manifest's Apache: %+v, want prefork with mod_ruid2, without mpm_itk and http2", res.Manifest.Apache)
	}
	for _, k := range []string{"apache", "php_cgi", "php_fpm", "caddy", "mariadb"} {
		if res.Manifest.Versions[k] == "" {
			t.Errorf("manifest has no %s version: %v", k, res.Manifest.Versions)
		}
	}

	_, d = step("swap", "caddy")
	record("swap caddy", d)
	// Beyond the profile's own checks: HTTP/3 from here, through the same
	// client, and Apache really gone (Caddy now owns the port).
	r3, err := h3probe.Get(ctx, "https://127.0.0.1:8443/wptest-info.php", h3probe.Options{ServerName: "localhost", CAFile: "/etc/wptest/tls/cert.pem"})
	if err != nil || r3.Proto != "HTTP/3.0" || !strings.Contains(string(r3.Body), `"sapi":"fpm-fcgi"`) {
		t.Errorf("h3 after swap to caddy: %v %+v %s", err, r3.Proto, r3.Body)
	}
	if out, _ := exec.Command("sh", "-c", "/usr/local/lib/wptest/wptest-svc apache2 status && echo running || echo stopped").Output(); strings.TrimSpace(string(out)) != "stopped" {
		t.Errorf("apache2 still running after the swap to caddy")
	}

	_, d = step("swap", "tuned-apache")
	record("swap tuned-apache", d)
	if out, _ := exec.Command("sh", "-c", "/usr/local/lib/wptest/wptest-svc caddy status && echo running || echo stopped").Output(); strings.TrimSpace(string(out)) != "stopped" {
		t.Errorf("caddy still running after the swap back to tuned-apache")
	}

	res, d = step("up", "tuned-apache")
	record("up tuned-apache again", d)
	if res.Report.Changes != 0 {
		t.Errorf("repeated up reported %d changes, want 0", res.Report.Changes)
	}

	code, out, errOut := run(append([]string{"status", "-o", "json"}, conn...)...)
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, errOut)
	}
	var st struct {
		Manifest struct {
			Profile string `json:"profile"`
		} `json:"manifest"`
		Running []string `json:"running"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status -o json: %v\n%s", err, out)
	}
	if st.Manifest.Profile != "tuned-apache" || !containsSub(st.Running, "apache2") || containsSub(st.Running, "caddy") {
		t.Errorf("status: profile %q, running %v; want tuned-apache with apache2 and without caddy", st.Manifest.Profile, st.Running)
	}

	// corehttpd without its package: refused before anything is touched.
	before, err := os.ReadFile("/var/lib/wptest/host-manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	code, _, errOut = run(append(append([]string{"up", "--profile", "corehttpd", "--agent", agent}, conn...), ports...)...)
	if code != exitcode.Config {
		t.Errorf("up corehttpd without package_source: exit %d, want %d\n%s", code, exitcode.Config, errOut)
	}
	for _, want := range []string{"nothing was changed", "not publicly available", "-var package_source=", "--profile caddy"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("up corehttpd: message lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "checking") || strings.Contains(errOut, "wptest agent:") {
		t.Errorf("up corehttpd touched the host before refusing:\n%s", errOut)
	}
	after, _ := os.ReadFile("/var/lib/wptest/host-manifest.json")
	if !bytes.Equal(before, after) {
		t.Errorf("up corehttpd changed the host manifest")
	}
	t.Logf("timings: %s", strings.Join(timings, ", "))
}

func containsSub(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
