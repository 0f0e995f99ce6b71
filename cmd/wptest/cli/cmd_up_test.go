package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/bench/srvstat"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/internal/testenv/baked"
)

// upJSON is the part of `up -o json` / `swap -o json` the test reads.
type upJSON struct {
	Previous  string `json:"previous_profile"`
	Agent     string `json:"agent"`
	Preflight *struct {
		Facts     host.Facts `json:"facts"`
		MemTotal  int64      `json:"mem_total"`
		Disks     []struct{} `json:"disks"`
		SELinux   []struct{} `json:"selinux_ops"`
		Firewalld []struct{} `json:"firewalld_ops"`
	} `json:"preflight"`
	Report struct {
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
		Facts      map[string]string `json:"facts"`
		Server     *struct {
			Services []struct {
				Name    string `json:"name"`
				Restart string `json:"restart"`
			} `json:"services"`
		} `json:"server"`
		Retired []struct {
			Name string `json:"name"`
		} `json:"retired_services"`
		SiteFiles *struct {
			Entries int `json:"entries"`
		} `json:"site_files"`
	} `json:"manifest"`
}

// The checks each profile must have run and passed: they are the proof that
// the profile is what its name says (a profile that silently dropped one
// would fail here).
var wantChecks = map[string][]string{
	"tuned-apache":  {"check.wordpress_page", "check.server_header", "check.mpm_event", "check.php_fpm_opcache_site_user", "check.css_gzip", "check.h2_alpn", "check.h2c", "check.server_status"},
	"cpanel-apache": {"check.wordpress_page", "check.server_header", "check.mpm_prefork", "check.php_cgi_no_opcache_site_user", "check.php_process_per_request", "check.css_not_compressed", "check.tls_http11", "check.no_http2", "check.server_status"},
	"caddy":         {"check.wordpress_page", "check.server_header", "check.php_fpm_opcache_site_user", "check.css_precompressed_header", "check.css_precompressed_bytes", "check.h2_alpn", "check.h2c", "check.h3"},
	"nginx":         {"check.wordpress_page", "check.server_header", "check.php_fpm_opcache_site_user", "check.css_precompressed_header", "check.css_precompressed_bytes", "check.css_identity", "check.h2_alpn", "check.tls_http11"},
}

// upCycle is a bare host driven over SSH as a user drives a Hetzner
// server, with nothing done by hand: wptest's commands in process (run),
// up and swap with the checks every step must pass (step), and the test's
// own looks at the site (page, verifyHTTP, copies, sql).
type upCycle struct {
	hs               []*testenv.BareHost
	conn             []string
	agent, docroot   string
	sh               func(script string) string
	run              func(args ...string) (int, string, string)
	step             func(verb, profile string) (upJSON, time.Duration)
	page, verifyHTTP func(when string)
	copies           func() int
	sql              func(q string)
	record           func(what string, d time.Duration)
	timings          *[]string
}

func newUpCycle(t *testing.T, hs []*testenv.BareHost) *upCycle {
	t.Helper()
	ctx := context.Background()
	conn := []string{"--target", hs[0].Target, "--known-hosts", hs[0].KnownHosts, "--identity", hs[0].Identity}
	tg, err := host.ParseTarget(hs[0].Target)
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Open(ctx, tg, host.Options{KnownHostsFile: hs[0].KnownHosts, IdentityFile: hs[0].Identity})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	sh := func(script string) string {
		t.Helper()
		res, err := h.Run(ctx, host.Cmd{Script: script})
		if err != nil {
			t.Fatalf("on the host: %s: %v", script, err)
		}
		return strings.TrimSpace(string(res.Stdout))
	}
	// The home page: 200 and rendered by the site's theme (a missing theme
	// answers 200 with an empty body).
	page := func(when string) {
		t.Helper()
		if got := sh("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1/"); got != "200" {
			t.Errorf("%s: the home page answers %s, want 200", when, got)
		}
		if got := sh("p=$(curl -s http://127.0.0.1/); echo \"$p\" | grep -q '<title>' && echo \"$p\" | grep -q '/wp-content/themes/twentytwentythree/' && echo themed || echo \"not the theme's: $(echo \"$p\" | wc -c) bytes\""); got != "themed" {
			t.Errorf("%s: the home page is %s", when, got)
		}
	}
	// No internet here: the host gets the pinned mod_ruid2.c from the copy
	// beside the checkout (the profile still checks its SHA-256).
	src, err := os.Open(testenv.Ruid2Source(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if err := h.Put(ctx, "/root/mod_ruid2.c", src, host.PutOptions{Mode: 0o644}); err != nil {
		t.Fatal(err)
	}

	// The agent: the real wptest binary (the test binary cannot stand in
	// for it), which the caddy profile's h3 check runs on the host.
	agent := buildAgent(t)
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := Run(ctx, &App{Args: args, Stdout: &stdout, Stderr: &stderr})
		return code, stdout.String(), stderr.String()
	}
	step := func(verb, profile string) (upJSON, time.Duration) {
		t.Helper()
		args := append([]string{verb, "--profile", profile, "--agent", agent, "-o", "json"}, conn...)
		if profile == "cpanel-apache" {
			args = append(args, "-var", "ruid2_source_url=file:///root/mod_ruid2.c")
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
		if res.Report.Profile != profile || res.Report.Platform != hs[0].Platform {
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
		phpDeviation(t, verb+" "+profile, hs[0].Platform, res.Manifest.Versions["php"], res.Manifest.Deviations)
		// The preflight came first: a fresh Debian host as the test
		// made it, and no SELinux or firewalld op to run on Debian.
		pf := res.Preflight
		if pf == nil || pf.Facts.Platform != hs[0].Platform || pf.Facts.SELinux != "absent" || pf.Facts.Firewalld != "absent" || pf.Facts.Init != "none" ||
			pf.MemTotal <= 0 || len(pf.Disks) == 0 || len(pf.SELinux)+len(pf.Firewalld) != 0 {
			t.Errorf("%s %s: preflight %+v, want %s, SELinux and firewalld absent, no init, memory, disks, no SELinux/firewalld ops", verb, profile, pf, hs[0].Platform)
		}
		if i := strings.Index(errOut, "preflight on "); i < 0 || i > strings.Index(errOut, "wptest agent:") {
			t.Errorf("%s %s: stderr does not start with the preflight before the agent is installed:\n%s", verb, profile, errOut)
		} else if verb == "up" {
			block := errOut[i:]
			if j := strings.Index(block, "\n["); j >= 0 {
				block = block[:j]
			}
			t.Logf("%s %s preflight:\n%s", verb, profile, block)
		}
		t.Logf("%-4s %-13s %6.1fs  %2d changes  %d checks passed  (agent: %s)", verb, profile, took.Seconds(), res.Report.Changes, len(res.Report.Checks), res.Agent)
		return res, took
	}
	var timings []string
	record := func(what string, d time.Duration) {
		timings = append(timings, what+" "+d.Round(100*time.Millisecond).String())
	}
	docroot := "/home/wpsite/public_html"
	// verifyHTTP: the site is the fixture, every page answers, and every
	// entry of the docroot is core's, the seed's or the live profile's.
	verifyHTTP := func(when string) {
		t.Helper()
		t0 := time.Now()
		code, out, errOut := run(append([]string{"verify", "--http", "http://127.0.0.1"}, conn...)...)
		if code != 0 || !strings.HasPrefix(out, "OK minimal seed 1") {
			t.Fatalf("verify --http %s: exit %d\nstdout %s\nstderr %s", when, code, out, errOut)
		}
		if strings.Contains(errOut, "foreign") {
			t.Errorf("verify --http %s lists foreign entries:\n%s", when, errOut)
		}
		record("verify --http "+when, time.Since(t0))
	}
	copies := func() int {
		t.Helper()
		n, _ := strconv.Atoi(sh("find " + docroot + " -name '*.gz' | wc -l"))
		return n
	}
	sql := func(q string) {
		t.Helper()
		sh(". /etc/wptest/site-db.env && mariadb \"$DB_NAME\" -e " + host.Quote(q))
	}

	return &upCycle{hs: hs, conn: conn, agent: agent, docroot: docroot, sh: sh, run: run, step: step,
		page: page, verifyHTTP: verifyHTTP, copies: copies, sql: sql, record: record, timings: &timings}
}

// TestBareHostUpSeedSwap is a new user's first hour on a fresh Debian 12 or
// 13 host (testenv.BareHosts: no systemd, nothing installed; CI makes it
// Debian 13, the release with the post's PHP): the install path of every
// shipped web server profile, each installed by its first up or swap.
// Before any up, seed refuses (no site database) and changes nothing;
// up tuned-apache, then seed and verify with their defaults (the site
// comes from the host manifest; an unreadable image, an added plugin file
// and an edited core file each fail verify by name), the home page 200 and
// themed, a permalink reaching WordPress; swap cpanel-apache (whose
// mod_ruid2 is built from its pinned source, so the manifest lists no
// uid-switching deviation; its sampler exact under prefork + CGI) -> caddy
// (its precompressed copies recorded as the profile's, apache2 stopped) ->
// nginx (the copies kept, caddy and apache2 stopped), `verify --http`
// passing with nothing foreign. Every step's checks pass (a WordPress page
// among them). TestBareHostSwapCycleAndVerify goes on from there on a host
// from the servers' image.
func TestBareHostUpSeedSwap(t *testing.T) {
	t.Parallel() // a host of its own, from the bare rootfs
	testenv.NeedBinary(t, "go")
	c := newUpCycle(t, testenv.BareHosts(t, "web"))
	hs := c.hs
	conn := c.conn
	agent := c.agent
	sh := c.sh
	run := c.run
	step := c.step
	page := c.page
	verifyHTTP := c.verifyHTTP
	copies := c.copies
	record := c.record
	docroot := c.docroot
	// Before any profile, the host declares no site: seed without a
	// password source says where the password comes from and changes nothing.
	if code, out, errOut := run(append([]string{"seed", "--fixture", "minimal"}, conn...)...); code != 2 || !strings.Contains(errOut, "no profile's site database applies here") {
		t.Fatalf("seed before up: exit %d, want 2 naming the missing profile database\nstdout %s\nstderr %s", code, out, errOut)
	}
	if got := sh("ls -A /var/lib/wptest 2>/dev/null | wc -l"); got != "0" {
		t.Fatalf("seed before up left %s entries in /var/lib/wptest", got)
	}

	_, d := step("up", "tuned-apache")
	record("up tuned-apache (bare host)", d)

	// Another docroot is another site: the profile's database is not its
	// default (seeding it would overwrite the live site's rows).
	if code, out, errOut := run(append([]string{"seed", "--fixture", "minimal", "--docroot", "/root/other-site"}, conn...)...); code != 2 || !strings.Contains(errOut, "no profile's site database applies here") {
		t.Fatalf("seed into another docroot without a password: exit %d, want 2\nstdout %s\nstderr %s", code, out, errOut)
	}

	// seed and verify with their defaults: the live profile's site.
	t0 := time.Now()
	code, out, errOut := run(append([]string{"seed", "--fixture", "minimal"}, conn...)...)
	if code != 0 || !strings.Contains(out, ":/home/wpsite/public_html root ") {
		t.Fatalf("seed with defaults: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	record("seed", time.Since(t0))
	if code, out, errOut = run(append([]string{"verify"}, conn...)...); code != 0 || !strings.HasPrefix(out, "OK minimal seed 1") {
		t.Fatalf("verify with defaults: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	// verify names what a visitor would get wrong: each change alone is
	// exit 5 naming its file, and verify passes again once it is undone.
	img := sh("cd " + docroot + " && find wp-content/uploads -type f | LC_ALL=C sort | head -n1")
	for _, c := range []struct{ what, do, undo, names string }{
		{"an image made unreadable", "chmod 0600 " + img, "chmod 0644 " + img, img},
		{"an added plugin file", "echo '<?php' > wp-content/plugins/extra.php", "rm wp-content/plugins/extra.php", "wp-content/plugins/extra.php"},
		{"an edited core file", "cp wp-includes/load.php /root/load.php && echo '// edited' >> wp-includes/load.php", "cp /root/load.php wp-includes/load.php", "wp-includes/load.php"},
	} {
		sh("cd " + docroot + " && " + c.do)
		code, out, errOut := run(append([]string{"verify"}, conn...)...)
		if code != exitcode.Mismatch || !strings.Contains(out, "MISMATCH") || !strings.Contains(out, c.names) {
			t.Errorf("verify after %s: exit %d, want %d naming %s\nstdout %s\nstderr %s", c.what, code, exitcode.Mismatch, c.names, out, errOut)
		}
		sh("cd " + docroot + " && " + c.undo)
		if code, out, errOut := run(append([]string{"verify"}, conn...)...); code != 0 {
			t.Fatalf("verify after undoing %s: exit %d\nstdout %s\nstderr %s", c.what, code, out, errOut)
		}
	}
	for _, f := range []string{"wptest-info.php", "wptest-probe.css", ".htaccess"} {
		sh("test -e /home/wpsite/public_html/" + f)
	}
	page("after seed under tuned-apache")
	// A permalink reaches WordPress (.htaccess written by seed), not
	// Apache's own 404.
	if got := sh("curl -s http://127.0.0.1/wptest-no-such-permalink/ | grep -c 'The requested URL was not found on this server' || true"); got != "0" {
		t.Errorf("a permalink got Apache's own 404: no rewrite rules after seed")
	}

	res, d := step("swap", "cpanel-apache")
	record("swap cpanel-apache", d)
	if res.Manifest.Previous != "tuned-apache" {
		t.Errorf("manifest after swap to cpanel-apache: previous_profile %q, want tuned-apache", res.Manifest.Previous)
	}
	if containsSub(res.Manifest.Deviations, "uid") || containsSub(res.Manifest.Deviations, "ruid2") || containsSub(res.Manifest.Deviations, "itk") {
		t.Errorf("Debian host manifest lists a uid-switching deviation: %q", res.Manifest.Deviations)
	}
	if mods := strings.Fields(res.Manifest.Facts["apache_modules"]); res.Manifest.Facts["apache_mpm"] != "prefork" || !containsSub(mods, "ruid2_module") || containsSub(mods, "mpm_itk_module") || containsSub(mods, "http2_module") {
		t.Errorf("manifest's Apache facts: %v, want prefork with mod_ruid2, without mpm_itk and http2", res.Manifest.Facts)
	}
	for _, k := range []string{"apache", "php_cgi", "php_fpm", "mariadb", "wordpress"} {
		if res.Manifest.Versions[k] == "" || res.Manifest.Versions[k] == "not installed" {
			t.Errorf("manifest has no %s version: %v", k, res.Manifest.Versions)
		}
	}
	page("under cpanel-apache")
	// 20 pages: each a php-cgi of 0.5 s CPU on a busy machine, some 20
	// samples; more is the same check at twice the cost.
	samplerExact(t, hs[0], append(conn, "--agent", agent), "prefork + CGI", "-n", "20")

	res, d = step("swap", "caddy")
	record("swap caddy", d)
	page("under caddy")
	// The manifest says what runs now and what was stopped for it.
	if sv := res.Manifest.Server; sv == nil || len(sv.Services) != 1 || sv.Services[0].Name != "caddy" || !strings.Contains(sv.Services[0].Restart, "caddy restart") ||
		len(res.Manifest.Retired) != 1 || res.Manifest.Retired[0].Name != "apache2" {
		t.Errorf("manifest after swap to caddy: server %+v, retired %+v; want caddy with its restart, apache2 retired", sv, res.Manifest.Retired)
	}
	if sh("/usr/local/lib/wptest/wptest-svc apache2 status && echo running || echo stopped") != "stopped" {
		t.Errorf("apache2 still running after the swap to caddy")
	}
	// Caddy precompressed core's static files: its copies, recorded in
	// the host manifest with its probes, are the profile's, not extra.
	n := copies()
	// Its own files: wptest-info.php, the two probes, Rasmus's two
	// documents (wptest-1k.html and .php), the 1 MB file and the post's
	// image's 105 KB (wptest-1m.bin, wptest-105k.bin).
	if n < 1000 || res.Manifest.SiteFiles == nil || res.Manifest.SiteFiles.Entries != n+7 {
		t.Errorf("under caddy: %d .gz copies in the docroot, the host manifest records %+v site files (want the copies and the profile's 7 files)", n, res.Manifest.SiteFiles)
	}
	verifyHTTP("under caddy")

	// nginx, added by its own folder only: a swap to it retires caddy
	// (and Apache, which an earlier swap retired), keeps the precompressed
	// copies (it serves them too) and a swap away retires nginx.
	res, d = step("swap", "nginx")
	record("swap nginx from caddy", d)
	page("under nginx")
	if sv := res.Manifest.Server; sv == nil || len(sv.Services) != 1 || sv.Services[0].Name != "nginx" {
		t.Errorf("manifest after swap to nginx: server %+v, want nginx", sv)
	}
	for _, svc := range []string{"apache2", "caddy"} {
		if sh("/usr/local/lib/wptest/wptest-svc "+svc+" status && echo running || echo stopped") != "stopped" {
			t.Errorf("%s still running after the swap to nginx", svc)
		}
	}
	if got := copies(); got != n {
		t.Errorf("after the swap caddy -> nginx: %d .gz copies, caddy left %d", got, n)
	}
	verifyHTTP("under nginx")
	t.Logf("timings: %s", strings.Join(*c.timings, ", "))
}

// TestBareHostSwapCycleAndVerify: the profiles' swaps among themselves once
// installed, on a host from the servers' image (baked.Servers: their
// packages, nothing configured): caddy up and seeded, nginx keeping its
// copies, a seed under nginx making them anew, then nginx -> tuned-apache
// (the copies gone) -> cpanel-apache (every retired server kept in the
// manifest), `verify --http` passing after each; then nginx and back to
// tuned-apache (its sampler exact under PHP-FPM); there an edited
// .htaccess, an extra table, a dropped index, an edited probe of the
// profile's, an edited record of the profile's files and a table
// converted to latin1 each fail verify (exit 5) by name, until a re-seed
// puts the site back; a repeated up with 0 changes, status, corehttpd
// refused before any change, and a broken PHP extension failing the
// WordPress check (exit 4).
func TestBareHostSwapCycleAndVerify(t *testing.T) {
	t.Parallel() // hosts from the servers' image: runs after the package's other tests, which run while it bakes
	testenv.NeedBinary(t, "go")
	c := newUpCycle(t, baked.Hosts(t, baked.Servers, "cycle"))
	hs := c.hs
	conn := c.conn
	agent := c.agent
	sh := c.sh
	run := c.run
	step := c.step
	page := c.page
	verifyHTTP := c.verifyHTTP
	copies := c.copies
	sql := c.sql
	record := c.record
	docroot := c.docroot
	// From the servers' image (their packages there, nothing configured):
	// caddy, seeded, precompresses core's static files; nginx keeps them.
	_, d := step("up", "caddy")
	record("up caddy (from the image)", d)
	t0 := time.Now()
	code, out, errOut := run(append([]string{"seed", "--fixture", "minimal"}, conn...)...)
	if code != 0 {
		t.Fatalf("seed under caddy: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	record("seed under caddy", time.Since(t0))
	page("under caddy")
	n := copies()
	if n < 1000 {
		t.Fatalf("under caddy: %d .gz copies in the docroot, want core's static files precompressed", n)
	}
	res, d := step("swap", "nginx")
	record("swap nginx from caddy", d)
	if res.Manifest.Previous != "caddy" {
		t.Errorf("manifest after swap caddy -> nginx: previous %q", res.Manifest.Previous)
	}
	if got := copies(); got != n {
		t.Errorf("after the swap caddy -> nginx: %d .gz copies, caddy left %d", got, n)
	}
	verifyHTTP("under nginx")
	// A seed under nginx removes the copies inside core's directories with
	// the rest of core; the profile's refresh makes them again, recorded anew.
	t0 = time.Now()
	if code, out, errOut := run(append([]string{"seed", "--fixture", "minimal"}, conn...)...); code != 0 {
		t.Fatalf("seed under nginx: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	record("seed under nginx", time.Since(t0))
	if got := copies(); got != n {
		t.Errorf("after seeding under nginx: %d .gz copies, want %d again", got, n)
	}
	verifyHTTP("under nginx after seeding there")

	_, d = step("swap", "tuned-apache")
	record("swap tuned-apache from nginx", d)
	if sh("service nginx status >/dev/null 2>&1 && echo running || echo stopped") != "stopped" {
		t.Errorf("nginx still running after the swap to tuned-apache")
	}
	page("under tuned-apache after nginx")
	if got := copies(); got != 0 {
		t.Errorf("under tuned-apache: %d .gz copies left by nginx", got)
	}
	verifyHTTP("under tuned-apache after nginx")

	// To cPanel's Apache (prefork + CGI, no FPM pool of its own in the
	// manifest's services): the host manifest keeps every server an
	// earlier swap retired.
	res, d = step("swap", "cpanel-apache")
	record("swap cpanel-apache from tuned-apache", d)
	if res.Manifest.Previous != "tuned-apache" || !retired(res, "nginx") || !retired(res, "caddy") {
		t.Errorf("manifest after swap tuned-apache -> cpanel-apache: previous %q, retired %+v; want nginx and caddy retired", res.Manifest.Previous, res.Manifest.Retired)
	}
	page("under cpanel-apache after the cycle")
	verifyHTTP("under cpanel-apache after the cycle cpanel-apache -> caddy -> nginx -> tuned-apache -> cpanel-apache")

	res, d = step("swap", "nginx")
	record("swap nginx from cpanel-apache", d)
	if res.Manifest.Previous != "cpanel-apache" {
		t.Errorf("manifest after swap cpanel-apache -> nginx: previous %q", res.Manifest.Previous)
	}
	if sh("/usr/local/lib/wptest/wptest-svc apache2 status && echo running || echo stopped") != "stopped" {
		t.Errorf("apache2 still running after the swap from cpanel-apache to nginx")
	}
	page("under nginx after cpanel-apache")
	_, d = step("swap", "tuned-apache")
	record("swap tuned-apache from nginx again", d)
	if sh("service nginx status >/dev/null 2>&1 && echo running || echo stopped") != "stopped" {
		t.Errorf("nginx still running after the swap back to tuned-apache")
	}
	page("back under tuned-apache from nginx")
	samplerExact(t, hs[0], append(conn, "--agent", agent), "PHP-FPM", "-n", "100")

	// What changes a visitor's answer or a query's cost, each alone: exit
	// 5 naming it (the rows read back the same every time). Under PHP-FPM:
	// each verify --http fetches the site's pages, which cost cPanel's CGI
	// ten times the CPU and are not what these check.
	sh("cp " + docroot + "/.htaccess /root/htaccess")
	for _, c := range []struct{ what, do, undo, names string }{
		{"an edited .htaccess", "echo 'Options +Indexes' >> " + docroot + "/.htaccess", "cp /root/htaccess " + docroot + "/.htaccess", "MISMATCH file .htaccess: sha256 "},
		{"an extra table", "sql:CREATE TABLE wp_wptest_extra (id int NOT NULL PRIMARY KEY)", "sql:DROP TABLE wp_wptest_extra", "MISMATCH extra-table wp_wptest_extra: not in the fixture's schema"},
		{"a dropped index", "sql:ALTER TABLE wp_postmeta DROP INDEX meta_key", "sql:ALTER TABLE wp_postmeta ADD KEY meta_key (meta_key(191))", "MISMATCH missing-index wp_postmeta index meta_key: KEY meta_key (meta_key(191))"},
		{"an edited probe of the profile's", "cp " + docroot + "/wptest-info.php /root/info.php && echo '<?php phpinfo();' > " + docroot + "/wptest-info.php", "cp /root/info.php " + docroot + "/wptest-info.php", "MISMATCH profile-file wptest-info.php: sha256 "},
		{"an edited record of the profile's files", "cp /var/lib/wptest/site-files.json /root/site-files.json && echo >> /var/lib/wptest/site-files.json", "cp /root/site-files.json /var/lib/wptest/site-files.json", "MISMATCH site-files /var/lib/wptest/site-files.json: sha256 "},
		{"a table converted to latin1", "sql:ALTER TABLE wp_posts CONVERT TO CHARACTER SET latin1", "", "MISMATCH table wp_posts: collation latin1_swedish_ci, want utf8mb4_unicode_520_ci"},
	} {
		apply := func(cmd string) {
			if q, ok := strings.CutPrefix(cmd, "sql:"); ok {
				sql(q)
			} else if cmd != "" {
				sh(cmd)
			}
		}
		apply(c.do)
		code, out, errOut := run(append([]string{"verify", "--http", "http://127.0.0.1"}, conn...)...)
		if code != exitcode.Mismatch || !strings.Contains(out, c.names) {
			t.Errorf("verify after %s: exit %d, want %d naming %q\nstdout %s\nstderr %s", c.what, code, exitcode.Mismatch, c.names, out, errOut)
		}
		if c.undo == "" {
			continue
		}
		apply(c.undo)
		if code, out, errOut := run(append([]string{"verify"}, conn...)...); code != 0 {
			t.Fatalf("verify after undoing %s: exit %d\nstdout %s\nstderr %s", c.what, code, out, errOut)
		}
	}
	// The latin1 table stays until a seed makes the schema anew.
	if code, out, errOut := run(append([]string{"seed", "--fixture", "minimal"}, conn...)...); code != 0 || !strings.Contains(errOut, "made anew: the database's differs (table wp_posts: collation latin1_swedish_ci") {
		t.Fatalf("re-seed over the latin1 table: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	verifyHTTP("after the re-seed")

	res, d = step("up", "tuned-apache")
	record("up tuned-apache again", d)
	if res.Report.Changes != 0 {
		t.Errorf("repeated up reported %d changes, want 0", res.Report.Changes)
	}

	code, out, errOut = run(append([]string{"status", "-o", "json"}, conn...)...)
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
	if st.Manifest.Profile != "tuned-apache" || !containsSub(st.Running, "apache2") || containsSub(st.Running, "caddy") || containsSub(st.Running, "nginx") {
		t.Errorf("status: profile %q, running %v; want tuned-apache with apache2, without caddy and nginx", st.Manifest.Profile, st.Running)
	}

	// corehttpd without its package: refused before anything is touched.
	before := sh("cat /var/lib/wptest/host-manifest.json")
	code, _, errOut = run(append([]string{"up", "--profile", "corehttpd", "--agent", agent}, conn...)...)
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
	if after := sh("cat /var/lib/wptest/host-manifest.json"); after != before {
		t.Errorf("up corehttpd changed the host manifest")
	}

	// A PHP extension WordPress needs is gone from the running PHP: the
	// profile's checks no longer pass (WordPress answers 500), exit 4.
	php := sh(`php -r 'echo PHP_MAJOR_VERSION, ".", PHP_MINOR_VERSION;'`)
	sh("phpdismod -v " + php + " mysqli && /usr/local/lib/wptest/wptest-svc php" + php + "-fpm restart")
	code, _, errOut = run(append([]string{"apply", "--profile", "tuned-apache"}, conn...)...)
	if code != exitcode.Provision || !strings.Contains(errOut, "check.wordpress_page") || !strings.Contains(errOut, "status 500") {
		t.Errorf("apply with mysqli disabled: exit %d, want %d naming check.wordpress_page and its 500:\n%s", code, exitcode.Provision, errOut)
	}
	sh("phpenmod -v " + php + " mysqli && /usr/local/lib/wptest/wptest-svc php" + php + "-fpm restart")
	page("with mysqli back")
	t.Logf("timings: %s", strings.Join(*c.timings, ", "))
}

// phpDeviation checks the host manifest's PHP against the platform: the
// PHP Debian ships (8.4 on Debian 13, the post's: no deviation; 8.2 on
// Debian 12: one deviation naming it), as the host runs it.
func phpDeviation(t *testing.T, what, platform, php string, devs []string) {
	t.Helper()
	want := map[string]string{"debian-12": "8.2.", "debian-13": "8.4."}[platform]
	if !strings.HasPrefix(php, want) {
		t.Errorf("%s: host manifest's PHP is %q, want %sx on %s", what, php, want, platform)
	}
	var named []string
	for _, d := range devs {
		if strings.Contains(d, "PHP") {
			named = append(named, d)
		}
	}
	t.Logf("%s: host manifest: PHP %s on %s, PHP deviations %q", what, php, platform, named)
	switch {
	case want == "8.4." && len(named) != 0:
		t.Errorf("%s: PHP %s is the post's, but the manifest has PHP deviations %q", what, php, named)
	case want != "8.4." && (len(named) != 1 || named[0] != "PHP "+php+" instead of the post's PHP 8.4"):
		t.Errorf("%s: PHP %s: deviations %q, want one naming it", what, php, named)
	}
}

// retired reports whether the manifest of res lists service as retired.
func retired(res upJSON, service string) bool {
	for _, s := range res.Manifest.Retired {
		if s.Name == service {
			return true
		}
	}
	return false
}

func containsSub(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// samplerExact runs `wptest srvstat --target` on the host (the live
// profile's process groups, from its host manifest) while pages load from
// here, and checks srvstat's invariants against the host's own CPU
// accounting (its cgroup, exited processes included): in every interval
// each group used at most CPUs x interval; between two readings of the
// cgroup taken while the host is idle (one before the load, one after it),
// the groups (other included) add up to what the host's processes used,
// within srvstat's stated rounding and what ran between a reading and the
// sample next to it (bounded by that sample's interval, an idle one).
func samplerExact(t *testing.T, bh *testenv.BareHost, conn []string, what string, load ...string) {
	t.Helper()
	m := sampledLoad(t, bh, conn, what, load...)
	ss, a, b := m.samples, m.a, m.b
	for i := 1; i < len(ss); i++ {
		dt := ss[i].Unix - ss[i-1].Unix
		for name, g := range ss[i].Groups {
			if d := g.CPUSec - ss[i-1].Groups[name].CPUSec; d > float64(ss[i].CPUs)*dt+ss[i].CPURoundingS {
				t.Errorf("%s: group %s used %.3f s in a %.3f s interval on %d CPUs", what, name, d, dt, ss[i].CPUs)
			}
		}
	}
	groups, truth := m.groups(), m.host()
	// The cgroup also counted what ran from sample a to its first reading
	// (missing from truth, at most interval a+1's) and from sample b to its
	// second (extra in truth, at most interval b+1's).
	gapA, gapB := sampleSum(ss[a+1])-sampleSum(ss[a]), sampleSum(ss[b+1])-sampleSum(ss[b])
	rounding := ss[a].CPURoundingS + ss[b].CPURoundingS + 0.02 // + sshd's share of srvstat's stream, outside any sample
	if d := truth - groups; d > gapB+rounding || d < -gapA-rounding {
		t.Errorf("%s: the groups add up to %.3f s, the host's processes used %.3f s (rounding %.3f s, idle intervals around the readings %.3f s and %.3f s)", what, groups, truth, rounding, gapA, gapB)
	}
	if m.group("web") <= 0 || m.group("php") <= 0 {
		t.Errorf("%s: web or php used no CPU under load: %+v", what, ss[b].Groups)
	}
	t.Logf("%s: groups %.3f s, host %.3f s over %d samples (web %.2f s, php %.2f s, db %.2f s, other %.2f s; exits from %s; idle around the readings %.3f s, %.3f s)", what, groups, truth, b-a+1,
		m.group("web"), m.group("php"), m.group("db"), m.group(srvstat.Other), ss[b].ExitsFrom, gapA, gapB)
}

// loadSamples is one load from here with `wptest srvstat --target` on the
// host: srvstat's samples, a and b the idle samples just before and after
// the load, the host's cgroup read right after each, and the load's
// successful requests.
type loadSamples struct {
	samples  []srvstat.Sample
	a, b     int
	cgA, cgB time.Duration
	ok       int64
	body     int64 // bytes of the bodies of all the answers
}

func sampleSum(s srvstat.Sample) (v float64) {
	for _, g := range s.Groups {
		v += g.CPUSec
	}
	return v
}

// groups is the CPU-seconds every group used from sample a to b; group
// one group's; host the cgroup's between its two readings.
func (m loadSamples) groups() float64 { return sampleSum(m.samples[m.b]) - sampleSum(m.samples[m.a]) }
func (m loadSamples) group(name string) float64 {
	return m.samples[m.b].Groups[name].CPUSec - m.samples[m.a].Groups[name].CPUSec
}
func (m loadSamples) host() float64 { return (m.cgB - m.cgA).Seconds() }

// sampledLoad loads http://HOST/ from here (`wptest bench -c 4` with
// load's flags) while `wptest srvstat --target` samples the host every
// 500 ms, between two idle samples (WordPress's cron requests and
// MariaDB's flushing outlast the load).
func sampledLoad(t testing.TB, bh *testenv.BareHost, conn []string, what string, load ...string) loadSamples {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out testenv.SyncBuffer
	done := make(chan int, 1)
	go func() {
		var stderr bytes.Buffer
		done <- Run(ctx, &App{Args: append([]string{"srvstat", "--interval", "500ms"}, conn...), Stdout: &out, Stderr: &stderr})
	}()
	// samples: the whole lines written so far (srvstat may be mid-line).
	samples := func() []srvstat.Sample {
		text := out.String()
		ss, err := srvstat.Read(strings.NewReader(text[:strings.LastIndex(text, "\n")+1]))
		if err != nil {
			t.Fatalf("srvstat's samples: %v\n%.2000s", err, text)
		}
		return ss
	}
	usage := func() time.Duration {
		d, err := bh.CPUUsage()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	// idleReading reads the cgroup right after a sample that ends an idle
	// interval, returning that sample's index: what ran between it and
	// the reading is at most what the next interval shows.
	const idle = 0.1 // CPU-seconds in a 500 ms interval
	idleReading := func(from int, when string) (int, time.Duration) {
		t.Helper()
		var n int
		testenv.WaitFor(t, 2*time.Minute, "an idle sample "+when, func() bool {
			ss := samples()
			n = len(ss)
			return n >= from+2 && sampleSum(ss[n-1])-sampleSum(ss[n-2]) < idle
		})
		return n - 1, usage()
	}
	var m loadSamples
	m.a, m.cgA = idleReading(0, "before the load")
	code, stdout, stderr := runCLIArgs(append([]string{"bench", "--url", "http://" + bh.IP + "/", "-c", "4", "-o", "json"}, load...)...)
	if code != 0 {
		t.Fatalf("load (%s): exit %d\n%s\n%s", what, code, stdout, stderr)
	}
	var rep result.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || len(rep.Runs) != 1 {
		t.Fatalf("load (%s): %v\n%s", what, err, stdout)
	}
	m.ok, m.body = rep.Runs[0].Outcomes.OK, rep.Runs[0].Bytes.Body
	m.b, m.cgB = idleReading(m.a+1, "after the load")
	testenv.WaitFor(t, time.Minute, "the sample after the last reading", func() bool { return len(samples()) >= m.b+2 })
	cancel()
	<-done
	m.samples = samples()
	return m
}

// runCLIArgs runs one whole command in this process.
func runCLIArgs(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), &App{Args: args, Stdout: &stdout, Stderr: &stderr})
	return code, stdout.String(), stderr.String()
}
