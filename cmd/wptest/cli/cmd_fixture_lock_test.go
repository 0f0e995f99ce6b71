package cli

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/testenv"
)

// standInPlugin is a plugin the test writes under a pinned plugin's slug,
// main file and version (this machine cannot fetch the real ones): its
// activation records itself in an option, and every page names it.
func standInPlugin(t testing.TB, pl fixture.Plugin, nonce string) []byte {
	fn := strings.ReplaceAll(pl.Slug, "-", "_")
	return testenv.PluginZip(t, pl.Slug, map[string]string{
		pl.File: fmt.Sprintf(`<?php
/**
 * Plugin Name: stand-in for %[1]s (wptest's tests; %[4]s)
 * Version: %[2]s
 */
register_activation_hook( __FILE__, function () { update_option( '%[3]s_stand_in', 'activated' ); } );
add_action( 'wp_footer', function () { echo '<!-- stand-in %[1]s ' . get_option( '%[3]s_stand_in' ) . ' -->'; } );
`, pl.Slug, pl.Version, fn, nonce),
	})
}

// agencyMirror serves what the agency fixture pins: Debian's WordPress
// as the pinned release and a stand-in for each plugin (unique to this
// test run, so no tree cached on this machine answers for it), under
// wordpress.org's paths. It removes the trees seeding unpacked from them.
func agencyMirror(t *testing.T, addr string) (*testenv.ArchiveServer, *fixture.Profile) {
	t.Helper()
	p, err := fixture.LoadProfile("agency")
	if err != nil {
		t.Fatal(err)
	}
	tgz, sums := testenv.WordPressArchiveAs(t, p.WordPress.Version)
	key := func(u string) string {
		pu, _ := url.Parse(u)
		k := pu.Host + pu.EscapedPath()
		if pu.RawQuery != "" {
			k += "?" + pu.RawQuery
		}
		return k
	}
	files := map[string][]byte{key(p.WordPress.URL): tgz,
		key("https://api.wordpress.org/core/checksums/1.0/?version=" + p.WordPress.Version + "&locale=en_US"): sums}
	nonce := make([]byte, 8)
	rand.Read(nonce)
	for _, pl := range p.Plugins {
		z := standInPlugin(t, pl, hex.EncodeToString(nonce))
		files[key(pl.ArchiveURL())] = z
		s := sha256.Sum256(z)
		t.Cleanup(func() { os.RemoveAll(filepath.Join(fixture.DefaultArchiveDir, hex.EncodeToString(s[:])+".d")) })
	}
	return testenv.ServeArchives(t, addr, files), p
}

// TestFixtureLockAndSeed: `fixture lock` writes the lock from a mirror
// (again: the same bytes; -upgrade: every archive fetched again); seed
// installs the agency fixture's core and its eight plugins from that
// mirror as the lock says, activates them, a page shows every one, verify
// passes and names an edited plugin file (exit 5); an archive that is not
// the locked one is refused with exit 5, naming it and both hashes.
func TestFixtureLockAndSeed(t *testing.T) {
	testenv.NeedRoot(t)
	testenv.NeedBinary(t, "php")
	testenv.NeedBinary(t, "setpriv")
	srv, p := agencyMirror(t, "127.0.0.1:0")
	lock := filepath.Join(t.TempDir(), "agency.lock.hcl")
	code, out, errs := runFixtureCLI(t, "", "fixture", "lock", "--fixture", "agency", "--mirror", srv.URL, "--lock", lock)
	if code != 0 || strings.Count(out, "added ") != 9 || !strings.Contains(errs, "wrote "+lock) {
		t.Fatalf("fixture lock: exit %d\n%s%s", code, out, errs)
	}
	written, _ := os.ReadFile(lock)
	l, err := fixture.ParseLock(lock, written)
	if err != nil || l.WordPress == nil || len(l.Plugins) != 8 || len(l.WordPress.Checksums) < 1000 {
		t.Fatalf("the lock written: %v\n%.2000s", err, written)
	}
	code, out, _ = runFixtureCLI(t, "", "fixture", "lock", "--fixture", "agency", "--mirror", srv.URL, "--lock", lock)
	if again, _ := os.ReadFile(lock); code != 0 || strings.Count(out, "kept ") != 9 || string(again) != string(written) {
		t.Fatalf("fixture lock again: exit %d, the lock changed: %v\n%s", code, string(again) != string(written), out)
	}
	hits := srv.Hits()
	code, out, _ = runFixtureCLI(t, "", "fixture", "lock", "--fixture", "agency", "--mirror", srv.URL, "--lock", lock, "-upgrade")
	if again, _ := os.ReadFile(lock); code != 0 || strings.Count(out, "refreshed ") != 9 || srv.Hits()-hits != 10 || string(again) != string(written) {
		t.Fatalf("fixture lock -upgrade: exit %d, %d requests (want 10)\n%s", code, srv.Hits()-hits, out)
	}

	db := testenv.MariaDB(t)
	docroot := filepath.Join(t.TempDir(), "public_html")
	for d := filepath.Dir(docroot); d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o755) // www-data, as whom the plugins' activation runs, must reach it
	}
	t.Cleanup(func() { os.Remove(fixture.RecordPath("", docroot)) })
	site := []string{"--target", "local", "--docroot", docroot, "--owner", "www-data:www-data",
		"--db-addr", db.Addr, "--db-name", db.Name, "--db-user", db.User, "--db-password-stdin"}
	seed := append([]string{"seed", "--fixture", "agency", "--archive-mirror", srv.URL, "--lock", lock}, site...)
	code, out, errs = runFixtureCLI(t, db.Password+"\n", seed...)
	if code != 0 {
		t.Fatalf("seed: exit %d\n%s%s", code, out, errs)
	}
	// What differs from the post is the rows' baseline, and only that.
	if n := strings.Count(errs, "] deviation: "); n != 1 || !strings.Contains(errs, "deviation: rows: the fixture's schema and options follow WordPress 6.1.9's installer, not 7.1.2's") {
		t.Errorf("seed: want exactly the rows' deviation, got %d:\n%s", n, errs)
	}
	base := phpServe(t, docroot)
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, pl := range p.Plugins {
		if !strings.Contains(string(body), "<!-- stand-in "+pl.Slug+" activated -->") {
			t.Errorf("front page: %s is not active (its marker is missing)", pl.Slug)
		}
	}
	verify := append([]string{"verify", "--http", base}, site...)
	if code, out, errs = runFixtureCLI(t, db.Password+"\n", verify...); code != 0 || !strings.HasPrefix(out, "OK agency seed 1") {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errs)
	}
	pf := filepath.Join(docroot, "wp-content/plugins/contact-form-7/wp-contact-form-7.php")
	orig, _ := os.ReadFile(pf)
	os.WriteFile(pf, append(append([]byte{}, orig...), "// edited\n"...), 0o644)
	code, out, errs = runFixtureCLI(t, db.Password+"\n", append([]string{"verify"}, site...)...)
	if code != exitcode.Mismatch || strings.Count(out, "MISMATCH") != 1 || !strings.Contains(out, "MISMATCH plugin-file wp-content/plugins/contact-form-7/wp-contact-form-7.php: sha256 ") {
		t.Fatalf("verify after editing a plugin file: exit %d (want 5), want one line naming it\n%s%s", code, out, errs)
	}
	os.WriteFile(pf, orig, 0o644)

	// The mirror now serves another archive under the locked name: refused.
	pl := p.Plugins[len(p.Plugins)-1]
	bad := standInPlugin(t, pl, "tampered")
	srv.Set(strings.TrimPrefix(pl.ArchiveURL(), "https://"), bad)
	sum := sha256.Sum256(bad)
	os.RemoveAll(filepath.Join(fixture.DefaultArchiveDir, lockedSum(l, pl.Slug)+".d")) // as on a host that never fetched it
	code, out, errs = runFixtureCLI(t, db.Password+"\n", seed...)
	if code != exitcode.Mismatch || !strings.Contains(errs, "archive "+pl.Slug+" "+pl.Version) ||
		!strings.Contains(errs, hex.EncodeToString(sum[:])) || !strings.Contains(errs, lockedSum(l, pl.Slug)) {
		t.Fatalf("seed from a tampered archive: exit %d (want 5), want the archive and both hashes named\n%s%s", code, out, errs)
	}
	// Refused before anything changed: the site is still the fixture.
	if code, out, errs = runFixtureCLI(t, db.Password+"\n", append([]string{"verify"}, site...)...); code != 0 {
		t.Fatalf("verify after a refused seed: exit %d\n%s%s", code, out, errs)
	}
}

func lockedSum(l *fixture.Lock, slug string) string {
	for _, a := range l.Plugins {
		if a.Slug == slug {
			return a.SHA256
		}
	}
	return ""
}

// TestFixtureLockBadInput: usage errors exit 2 and write nothing; an
// archive that is missing fails the lock (and leaves the old one).
func TestFixtureLockBadInput(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "x.lock.hcl")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--fixture", "nosuch", "--lock", lock}, 2, `unknown fixture "nosuch"`},
		{[]string{"--fixture", "agency", "--lock", lock, "--mirror", "ftp://x"}, 2, "want an http(s) URL"},
		{[]string{"--fixture", "agency"}, 2, "not in wptest's source tree"},
		{[]string{"--fixture", "agency", "--lock", lock, "--mirror", "http://127.0.0.1:1"}, 4, "nothing written"},
	} {
		code, out, errs := runFixtureCLI(t, "", append([]string{"fixture", "lock"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("fixture lock %v: exit %d (want %d), want %q\n%s%s", c.args, code, c.code, c.want, out, errs)
		}
		if _, err := os.Stat(lock); !os.IsNotExist(err) {
			t.Errorf("fixture lock %v wrote %s", c.args, lock)
		}
	}
	os.WriteFile(lock, []byte("wordpress {\n  version = 1\n"), 0o644)
	if code, _, errs := runFixtureCLI(t, "", "fixture", "lock", "--fixture", "agency", "--lock", lock); code != 2 || !strings.Contains(errs, "x.lock.hcl:") {
		t.Errorf("a broken lock file: exit %d, want 2 with file:line\n%s", code, errs)
	}
	if code, _, errs := runFixtureCLI(t, "pw\n", "seed", "--fixture", "agency", "--target", "local", "--offline", "--core-download", "--db-password-stdin"); code != 2 || !strings.Contains(errs, "--offline fetches nothing") {
		t.Errorf("seed --offline --core-download: exit %d, want 2\n%s", code, errs)
	}
}
