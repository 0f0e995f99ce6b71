package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/testenv"
)

// TestVerifyFollowsNoLinkOfTheSiteUser: the site user (PHP runs as them;
// the docroot is theirs) puts a link to /dev/zero, a link to a root-only
// file or a FIFO where the fixture has a file, and at the site's own marker
// (.wptest-fixture.json, which verify reads first). Each time verify exits
// 5 with a MISMATCH naming that file; it never follows the link (nothing of
// the root-only file, not its bytes, size or hash, is printed), never waits
// on the FIFO, and never holds more than a bounded amount of memory (a
// watchdog fails the test past 512 MiB: /dev/zero read whole grows without
// end).
func TestVerifyFollowsNoLinkOfTheSiteUser(t *testing.T) {
	testenv.NeedRoot(t)
	testenv.NeedBinary(t, "php")
	_, err := os.Stat("/usr/share/wordpress/wp-includes/version.php")
	testenv.Need(t, err == nil, "Debian's wordpress package")
	db := testenv.MariaDB(t)
	dir := testenv.PassableTempDir(t)
	docroot := filepath.Join(dir, "public_html")
	t.Cleanup(func() { os.Remove(fixture.RecordPath("", docroot)) })
	os.MkdirAll(docroot, 0o755)
	uid, gid := testenv.UserIDs(t, "www-data")
	os.Chown(docroot, uid, gid)
	const secret = "root only: the operator's key 5e1f\n"
	rootOnly := filepath.Join(dir, "root-only")
	os.WriteFile(rootOnly, []byte(secret), 0o600)
	secretSum := sha256.Sum256([]byte(secret))
	common := []string{"--target", "local", "--docroot", docroot, "--owner", "www-data:www-data",
		"--db-addr", db.Addr, "--db-name", db.Name, "--db-user", db.User, "--db-password-stdin"}
	if code, out, errs := runFixtureCLI(t, db.Password+"\n", append([]string{"seed", "--fixture", "minimal"}, common...)...); code != 0 {
		t.Fatalf("seed: code %d\n%s%s", code, out, errs)
	}
	stop := heapWatchdog(512 << 20)
	defer stop()
	verify := func() (int, string, string) {
		return runFixtureCLI(t, db.Password+"\n", append([]string{"verify"}, common...)...)
	}
	const img = "wp-content/uploads/2025/01/fx-img-001.png"
	for _, name := range []string{img, "wp-config.php", fixture.MarkerFile} {
		p := filepath.Join(docroot, name)
		orig, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			what  string
			plant func() error
		}{
			{"a link to /dev/zero", func() error { return os.Symlink("/dev/zero", p) }},
			{"a link to a root-only file", func() error { return os.Symlink(rootOnly, p) }},
			{"a FIFO", func() error { return syscall.Mkfifo(p, 0o644) }},
		} {
			os.Remove(p)
			if err := c.plant(); err != nil {
				t.Fatal(err)
			}
			os.Lchown(p, uid, gid)
			start := time.Now()
			code, out, errs := verify()
			t.Logf("%s as %s: exit %d in %s", name, c.what, code, time.Since(start).Round(time.Millisecond))
			all := out + errs
			if code != int(exitcode.Mismatch) || !strings.Contains(all, name) {
				t.Errorf("%s as %s: exit %d, want %d naming it:\n%s", name, c.what, code, exitcode.Mismatch, all)
			}
			if name != fixture.MarkerFile && !strings.Contains(out, "MISMATCH file "+name+": a ") {
				t.Errorf("%s as %s: no MISMATCH line for it:\n%s", name, c.what, all)
			}
			for _, leak := range []string{secret[:20], hex.EncodeToString(secretSum[:])[:16], fmt.Sprintf("(%d bytes", len(secret))} {
				if strings.Contains(all, leak) {
					t.Errorf("%s as %s: verify printed %q of the root-only file:\n%s", name, c.what, leak, all)
				}
			}
			os.Remove(p)
			os.WriteFile(p, orig, fi.Mode().Perm())
			os.Chmod(p, fi.Mode().Perm())
			os.Chown(p, uid, gid)
		}
		if code, out, errs := verify(); code != 0 {
			t.Fatalf("%s put back: code %d\n%s%s", name, code, out, errs)
		}
	}
	// A name the site user chose reaches the terminal without its control
	// characters (it could erase the MISMATCH line and print a false OK).
	evil := filepath.Join(docroot, "wp-content", "x\x1b[2K\rOK minimal seed 1 \x1b]0;owned\a.txt")
	os.WriteFile(evil, []byte("x"), 0o644)
	os.Chown(evil, uid, gid)
	for _, o := range [][]string{nil, {"-o", "json"}} {
		code, out, errs := runFixtureCLI(t, db.Password+"\n", append(append([]string{"verify"}, o...), common...)...)
		if code != int(exitcode.Mismatch) || strings.ContainsAny(out+errs, "\x1b\a\r") {
			t.Errorf("verify %v with a name holding escapes: exit %d, and a control character reached the terminal: %q", o, code, out+errs)
		}
	}
	os.Remove(evil)
	// Without --owner, verify reads as the docroot's own user, not root: a
	// link to the root-only file is a mismatch that prints nothing of it;
	// a docroot that is itself a link is refused.
	noOwner := slices.DeleteFunc(slices.Clone(common), func(a string) bool { return a == "--owner" || a == "www-data:www-data" })
	p := filepath.Join(docroot, "wp-config.php")
	orig, _ := os.ReadFile(p)
	os.Remove(p)
	os.Symlink(rootOnly, p)
	os.Lchown(p, uid, gid)
	code, out, errs := runFixtureCLI(t, db.Password+"\n", append([]string{"verify"}, noOwner...)...)
	if code != int(exitcode.Mismatch) || strings.Contains(out+errs, secret[:20]) || strings.Contains(out+errs, hex.EncodeToString(secretSum[:])[:16]) {
		t.Errorf("verify without --owner over a link to a root-only file: exit %d\n%s%s", code, out, errs)
	}
	os.Remove(p)
	os.WriteFile(p, orig, 0o644)
	os.Chown(p, uid, gid)
	linked := filepath.Join(dir, "docroot-link")
	os.Symlink(docroot, linked)
	code, out, errs = runFixtureCLI(t, db.Password+"\n", append([]string{"verify"}, append(noOwner, "--docroot", linked)...)...)
	if code == 0 || !strings.Contains(out+errs, "is a symbolic link") {
		t.Errorf("verify without --owner of a docroot that is a link: exit %d\n%s%s", code, out, errs)
	}
	if b, _ := os.ReadFile(rootOnly); string(b) != secret {
		t.Errorf("the root-only file now reads %q", b)
	}
}

// heapWatchdog panics (failing the test binary at once, with this
// message) when the heap passes max bytes; stop ends it.
func heapWatchdog(max uint64) (stop func()) {
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > max {
				panic(fmt.Sprintf("heap at %d MiB, past the %d MiB bound: something is read whole that has no end", ms.HeapAlloc>>20, max>>20))
			}
		}
	}()
	return func() { close(done) }
}
