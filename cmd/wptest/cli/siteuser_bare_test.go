package cli

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/internal/testenv/baked"
)

// TestBareHostSiteUserLinksLeadNowhere: the site user (PHP runs as them,
// the home and docroot are theirs) plants a link at every name root wrote
// in their directories, and swaps the docroot and the old staging
// directory for links to root's directories, around `up`, `seed`, `swap`
// and `verify` on a Debian host (made from the shipped servers' image,
// baked.Servers: nothing of a profile configured, its packages there):
// nothing outside the site
// changes (root's canary files keep owner, mode and bytes, root's
// directories gain no entry, the site user owns no file outside their
// home). A seed into a docroot swapped for a link is refused; the swap
// away from a precompressing profile removes its copies and nothing a
// planted link names. And nothing
// of WordPress is open before the seed: from this machine (outside the
// host) the installer, setup-config.php, wp-login.php, wptest-info.php and
// the server status are refused while the host itself gets them; after
// the seed the site answers from outside, wptest-info.php still does not.
func TestBareHostSiteUserLinksLeadNowhere(t *testing.T) {
	t.Parallel() // hosts from the servers' image: runs after the package's other tests, which run while it bakes
	testenv.NeedBinary(t, "go")
	hs := baked.Hosts(t, baked.Servers, "web")
	bh := hs[0]
	ctx := context.Background()
	_, conn, sh := bareHost(t, bh)
	// asSite runs a script as the site user, as PHP (or a shell they got
	// through it) would.
	asSite := func(script string) {
		t.Helper()
		sh("cd / && setpriv --reuid=wpsite --regid=wpsite --init-groups -- sh -ec " + host.Quote(script))
	}
	agent := buildAgent(t)
	wptest := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := Run(ctx, &App{Args: append(args, conn...), Stdout: &stdout, Stderr: &stderr})
		return code, stdout.String() + stderr.String()
	}
	must := func(args ...string) {
		t.Helper()
		if code, out := wptest(args...); code != 0 {
			t.Fatalf("wptest %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
	}
	// HTTP to the host: from this machine (outside), or from the host
	// itself over loopback (curl there). The status alone.
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	outsideGet := func(p string) int {
		t.Helper()
		resp, err := client.Get("http://" + bh.IP + p)
		if err != nil {
			t.Fatalf("GET %s from outside: %v", p, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	insideGet := func(p string) string {
		return sh("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1" + p)
	}

	must("up", "--profile", "tuned-apache", "--agent", agent)
	const doc = "/home/wpsite/public_html"

	// Before the seed: the installer and everything that tells about the
	// server answer only the host itself.
	for _, p := range []string{"/wp-admin/install.php", "/wp-admin/setup-config.php", "/wp-login.php", "/wp-admin/", "/", "/wptest-info.php", "/whm-server-status"} {
		if got := outsideGet(p); got != http.StatusForbidden {
			t.Errorf("before the seed, %s from outside the host: %d, want 403", p, got)
		}
	}
	for _, p := range []string{"/wp-admin/install.php", "/wptest-info.php", "/whm-server-status"} {
		if got := insideGet(p); got != "200" {
			t.Errorf("before the seed, %s from the host itself: %s, want 200", p, got)
		}
	}

	// Root's things outside the site, as the site user might aim at them.
	sh(`set -e
umask 077
for c in canary canary-db canary-cfg canary-info canary-dropin canary-ht canary-marker canary-gz; do printf 'root only: %s\n' "$c" >/root/$c; done
mkdir -p /srv
mkdir -m 0755 /srv/target /srv/target/wp-content /srv/target-stage
printf 'root license\n' >/srv/target/license.txt
chmod 0644 /srv/target/license.txt`)
	// outside is the state of everything the site user must not reach:
	// each entry's owner, mode, size and content hash.
	outside := func() string {
		return sh(`find /root/canary* /srv/target /srv/target-stage -printf '%p %u:%g %m %s %y\n' | sort; sha256sum /root/canary* /srv/target/license.txt`)
	}
	before := outside()
	same := func(when string) {
		t.Helper()
		if now := outside(); now != before {
			t.Errorf("%s: root's files changed:\nbefore:\n%s\nnow:\n%s", when, before, now)
		}
	}
	// step runs a command that must succeed, and first checks what it did
	// outside the site.
	step := func(args ...string) {
		t.Helper()
		code, out := wptest(args...)
		same("wptest " + strings.Join(args, " "))
		if code != 0 {
			t.Fatalf("wptest %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
	}

	// up again over links at every name the profile writes in the docroot,
	// its scripts' temporary files of old included (the credentials file
	// and config are missing, so they are written again).
	asSite(`cd ` + doc + `
rm -f wp-config-db.php wp-config.php wp-content/db.php wptest-info.php wptest-probe.js
ln -s /root/canary-db .wp-config-db.php.wptest
ln -s /root/canary-cfg .wp-config.php.wptest
ln -s /root/canary-dropin wp-content/db.php
ln -s /root/canary-info wptest-info.php
ln -s /root/canary wptest-probe.js`)
	step("up", "--profile", "tuned-apache", "--agent", agent)
	for _, f := range []string{"wp-config-db.php", "wp-config.php", "wp-content/db.php", "wptest-info.php", "wptest-probe.js"} {
		if got := sh("stat -c '%F %U' " + doc + "/" + f); got != "regular file wpsite" {
			t.Errorf("after up, %s is %q, want a regular file of wpsite's", f, got)
		}
	}

	// seed into a docroot swapped for a link to root's directory (and the
	// old fixed staging name a link too): refused, nothing written.
	asSite(`cd /home/wpsite
mv public_html public_html.real
ln -s /srv/target public_html
ln -s /srv/target-stage .public_html.wptest-staging`)
	if code, out := wptest("seed", "--fixture", "minimal"); code == 0 {
		t.Errorf("seed into a docroot swapped for a link to root's directory: exit 0\n%s", out)
	} else if !strings.Contains(out, "cannot write in it") {
		t.Errorf("seed into a swapped docroot: exit %d, but the message does not say why:\n%s", code, out)
	}
	same("seed into a swapped docroot")
	asSite(`cd /home/wpsite && rm public_html && mv public_html.real public_html`)

	// seed over links inside the docroot.
	asSite(`cd ` + doc + `
ln -sfn /root/canary-ht .htaccess
ln -sfn /root/canary-marker .wptest-fixture.json
ln -sfn /srv/target wp-content/uploads`)
	step("seed", "--fixture", "minimal")
	if got := outsideGet("/"); got != http.StatusOK {
		t.Errorf("after the seed, the home page from outside the host: %d, want 200", got)
	}
	if got := outsideGet("/wptest-info.php"); got != http.StatusForbidden {
		t.Errorf("after the seed, wptest-info.php from outside the host: %d, want 403", got)
	}
	checkLazyRowsVerified(t, wptest, sh, doc, "wptest_site", "http://"+bh.IP)
	checkVerifyFetchesASample(t, wptest, sh)

	// swap to nginx (its precompressed copies are written into the
	// docroot) over a .gz name that is a link to root's directory and one
	// that is a link to root's file.
	asSite(`cd ` + doc + `
ln -sfn /srv/target wp-includes/css/buttons.css.gz
ln -sfn /root/canary-gz wptest-probe.css.gz`)
	step("swap", "--profile", "nginx", "--agent", agent)
	for _, f := range []string{"wp-includes/css/buttons.css.gz", "wptest-probe.css.gz"} {
		if got := sh("stat -c '%F %U' " + doc + "/" + f); got != "regular file wpsite" {
			t.Errorf("after swap, %s is %q, want the site user's precompressed copy", f, got)
		}
	}

	// verify reads the site (a link there leads it nowhere either).
	asSite(`ln -sfn /root/canary ` + doc + `/wp-content/plugins/planted.php`)
	if code, out := wptest("verify"); code != 5 || !strings.Contains(out, "wp-content/plugins/planted.php") {
		t.Errorf("verify with a planted link: exit %d, want 5 naming it\n%s", code, out)
	}
	same("verify")

	// swap to tuned-apache, which does not precompress: nginx's copies are
	// removed (the retire runs wptest-precompress --remove as the site
	// user), and links planted at copies' names, to root's file and
	// directory, are not followed (nor removed: they are no copies).
	asSite(`cd ` + doc + `
ln -sfn /root/canary-gz wp-includes/css/planted.css.gz
ln -sfn /srv/target wp-includes/js/planted.js.gz`)
	step("swap", "--profile", "tuned-apache", "--agent", agent)
	if got := sh("find " + doc + " -type f -name '*.gz' | wc -l"); got != "0" {
		t.Errorf("after the swap to tuned-apache, %s regular .gz files are left in the docroot", got)
	}
	for _, f := range []string{"wp-includes/css/planted.css.gz", "wp-includes/js/planted.js.gz"} {
		if got := sh("stat -c '%F %U' " + doc + "/" + f); got != "symbolic link wpsite" {
			t.Errorf("after the swap to tuned-apache, the planted %s is %q, want the site user's link, untouched", f, got)
		}
	}

	// The site user owns nothing outside their home (a file root wrote
	// for them elsewhere would be theirs).
	if got := sh(`find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /home/wpsite \) -prune -o -user wpsite -print`); got != "" {
		t.Errorf("files of the site user's outside their home:\n%s", got)
	}

	// Someone else's account and database on the host are never taken over
	// by a site_user or db_name of theirs (an experiment file may set both):
	// up stops at the op (exit 4, naming the account or database), their
	// login shell and password stay.
	sh(`useradd --create-home --shell /bin/bash alice
mariadb -e "CREATE DATABASE shop; CREATE USER 'shop'@'localhost' IDENTIFIED BY 'shop-own-pw'; GRANT ALL ON shop.* TO 'shop'@'localhost'"`)
	for _, tc := range []struct{ v, want string }{{"site_user=alice", "login shell /bin/bash"}, {"db_name=shop", "a database or user named shop exists"}} {
		code, out := wptest("up", "--profile", "tuned-apache", "--agent", agent, "-var", tc.v)
		if code != 4 || !strings.Contains(out, tc.want) {
			t.Errorf("up -var %s: exit %d, want 4 saying %q\n%s", tc.v, code, tc.want, out)
		}
	}
	if got := sh(`getent passwd alice | cut -d: -f6,7; MYSQL_PWD=shop-own-pw mariadb -u shop -N -e 'SELECT 1' shop`); got != "/home/alice:/bin/bash\n1" {
		t.Errorf("alice's account and shop's login after the refused ups: %q", got)
	}
}
