package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// hostileDir is a directory with a planted link at "link" and "link.tmp"
// (to a canary outside it), a FIFO, a hard link to the canary, a
// directory and a link to /dev/zero.
func hostileDir(t *testing.T) (dir, canary string) {
	t.Helper()
	dir, out := t.TempDir(), t.TempDir()
	canary = filepath.Join(out, "canary")
	if err := os.WriteFile(canary, []byte("canary\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"link", "link.tmp"} {
		if err := os.Symlink(canary, filepath.Join(dir, l)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(canary, filepath.Join(dir, "hard")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, canary
}

func checkCanary(t *testing.T, canary string) {
	t.Helper()
	if b, err := os.ReadFile(canary); err != nil || string(b) != "canary\n" {
		t.Fatalf("canary: %q, %v", b, err)
	}
}

// TestOpenRefuses: nothing but a regular file is opened, a FIFO without
// blocking, and nothing with another name is opened to write.
func TestOpenRefuses(t *testing.T) {
	dir, canary := hostileDir(t)
	for _, c := range []struct {
		name string
		flag int
		want string
	}{
		{"link", os.O_RDONLY, "is a symbolic link"},
		{"link", os.O_WRONLY | os.O_APPEND | os.O_CREATE, "is a symbolic link"},
		{"zero", os.O_RDONLY, "is a symbolic link"},
		{"fifo", os.O_RDONLY, "is a named pipe"},
		{"fifo", os.O_WRONLY | os.O_APPEND | os.O_CREATE, "is a named pipe"},
		{"sub", os.O_RDONLY, "is a directory"},
		{"hard", os.O_WRONLY | os.O_APPEND, "has 2 names"},
		{"hard", os.O_RDWR | os.O_CREATE, "has 2 names"},
	} {
		f, err := Open(filepath.Join(dir, c.name), c.flag, 0o644)
		if err == nil {
			f.Close()
			t.Errorf("%s (flag %#x): opened", c.name, c.flag)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), filepath.Join(dir, c.name)) {
			t.Errorf("%s: %v, want the path and %q", c.name, err, c.want)
		}
	}
	checkCanary(t, canary)
	f, err := Append(filepath.Join(dir, "new"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestWriteReplacesLinks: a link at the final name or at name.tmp is
// replaced by the new file, and the file it pointed at is untouched.
func TestWriteReplacesLinks(t *testing.T) {
	dir, canary := hostileDir(t)
	for _, name := range []string{"link", "zero", "fifo", "hard"} {
		p := filepath.Join(dir, name)
		if err := Write(p, []byte("new\n"), 0o640); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o640 {
			t.Fatalf("%s after Write: %v, %v", name, fi, err)
		}
		if b, _ := os.ReadFile(p); string(b) != "new\n" {
			t.Errorf("%s: %q", name, b)
		}
	}
	checkCanary(t, canary)
	if fi, err := os.Lstat(filepath.Join(dir, "link.tmp")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.tmp: %v, %v (left alone)", fi, err)
	}
	if err := Write(filepath.Join(dir, "sub"), []byte("x"), 0o644); err == nil {
		t.Errorf("Write over a directory succeeded")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") && e.Name() != "link.tmp" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestReadFileBound: a file over the bound is refused from its size (a
// sparse file of 1 GiB reads nothing), one under it is read whole.
func TestReadFileBound(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 1<<30); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(p, 1<<20); err == nil || !strings.Contains(err.Error(), p+": larger than 1 MiB") {
		t.Errorf("1 GiB file with a 1 MiB bound: %v", err)
	}
	if err := os.WriteFile(p, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(p, 5); err != nil || string(b) != "12345" {
		t.Errorf("5 bytes, bound 5: %q, %v", b, err)
	}
	if _, err := ReadFile(p, 4); err == nil {
		t.Errorf("5 bytes, bound 4: read")
	}
}
