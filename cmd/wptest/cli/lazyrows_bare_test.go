package cli

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/host"
)

// checkLazyRowsVerified holds, on a site just seeded (docroot doc,
// database db) and served at base, that verify compares what WordPress
// writes by itself: after every page is fetched as a visitor would (which
// makes WordPress write its lazy rows) verify is OK; the navigation post
// edited and rewrite_rules emptied (as a stale cache would leave them),
// verify exits 5 naming each and nothing else; the navigation put back and
// a request letting WordPress rebuild the rules, verify is OK again.
func checkLazyRowsVerified(t *testing.T, wptest func(...string) (int, string), sh func(string) string, doc, db, base string) {
	t.Helper()
	start := time.Now()
	defer func() { t.Logf("verify of the lazy rows: %.1fs", time.Since(start).Seconds()) }()
	sql := func(q string) string {
		t.Helper()
		return sh("mariadb -N -B " + host.Quote(db) + " -e " + host.Quote(q))
	}
	m, err := fixture.ParseManifest([]byte(sh("cat " + host.Quote(doc+"/"+fixture.MarkerFile))))
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 60 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	visit := func(p string) {
		t.Helper()
		resp, err := client.Get(base + p)
		if err != nil {
			t.Fatalf("GET %s: %v", p, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d, want 200", p, resp.StatusCode)
		}
	}
	for _, pg := range m.Pages {
		visit(pg.Path)
	}
	if code, out := wptest("verify"); code != 0 {
		t.Fatalf("verify of an untouched seed after every page was fetched: exit %d\n%s", code, out)
	}
	nav := sql("SELECT ID FROM wp_posts WHERE post_type = 'wp_navigation'")
	if !regexp.MustCompile(`^[0-9]+$`).MatchString(nav) {
		t.Fatalf("wp_navigation posts after the seed: %q, want the one WordPress made from the classic menu", nav)
	}
	saved := sql("SELECT HEX(post_content) FROM wp_posts WHERE ID = " + nav)
	sql(`UPDATE wp_posts SET post_content = CONCAT(post_content, '<!-- wp:navigation-link {"label":"Extra","url":"/extra/"} /-->') WHERE ID = ` + nav + `;
UPDATE wp_options SET option_value = '' WHERE option_name = 'rewrite_rules'`)
	code, out := wptest("verify")
	for _, want := range []string{
		"MISMATCH lazy-row wp_posts ID=" + nav + `: wp_navigation "Main Menu": content differs from the seed`,
		"MISMATCH lazy-row wp_options option_name=rewrite_rules: empty, the permalink structure /%postname%/ needs rules",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("verify after the navigation was edited and rewrite_rules emptied: want %q", want)
		}
	}
	if n := strings.Count(out, "MISMATCH "); code != 5 || n != 2 {
		t.Errorf("verify after the navigation was edited and rewrite_rules emptied: exit %d with %d mismatch(es), want 5 with 2\n%s", code, n, out)
	}
	sql("UPDATE wp_posts SET post_content = UNHEX('" + saved + "') WHERE ID = " + nav)
	visit("/") // WordPress rebuilds empty rules on a request
	if got := sql("SELECT LENGTH(option_value) > 1000 FROM wp_options WHERE option_name = 'rewrite_rules'"); got != "1" {
		t.Fatalf("rewrite_rules after a request: WordPress did not rebuild them (%s)", got)
	}
	if code, out := wptest("verify"); code != 0 {
		t.Errorf("verify after WordPress rebuilt rewrite_rules on a request: exit %d\n%s", code, out)
	}
}

// checkVerifyFetchesASample holds that verify, by default, fetches a
// sample of the site's pages from the live profile's own port (tuned
// Apache's here): with Apache stopped, the site's files and rows as
// seeded, verify exits 5 saying nothing listens on the port, and
// --no-http (for a server down on purpose) passes; the site user's own
// server on Apache's port is named and not fetched from; Apache started again,
// verify passes and says which pages it fetched.
func checkVerifyFetchesASample(t *testing.T, wptest func(...string) (int, string), sh func(string) string) {
	t.Helper()
	svc := "/usr/local/lib/wptest/wptest-svc apache2 "
	sh(svc + "stop")
	code, out := wptest("verify")
	if code != 5 || !strings.Contains(out, "MISMATCH http http://127.0.0.1:80: nothing listens on port 80") || strings.Count(out, "MISMATCH ") != 1 {
		t.Errorf("verify with Apache stopped: exit %d, want 5 saying nothing listens, and only that\n%s", code, out)
	}
	// The site user answers the port with the site itself (PHP's own
	// server, the port's capability given): its pages are not fetched
	// from it, and verify says who answers.
	sh(`setpriv --reuid=wpsite --regid=wpsite --init-groups --inh-caps +net_bind_service --ambient-caps +net_bind_service -- php -S 127.0.0.1:80 -t /home/wpsite/public_html >/dev/null 2>&1 </dev/null & echo $! >/root/impostor.pid
for i in $(seq 600); do grep -q ' 0100007F:0050 00000000:0000 0A ' /proc/net/tcp && exit 0; sleep 0.1; done; echo "php -S never listened" >&2; exit 1`)
	code, out = wptest("verify")
	if code != 5 || !strings.Contains(out, "answered by a socket of the site user wpsite") || strings.Contains(out, "MISMATCH http /") {
		t.Errorf("verify with the site user's server on Apache's port: exit %d, want 5 naming it, no page fetched\n%s", code, out)
	}
	sh(`kill $(cat /root/impostor.pid); for i in $(seq 600); do grep -q ' 0100007F:0050 00000000:0000 0A ' /proc/net/tcp || exit 0; sleep 0.1; done; exit 1`)
	if code, out := wptest("verify", "--no-http"); code != 0 || strings.Contains(out, "MISMATCH") {
		t.Errorf("verify --no-http with Apache stopped: exit %d, want 0\n%s", code, out)
	}
	if code, out := wptest("verify", "--no-http", "--http", "http://127.0.0.1"); code != 2 {
		t.Errorf("verify --no-http --http: exit %d, want 2\n%s", code, out)
	}
	sh(svc + "start")
	code, out = wptest("verify")
	if code != 0 || !regexp.MustCompile(`http: [0-9]+ of the fixture's [0-9]+ pages fetched from http://127\.0\.0\.1:[0-9]+ `).MatchString(out) {
		t.Errorf("verify with Apache started again: exit %d, want 0 saying which pages it fetched\n%s", code, out)
	}
}
