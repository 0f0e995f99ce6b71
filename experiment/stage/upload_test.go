package stage

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/wptest/wptest/internal/exitcode"
)

var remoteShape = regexp.MustCompile(`^/var/lib/wptest/uploads/[0-9a-f]{64}-[A-Za-z0-9._-]+$`)

// A local file is read and hashed on this machine, and however hostile
// its name (a way up, a newline, quotes, shell syntax, a leading dash),
// its place on the host is one plain name in UploadDir: its hash, then its
// name with every other byte made '_'. A link on this machine is followed
// to a regular file (named as the link) and refused to anything else.
func TestResolveLocalFileHostileNames(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	plain := write("mod_ruid2.c", "plain")
	write("a\nb.c", "newline")
	write(`q'"$(id)`+"`x`.c", "quotes")
	write("-rf ..", "dash")
	os.Symlink(plain, filepath.Join(dir, "link.c"))
	for _, tc := range []struct {
		value, name, body string // name: after the hash
	}{
		{"local+file://" + plain, "mod_ruid2.c", "plain"},
		{"local+file://" + dir + "/sub/../mod_ruid2.c", "mod_ruid2.c", "plain"},
		{"local+file://" + dir + "/a%0Ab.c", "a_b.c", "newline"},
		{"local+file://" + dir + "/" + `q'"$(id)` + "`x`.c", "q____id__x_.c", "quotes"},
		{"local+file://" + dir + "/-rf%20..", "-rf_..", "dash"},
		{"local+file://" + dir + "/link.c", "link.c", "plain"},
	} {
		f, err := ReadLocalFile("src", tc.value)
		if err != nil {
			t.Errorf("%q: %v", tc.value, err)
			continue
		}
		sum := sha256.Sum256([]byte(tc.body))
		if f.SHA256 != hex.EncodeToString(sum[:]) || f.Size != int64(len(tc.body)) || string(f.data) != tc.body {
			t.Errorf("%q: sha256 %s size %d, want the hash and size of %q", tc.value, f.SHA256, f.Size, tc.body)
		}
		if want := f.SHA256 + "-" + tc.name; f.Name() != want {
			t.Errorf("%q: name %q, want %q", tc.value, f.Name(), want)
		}
		r := f.Remote()
		if !remoteShape.MatchString(r) || path.Dir(r) != UploadDir || path.Clean(r) != r {
			t.Errorf("%q: remote %q is not one plain name in %s", tc.value, r, UploadDir)
		}
		if f.URL() != "file://"+r {
			t.Errorf("%q: URL %q", tc.value, f.URL())
		}
	}
}

// What cannot be read as a regular file of this machine is a config error
// (exit 2) naming the variable and the path: missing, a directory, a
// device, a FIFO (refused without blocking), /proc's files, a link out of
// the file's directory (to a key elsewhere, a directory, a device) or to
// nothing, a relative path, a bad percent sign.
func TestResolveLocalFileRefuses(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	key := filepath.Join(elsewhere, "id_ed25519")
	os.WriteFile(key, []byte("PRIVATE KEY"), 0o600)
	os.Symlink(dir, filepath.Join(dir, "dirlink"))
	os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "dangling"))
	os.Symlink("/dev/zero", filepath.Join(dir, "zero"))
	os.Symlink(key, filepath.Join(dir, "key.c"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.c"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Symlink(elsewhere, filepath.Join(dir, "dlink"))
	environ := fmt.Sprintf("/proc/%d/environ", os.Getpid())
	for _, tc := range []struct{ value, path, why string }{
		{"local+file://" + dir + "/missing.c", dir + "/missing.c", "no such file"},
		{"local+file://" + dir, dir, "not a regular file"},
		{"local+file://" + dir + "/dirlink", dir + "/dirlink", "a link out of its directory"},
		{"local+file://" + dir + "/dangling", dir + "/dangling", "no such file"},
		{"local+file://" + dir + "/zero", dir + "/zero", "a link out of its directory"},
		{"local+file://" + dir + "/key.c", dir + "/key.c", "a link out of its directory"},
		{"local+file://" + dir + "/fifo.c", dir + "/fifo.c", "not a regular file"},
		{"local+file:///dev/null", "/dev/null", "not a regular file"},
		{"local+file:///proc/self/environ", "/proc/self/environ", "reached through a link"},
		{"local+file://" + environ, environ, "on proc"},
		{"local+file:///proc/self/root/etc/hostname", "/proc/self/root/etc/hostname", "reached through a link"},
		{"local+file://" + dir + "/dlink/id_ed25519", dir + "/dlink/id_ed25519", "reached through a link"},
		{"local+file:///sys/kernel/uevent_seqnum", "/sys/kernel/uevent_seqnum", "on sysfs"},
		{"local+file://" + dir + "/../" + filepath.Base(dir) + "/x/../missing", dir + "/missing", "no such file"},
		{"local+file://relative/x.c", "relative/x.c", "three slashes"},
		{"local+file:///tmp/%zz", "/tmp/%zz", "percent-encoding"},
	} {
		_, err := ReadLocalFile("ruid2_source_url", tc.value)
		if err == nil {
			t.Errorf("%q: accepted", tc.value)
			continue
		}
		if exitcode.Of(err) != exitcode.Config {
			t.Errorf("%q: exit %d, want %d", tc.value, exitcode.Of(err), exitcode.Config)
		}
		for _, want := range []string{"ruid2_source_url", tc.path, tc.why} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q: error lacks %q: %v", tc.value, want, err)
			}
		}
	}
}

// ResolveArgs makes only local+file values the files' places on the host,
// keeps every other argument as given, and stops at the first bad file.
func TestResolveArgs(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "pkg.deb")
	os.WriteFile(p, []byte("deb"), 0o644)
	args := []string{"package_source=local+file://" + p, "package_sha256=abc", "url=file:///root/x.c", "noeq"}
	got, files, err := ResolveArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Var != "package_source" || files[0].Path != p {
		t.Fatalf("files %+v", files)
	}
	want := []string{"package_source=" + files[0].URL(), "package_sha256=abc", "url=file:///root/x.c", "noeq"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("args %q, want %q", got, want)
	}
	if args[0] != "package_source=local+file://"+p {
		t.Errorf("the caller's args changed: %q", args[0])
	}
	var line strings.Builder
	WriteLocalFiles(&line, files)
	for _, w := range []string{"upload package_source: " + p, "sha256 " + files[0].SHA256, "3 bytes", files[0].Remote()} {
		if !strings.Contains(line.String(), w) {
			t.Errorf("plan line lacks %q: %s", w, line.String())
		}
	}
	if _, _, err := ResolveArgs([]string{"a=local+file://" + dir + "/nope"}); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
