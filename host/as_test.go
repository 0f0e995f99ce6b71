package host

import (
	"context"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/wptest/wptest/internal/testenv"
)

func ids(t *testing.T, name string) (int, int) {
	t.Helper()
	u, err := user.Lookup(name)
	testenv.Need(t, err == nil, "user "+name)
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return uid, gid
}

// TestHolder: who besides root can change what a path names, for each
// kind of directory on the way (the answer decides whether root may write
// there itself).
func TestHolder(t *testing.T) {
	testenv.NeedRoot(t)
	ctx := context.Background()
	h := NewLocal(nil)
	www, wwwG := ids(t, "www-data")
	nob, nobG := ids(t, "nobody")
	base := t.TempDir()
	mk := func(p string, mode os.FileMode, uid, gid int) string {
		t.Helper()
		p = filepath.Join(base, p)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		syscall.Chmod(p, uint32(mode)) // os.Chmod would drop the sticky bit
		os.Chown(p, uid, gid)
		return p
	}
	mk("root", 0o755, 0, 0)
	home := mk("home", 0o711, www, wwwG)
	mk("home/docroot", 0o755, www, wwwG)
	mk("home/docroot/other", 0o755, nob, nobG)
	mk("tmp", 0o1777, 0, 0) // as /tmp
	mk("tmp/rootdir", 0o700, 0, 0)
	mk("tmp/wwwdir", 0o700, www, wwwG)
	mk("open", 0o777, 0, 0)
	mk("staff", 0o775, 0, nobG)
	os.Symlink("/etc", filepath.Join(home, "docroot", "etc-link"))
	os.Symlink(filepath.Join(base, "home", "docroot"), filepath.Join(base, "root", "to-docroot"))
	for _, c := range []struct{ path, want string }{
		{"root/x", "root"},
		{"root/missing/x", "root"},
		{"home/x", "www-data"},
		{"home/docroot/wp-content/x", "www-data"},
		{"home/docroot/etc-link/passwd", "www-data"}, // as written and as resolved (/etc)
		{"root/to-docroot/x", "www-data"},            // a root link into the user's directory
		{"home/docroot/other/x", "unsafe: "},
		{"tmp/rootdir/x", "root"},
		{"tmp/wwwdir/x", "www-data"},
		{"tmp/missing", "unsafe: anyone may make"},
		{"tmp/missing/deeper/x", "unsafe: anyone may make"}, // the sticky directory's child on the way, not yet made
		{"tmp/wwwdir/sub/x", "www-data"},
		{"open/x", "unsafe: others may write in"},
		{"staff/x", "unsafe: others may write in"},
	} {
		res, err := h.Run(ctx, Cmd{Script: HolderScript(filepath.Join(base, c.path))})
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		got := strings.TrimSpace(string(res.Stdout))
		if strings.HasPrefix(c.want, "unsafe") && !strings.HasPrefix(got, c.want) || !strings.HasPrefix(c.want, "unsafe") && got != c.want {
			t.Errorf("holder of %s: %q, want %q", c.path, got, c.want)
		}
	}
}

// TestPutAsFollowsNoLinkOfTheUser: a file put as the directory's user
// through a link that user planted at its name replaces the link; through
// a directory swapped for a link to a root directory, it fails (the user
// may not write there) and the root file keeps its owner, mode and bytes.
func TestPutAsFollowsNoLinkOfTheUser(t *testing.T) {
	testenv.NeedRoot(t)
	testenv.NeedBinary(t, "setpriv")
	ctx := context.Background()
	h := NewLocal(nil)
	www, wwwG := ids(t, "www-data")
	base := t.TempDir()
	os.Chmod(base, 0o711)
	os.Chmod(filepath.Dir(base), 0o711)
	canary := filepath.Join(base, "canary")
	os.WriteFile(canary, []byte("root's\n"), 0o600)
	rootDir := filepath.Join(base, "rootdir")
	os.Mkdir(rootDir, 0o755)
	doc := filepath.Join(base, "doc")
	os.Mkdir(doc, 0o755)
	os.Chown(doc, www, wwwG)
	os.Symlink(canary, filepath.Join(doc, "f.php"))
	os.Symlink(rootDir, filepath.Join(doc, "sub"))

	if err := PutAs(ctx, h, "www-data", "", filepath.Join(doc, "f.php"), strings.NewReader("new\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(filepath.Join(doc, "f.php"))
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o640 {
		t.Fatalf("f.php after PutAs: %v %v, want a regular 0640 file in place of the link", fi, err)
	}
	if err := PutAs(ctx, h, "www-data", "", filepath.Join(doc, "sub", "x"), strings.NewReader("new\n"), 0o644); err == nil {
		t.Error("PutAs through a link to a root directory: no error")
	}
	if _, err := os.Lstat(filepath.Join(rootDir, "x")); err == nil {
		t.Error("PutAs wrote into the root directory a link led to")
	}
	if b, _ := os.ReadFile(canary); string(b) != "root's\n" {
		t.Errorf("canary now %q", b)
	}
	if fi, _ := os.Stat(canary); fi.Mode().Perm() != 0o600 {
		t.Errorf("canary mode %v", fi.Mode())
	}
	// As root (empty user) it is an ordinary atomic write.
	p := filepath.Join(rootDir, "y")
	if err := PutAs(ctx, h, "", "", p, strings.NewReader("y"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "y" {
		t.Errorf("y: %q", b)
	}
	res, err := RunAs(ctx, h, "www-data", "", Cmd{Script: "id -un; pwd"})
	if err != nil || strings.Fields(string(res.Stdout))[0] != "www-data" || strings.Fields(string(res.Stdout))[1] != "/" {
		t.Errorf("RunAs www-data: %q %v", res.Stdout, err)
	}
}

// TestHolderUnderARename: the user who owns an entry of a sticky directory
// renames it away and back while root asks who holds a path under it; the
// answer is never "root" (the entry is theirs: swapped for a link, it would
// lead root anywhere). The answer must hold under any interleaving; a
// holder that judged the sticky directory by the wrong child said "root"
// in about 1 of 80 asks.
func TestHolderUnderARename(t *testing.T) {
	testenv.NeedRoot(t)
	testenv.NeedBinary(t, "setpriv")
	testenv.NeedBinary(t, "perl")
	ctx := context.Background()
	h := NewLocal(nil)
	www, wwwG := ids(t, "www-data")
	base := t.TempDir()
	os.Chmod(base, 0o755)
	os.Chmod(filepath.Dir(base), 0o755)
	s := filepath.Join(base, "s")
	os.Mkdir(s, 0o755)
	syscall.Chmod(s, 0o1777)
	os.MkdirAll(filepath.Join(s, "a", "b"), 0o755)
	os.Chown(filepath.Join(s, "a"), www, wwwG)
	renamer := exec.Command("setpriv", "--reuid=www-data", "--regid=www-data", "--clear-groups", "--", "perl", "-e",
		`chdir $ARGV[0] or die; while (1) { rename "a", "a2"; rename "a2", "a" }`, s)
	if err := renamer.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { renamer.Process.Kill(); renamer.Wait() }()
	p := filepath.Join(s, "a", "b", "x")
	res, err := h.Run(ctx, Cmd{Script: holderFunc + "for i in $(seq 300); do wptest_holder " + Quote(p) + "; done"})
	if err != nil {
		t.Fatal(err)
	}
	answers := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(res.Stdout)), "\n") {
		answers[l]++
	}
	if answers["root"] > 0 {
		t.Errorf("asked 300 times under a rename, the holder of %s was root %d times: %v", p, answers["root"], answers)
	}
}
