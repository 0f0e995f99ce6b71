package profiles_test

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/wptest/wptest/internal/testenv"
)

// TestPrecompressWorksAsSiteUser runs the profiles' wptest-precompress as
// root with the site user (nobody here), as the profiles do: making the
// copies, --list and --remove each do their work with that user's rights.
// A copy inside a directory of root's in the docroot (which the user could
// not remove) is listed but survives --remove, which fails; the user's
// own copies go. A docroot swapped for a link lists and removes nothing.
func TestPrecompressWorksAsSiteUser(t *testing.T) {
	testenv.NeedRoot(t)
	testenv.NeedBinary(t, "setpriv")
	src, err := os.ReadFile("_parts/site/templates/shared/wptest-precompress")
	if err != nil {
		t.Fatal(err)
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	gid, _ := strconv.Atoi(nobody.Gid)
	base := t.TempDir()
	for _, d := range []string{filepath.Dir(base), base} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(base, "wptest-precompress")
	if err := os.WriteFile(script, src, 0o755); err != nil {
		t.Fatal(err)
	}
	docroot := filepath.Join(base, "public_html")
	css := filepath.Join(docroot, "wp-includes", "a.css")
	rootDir := filepath.Join(docroot, "roots")
	rootCopy := filepath.Join(rootDir, "r.css.gz")
	for _, d := range []string{docroot, filepath.Dir(css), rootDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(css, []byte(strings.Repeat("body { color: #123; }\n", 40)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{docroot, filepath.Dir(css), css} {
		if err := os.Lchown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(rootCopy, []byte("root's"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		out, err := exec.Command("sh", append([]string{script}, args...)...).Output()
		return string(out), err
	}

	if out, err := run(docroot, "nobody"); err != nil {
		t.Fatalf("precompress: %v\n%s", err, out)
	}
	fi, err := os.Stat(css + ".gz")
	if err != nil {
		t.Fatal(err)
	}
	if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != uid {
		t.Errorf("the copy is uid %d's, want the site user's %d", st.Uid, uid)
	}
	out, err := run("--list", docroot, "nobody")
	if err != nil {
		t.Fatalf("--list: %v", err)
	}
	got := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	if len(got) != 2 || !strings.HasSuffix(out, "\x00") || !slices.Contains(got, "wp-includes/a.css.gz") || !slices.Contains(got, "roots/r.css.gz") {
		t.Errorf("--list printed %q, want wp-includes/a.css.gz and roots/r.css.gz, each ended by NUL", out)
	}

	link := filepath.Join(base, "public_html.link")
	if err := os.Symlink(docroot, link); err != nil {
		t.Fatal(err)
	}
	if out, err := run("--list", link, "nobody"); err != nil || out != "" {
		t.Errorf("--list of a docroot that is a link: %q, %v; want nothing", out, err)
	}
	if _, err := run("--remove", link, "nobody"); err != nil {
		t.Errorf("--remove of a docroot that is a link: %v", err)
	}
	if _, err := os.Stat(css + ".gz"); err != nil {
		t.Errorf("--remove through a linked docroot removed the copy: %v", err)
	}

	if _, err := run("--remove", docroot, "nobody"); err == nil {
		t.Errorf("--remove with a copy the site user cannot remove: exit 0")
	}
	if _, err := os.Stat(rootCopy); err != nil {
		t.Errorf("--remove as the site user removed root's %s: %v", rootCopy, err)
	}
	if _, err := os.Stat(css + ".gz"); !os.IsNotExist(err) {
		t.Errorf("--remove left the site user's copy: %v", err)
	}
	if _, err := os.Stat(css); err != nil {
		t.Errorf("--remove removed the file itself: %v", err)
	}
}
