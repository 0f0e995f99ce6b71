package provision

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
)

// checkApply runs Check, Apply when needed, and Check again (which must
// then find nothing to do), returning the first Change.
func checkApply(t *testing.T, h host.Host, op Op) Change {
	t.Helper()
	ctx := context.Background()
	c, err := op.Check(ctx, h)
	if err != nil {
		t.Fatalf("%s check: %v", op.ID(), err)
	}
	if c.Needed {
		if err := op.Apply(ctx, h, c); err != nil {
			t.Fatalf("%s apply: %v", op.ID(), err)
		}
	}
	again, err := op.Check(ctx, h)
	if err != nil || again.Needed {
		t.Fatalf("%s after apply: %+v %v", op.ID(), again, err)
	}
	return c
}

func TestFileOpLocal(t *testing.T) {
	testenv.NeedRoot(t) // applies root-owned files on this host
	h := host.NewLocal(nil)
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "f.conf")
	op := &FileOp{opBase: opBase{id: "file.f", kind: "file"}, Path: p, Body: []byte("a\n"), Mode: 0o640}

	if c := checkApply(t, h, op); c.Action != "create" {
		t.Fatalf("first: %+v", c)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v", fi.Mode())
	}
	// Only the mode drifted: chmod, the bytes are not rewritten (same inode).
	os.Chmod(p, 0o600)
	before, _ := os.Stat(p)
	if c := checkApply(t, h, op); c.Action != "update" || len(c.Details) != 1 || c.Details[0] != "mode: 0600 -> 0640" {
		t.Fatalf("mode drift: %+v", c)
	}
	after, _ := os.Stat(p)
	if !os.SameFile(before, after) {
		t.Error("a mode-only change rewrote the file")
	}
	op.Body = []byte("b\n")
	if c := checkApply(t, h, op); c.Action != "update" || len(c.Details) != 1 {
		t.Fatalf("content change: %+v", c)
	}
	if b, _ := os.ReadFile(p); string(b) != "b\n" {
		t.Fatalf("content %q", b)
	}
	// A directory in the way is an error, not silently replaced.
	op.Path = dir
	if _, err := op.Check(context.Background(), h); err == nil {
		t.Fatal("file op over a directory: no error")
	}
}

func TestDirLinkOpsLocal(t *testing.T) {
	testenv.NeedRoot(t) // applies root-owned files on this host
	h := host.NewLocal(nil)
	dir := t.TempDir()
	d := &DirOp{opBase: opBase{id: "directory.d"}, Path: filepath.Join(dir, "a", "b"), Mode: 0o750}
	if c := checkApply(t, h, d); c.Action != "create" {
		t.Fatalf("dir: %+v", c)
	}
	os.Chmod(d.Path, 0o755)
	if c := checkApply(t, h, d); c.Action != "update" {
		t.Fatalf("dir mode: %+v", c)
	}
	l := &LinkOp{opBase: opBase{id: "link.l"}, Path: filepath.Join(dir, "cur"), Target: d.Path}
	if c := checkApply(t, h, l); c.Action != "create" {
		t.Fatalf("link: %+v", c)
	}
	l.Target = dir
	if c := checkApply(t, h, l); c.Action != "update" {
		t.Fatalf("link retarget: %+v", c)
	}
	if got, _ := os.Readlink(l.Path); got != dir {
		t.Fatalf("link -> %q", got)
	}
}

func TestCommandGuardsLocal(t *testing.T) {
	h := host.NewLocal(nil)
	dir := t.TempDir()
	marker := filepath.Join(dir, "m")
	for _, tc := range []struct {
		name string
		op   CommandOp
		want bool
	}{
		{"creates missing", CommandOp{Run: "touch " + marker, Creates: marker}, true},
		{"unless fails", CommandOp{Run: "true", Unless: "false"}, true},
		{"unless passes", CommandOp{Run: "true", Unless: "true"}, false},
		{"only_if fails", CommandOp{Run: "true", OnlyIf: "false"}, false},
		{"only_if passes", CommandOp{Run: "true", OnlyIf: "test -d " + dir}, true},
		{"no guard", CommandOp{Run: "true"}, true},
	} {
		tc.op.id = "command." + tc.name
		c, err := tc.op.Check(context.Background(), h)
		if err != nil || c.Needed != tc.want {
			t.Errorf("%s: needed=%v err=%v, want %v", tc.name, c.Needed, err, tc.want)
		}
	}
	op := &CommandOp{opBase: opBase{id: "command.c"}, Run: "touch " + marker, Creates: marker}
	checkApply(t, h, op)
}

func TestPackageCheckLocal(t *testing.T) {
	testenv.NeedBinary(t, "dpkg-query")
	h := host.NewLocal(nil)
	op := &PackageOp{opBase: opBase{id: "package.p"}, Names: []string{"coreutils", "wptest-no-such-package"}, Manager: "apt"}
	c, err := op.Check(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	// coreutils is installed; only the missing one would be installed.
	if !c.Needed || c.Action != "install" || !slices.Equal(c.state.([]string), []string{"wptest-no-such-package"}) {
		t.Fatalf("%+v", c)
	}
	op.Absent = true
	op.Names = []string{"wptest-no-such-package"}
	if c, err := op.Check(context.Background(), h); err != nil || c.Needed {
		t.Fatalf("absent package that is absent: %+v %v", c, err)
	}
}

func TestServiceDefaultCommands(t *testing.T) {
	s := &ServiceOp{Name: "apache2", Cmds: map[string]string{}}
	for _, tc := range []struct{ init, which, want string }{
		{"systemd", "start", "systemctl start apache2"},
		{"systemd", "status", "systemctl is-active --quiet apache2"},
		{"none", "reload", "service apache2 reload"},
		{"none", "ready", "service apache2 status"},
	} {
		if got := s.command(tc.init, tc.which); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.init, tc.which, got, tc.want)
		}
	}
	custom := &ServiceOp{Name: "x", Cmds: map[string]string{"start": "s", "stop": "t", "status": "u"}}
	if custom.command("none", "reload") != "" || custom.command("none", "restart") != "" || custom.command("none", "ready") != "u" {
		t.Error("custom service: reload/restart must fall back to stop+start, ready to status")
	}
}

// TestOpsInAUsersDirectoryFollowNoLink: in a directory a user holds (the
// site user's docroot), file and directory ops run as that user, so a link
// the user swaps in between Check and Apply leads nowhere root's: the root
// file and directory it points to keep their owner, mode and bytes. An op
// that would have to be root's there, or sits in a directory others may
// write in, is refused at Check.
func TestOpsInAUsersDirectoryFollowNoLink(t *testing.T) {
	testenv.NeedRoot(t)
	testenv.NeedBinary(t, "setpriv")
	ctx := context.Background()
	h := host.NewLocal(nil)
	uid, gid := testenv.UserIDs(t, "www-data")
	base := testenv.PassableTempDir(t)
	canary := filepath.Join(base, "canary")
	os.WriteFile(canary, []byte("root's\n"), 0o600)
	rootDir := filepath.Join(base, "rootdir")
	os.Mkdir(rootDir, 0o700)
	home := filepath.Join(base, "home")
	os.Mkdir(home, 0o711)
	os.Chown(home, uid, gid)
	intact := func(when string) {
		t.Helper()
		for _, p := range []string{canary, rootDir} {
			fi, err := os.Lstat(p)
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			st := fi.Sys().(*syscall.Stat_t)
			if st.Uid != 0 || st.Gid != 0 || fi.Mode().Perm() != map[string]os.FileMode{canary: 0o600, rootDir: 0o700}[p] {
				t.Errorf("%s: %s is now %d:%d %v", when, p, st.Uid, st.Gid, fi.Mode())
			}
		}
		if b, _ := os.ReadFile(canary); string(b) != "root's\n" {
			t.Errorf("%s: canary holds %q", when, b)
		}
		if es, _ := os.ReadDir(rootDir); len(es) != 0 {
			t.Errorf("%s: %d entries appeared in the root directory", when, len(es))
		}
	}
	swap := func(p, target string) {
		t.Helper()
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}

	doc := &DirOp{opBase: opBase{id: "directory.docroot"}, Path: filepath.Join(home, "public_html"), Mode: 0o755, Owner: "www-data", Group: "www-data"}
	if c := checkApply(t, h, doc); c.Action != "create" || !slices.Contains(c.Details, "as www-data (the directory is www-data's)") {
		t.Errorf("docroot: %+v", c)
	}
	info := &FileOp{opBase: opBase{id: "file.info"}, Path: filepath.Join(doc.Path, "info.php"), Body: []byte("<?php\n"), Mode: 0o644, Owner: "www-data", Group: "www-data"}
	checkApply(t, h, info)
	if fi, _ := os.Stat(info.Path); fi.Sys().(*syscall.Stat_t).Uid != uint32(uid) {
		t.Fatalf("info.php not www-data's")
	}

	// A link planted at the file's name: replaced, not followed.
	swap(info.Path, canary)
	checkApply(t, h, info)
	intact("file op over a planted link")

	// Only the mode drifted; then the file becomes a link to root's file
	// before Apply: the chmod and chown fail, root's file is untouched.
	os.Chmod(info.Path, 0o600)
	c, err := info.Check(ctx, h)
	if err != nil || !c.Needed {
		t.Fatalf("mode drift: %+v %v", c, err)
	}
	swap(info.Path, canary)
	if err := info.Apply(ctx, h, c); err == nil {
		t.Error("chmod through a link to root's file: no error")
	}
	intact("chmod after a swap")

	// The same for the directory: its mode drifted, then it is a link.
	os.Remove(info.Path)
	os.Chmod(doc.Path, 0o700)
	c, err = doc.Check(ctx, h)
	if err != nil || !c.Needed {
		t.Fatalf("docroot mode drift: %+v %v", c, err)
	}
	swap(doc.Path, rootDir)
	if err := doc.Apply(ctx, h, c); err == nil {
		t.Error("chmod of the docroot through a link to root's directory: no error")
	}
	intact("directory op after a swap")
	// A file to be written into the docroot, which is then swapped for a
	// link to a root directory: the write fails (as the user).
	os.Remove(doc.Path)
	checkApply(t, h, doc)
	if c, err = info.Check(ctx, h); err != nil || c.Action != "create" {
		t.Fatalf("info.php in a fresh docroot: %+v %v", c, err)
	}
	swap(doc.Path, rootDir)
	if err := info.Apply(ctx, h, c); err == nil {
		t.Error("write through the docroot swapped for a link: no error")
	}
	intact("file op through a swapped docroot")

	os.Remove(doc.Path)
	os.Mkdir(doc.Path, 0o755)
	os.Chown(doc.Path, uid, gid)
	for _, op := range []Op{
		&FileOp{opBase: opBase{id: "file.roots"}, Path: filepath.Join(doc.Path, "root.conf"), Body: []byte("x"), Mode: 0o644},
		&FileOp{opBase: opBase{id: "file.nobodys"}, Path: filepath.Join(doc.Path, "n.conf"), Body: []byte("x"), Mode: 0o644, Owner: "nobody"},
		&DirOp{opBase: opBase{id: "directory.roots"}, Path: filepath.Join(doc.Path, "sub"), Mode: 0o755},
	} {
		if _, err := op.Check(ctx, h); err == nil || !strings.Contains(err.Error(), "refused: its directory is www-data's") {
			t.Errorf("%s in www-data's docroot: %v, want refused", op.ID(), err)
		}
	}
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	if _, err := (&FileOp{opBase: opBase{id: "file.open"}, Path: filepath.Join(open, "x"), Body: []byte("x"), Mode: 0o644}).Check(ctx, h); err == nil || !strings.Contains(err.Error(), "others may write in") {
		t.Errorf("a file in a world-writable directory: %v, want refused", err)
	}
	intact("the end")
}

// A user op that is no system account's never takes one over: root (whose
// shell would become nologin, cutting wptest's own SSH) or a daemon's. The
// check reads the host's passwd, so nothing is changed to find out.
func TestUserOpRefusesASystemAccount(t *testing.T) {
	testenv.NeedRoot(t)
	h := host.NewLocal(nil)
	for _, name := range []string{"root", "daemon", "nobody"} {
		op := &UserOp{opBase: opBase{id: "user.site", kind: "user"}, Name: name, Home: "/home/" + name, Shell: "/usr/sbin/nologin"}
		_, err := op.Check(context.Background(), h)
		if err == nil || !strings.Contains(err.Error(), "system account") {
			t.Errorf("user %s: check gave %v, want a refusal naming a system account", name, err)
		}
	}
	// A person's account (uid 1000 and up, a login shell) is not taken
	// either: its owner would be locked out and their files the profile's.
	person := "wptest-person"
	if out, err := exec.Command("useradd", "--shell", "/bin/bash", person).CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("userdel", person).Run() })
	op := &UserOp{opBase: opBase{id: "user.site", kind: "user"}, Name: person, Home: "/home/" + person, Shell: "/usr/sbin/nologin"}
	if _, err := op.Check(context.Background(), h); err == nil || !strings.Contains(err.Error(), "login shell /bin/bash") {
		t.Errorf("a person's account: %v, want a refusal naming its login shell", err)
	}
	if out, err := exec.Command("usermod", "--shell", "/usr/sbin/nologin", person).CombinedOutput(); err != nil {
		t.Fatalf("usermod: %v %s", err, out)
	}
	if _, err := op.Check(context.Background(), h); err != nil {
		t.Errorf("an account that logs nobody in (the site's own): %v", err)
	}
	// A system user op (caddy's) may be one: the check goes on.
	op = &UserOp{opBase: opBase{id: "user.d", kind: "user"}, Name: "daemon", System: true}
	if _, err := op.Check(context.Background(), h); err != nil {
		t.Errorf("system user op: %v", err)
	}
}
