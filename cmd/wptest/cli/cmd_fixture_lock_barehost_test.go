package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/internal/testenv/baked"
)

// TestBareHostSeedsPinnedArchives is the agency site as the post
// published it, where users seed it: a Debian host (no internet; made from
// the shipped servers' image, baked.Servers: what `up` installs is proved
// from the bare rootfs in TestBareHostUpSeedSwap) after `up tuned-apache`, its archives from a mirror on this machine that
// the host reaches at its gateway. `fixture lock` writes the lock here;
// `seed` with the site's defaults fetches core and the eight plugins on
// the host, checks them against the lock, installs and activates them as
// the site's user; Apache serves a page with every plugin active; verify
// passes and names an edited plugin file; the archives never touched the
// site user's home.
func TestBareHostSeedsPinnedArchives(t *testing.T) {
	t.Parallel() // hosts from the servers' image: runs after the package's other tests, which run while it bakes
	testenv.NeedBinary(t, "go")
	hs := baked.Hosts(t, baked.Servers, "web")
	ctx := context.Background()
	_, conn, sh := bareHost(t, hs[0])
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := Run(ctx, &App{Args: args, Stdout: &stdout, Stderr: &stderr, WorkDir: t.TempDir()})
		return code, stdout.String(), stderr.String()
	}
	agent := buildAgent(t)
	if code, out, errs := run(append([]string{"up", "--profile", "tuned-apache", "--agent", agent}, conn...)...); code != 0 {
		t.Fatalf("up tuned-apache: exit %d\n%s%s", code, out, errs)
	}

	srv, p := agencyMirror(t, hs[0].Gateway+":0")
	lock := filepath.Join(t.TempDir(), "agency.lock.hcl")
	if code, out, errs := run("fixture", "lock", "--fixture", "agency", "--mirror", srv.URL, "--lock", lock); code != 0 {
		t.Fatalf("fixture lock: exit %d\n%s%s", code, out, errs)
	}
	seed := append([]string{"seed", "--fixture", "agency", "--archive-mirror", srv.URL, "--lock", lock}, conn...)
	code, out, errs := run(seed...)
	if code != 0 {
		t.Fatalf("seed: exit %d\n%s%s", code, out, errs)
	}
	if n := strings.Count(errs, "] deviation: "); n != 1 || !strings.Contains(errs, "deviation: rows: the fixture's schema and options follow WordPress 6.1.9's installer") {
		t.Errorf("seed on the bare host: want exactly the rows' deviation, got %d:\n%s", n, errs)
	}
	t.Logf("seed:\n%s", errs)
	body := sh("curl -s http://127.0.0.1/")
	for _, pl := range p.Plugins {
		if !strings.Contains(body, "<!-- stand-in "+pl.Slug+" activated -->") {
			t.Errorf("the home page through Apache: %s is not active", pl.Slug)
		}
	}
	// The plugins are the site user's, and their activation ran as that user.
	if got := sh("stat -c %U /home/wpsite/public_html/wp-content/plugins/elementor/elementor.php"); got != "wpsite" {
		t.Errorf("plugin file owned by %s, want wpsite", got)
	}
	if code, out, errs = run(append([]string{"verify", "--http", "http://127.0.0.1:80"}, conn...)...); code != 0 || !strings.HasPrefix(out, "OK agency seed 1") {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errs)
	}
	pf := "/home/wpsite/public_html/wp-content/plugins/wordpress-seo/wp-seo.php"
	sh("cp " + pf + " /root/wp-seo.php && echo '// edited' >> " + pf)
	code, out, errs = run(append([]string{"verify"}, conn...)...)
	if code != exitcode.Mismatch || strings.Count(out, "MISMATCH") != 1 || !strings.Contains(out, "MISMATCH plugin-file wp-content/plugins/wordpress-seo/wp-seo.php") {
		t.Errorf("verify after editing a plugin file: exit %d, want 5 with one line naming it\n%s%s", code, out, errs)
	}
	sh("cp /root/wp-seo.php " + pf)
	// Root kept the archives to itself: a 0700 directory of root's, and no
	// archive anywhere in the site user's home.
	if got := sh("stat -c '%U %a' /var/lib/wptest/archives; find /home/wpsite -name '*.zip' -o -name '*.tar.gz' -o -name 'fetch.*' | wc -l"); got != "root 700\n0" {
		t.Errorf("archive directory and the site user's home: %q, want \"root 700\" and no archive", got)
	}
}
