package host

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wptest/wptest/internal/testenv"
)

// TestReadFileAsFollowsNoLink: in a directory the site user holds,
// ReadFileAs reads a regular file and nothing else: a link (to /dev/zero,
// to a root-only file) is named, never followed; a FIFO is not waited on;
// a file past the bound is refused without reading it into memory; a
// root-only file there is unreadable to the user. Nothing of the root-only
// file's bytes comes back in any error.
func TestReadFileAsFollowsNoLink(t *testing.T) {
	testenv.NeedRoot(t)
	testenv.NeedBinary(t, "setpriv")
	ctx := context.Background()
	h := NewLocal(nil)
	www, wwwG := ids(t, "www-data")
	base := testenv.PassableTempDir(t)
	const secret = "root only: 7f3a9c-secret\n"
	canary := filepath.Join(base, "canary")
	os.WriteFile(canary, []byte(secret), 0o600)
	doc := filepath.Join(base, "doc")
	os.Mkdir(doc, 0o755)
	os.Chown(doc, www, wwwG)
	mk := func(name string, f func(p string) error) string {
		p := filepath.Join(doc, name)
		if err := f(p); err != nil {
			t.Fatal(err)
		}
		os.Lchown(p, www, wwwG)
		return p
	}
	ok := mk("ok.json", func(p string) error { return os.WriteFile(p, []byte(`{"ok":1}`), 0o644) })
	zero := mk("zero.json", func(p string) error { return os.Symlink("/dev/zero", p) })
	toRoot := mk("root.json", func(p string) error { return os.Symlink(canary, p) })
	fifo := mk("fifo.json", func(p string) error { return syscall.Mkfifo(p, 0o644) })
	big := mk("big.json", func(p string) error { return os.WriteFile(p, make([]byte, 4096), 0o644) })
	rootFile := filepath.Join(doc, "rootfile.json")
	os.WriteFile(rootFile, []byte(secret), 0o600) // root's, in the user's directory

	if b, err := ReadFileAs(ctx, h, "www-data", "", ok, 1024); err != nil || string(b) != `{"ok":1}` {
		t.Errorf("regular file: %q %v", b, err)
	}
	for p, typ := range map[string]string{zero: "symbolic link", toRoot: "symbolic link", fifo: "fifo", doc: "directory"} {
		_, err := ReadFileAs(ctx, h, "www-data", "", p, 1024)
		var nr *NotRegularError
		if !errors.As(err, &nr) || nr.Type != typ || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want a %s refused", p, err, typ)
		}
	}
	// Root reads no link either (empty user: the connecting user).
	if _, err := ReadFileAs(ctx, h, "", "", toRoot, 1024); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("as root, a link to a root-only file: %v", err)
	}
	var tl *TooLargeError
	if _, err := ReadFileAs(ctx, h, "www-data", "", big, 4095); !errors.As(err, &tl) {
		t.Errorf("a file past the bound: %v", err)
	}
	if b, err := ReadFileAs(ctx, h, "www-data", "", big, 4096); err != nil || len(b) != 4096 {
		t.Errorf("a file at the bound: %d bytes, %v", len(b), err)
	}
	if _, err := ReadFileAs(ctx, h, "www-data", "", filepath.Join(doc, "nothing"), 1024); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("nothing there: %v, want fs.ErrNotExist", err)
	}
	if b, err := ReadFileAs(ctx, h, "www-data", "", rootFile, 1024); err == nil || strings.Contains(err.Error(), "secret") || len(b) > 0 {
		t.Errorf("root's file in the user's directory: %q %v, want unreadable", b, err)
	}
}
