package provision

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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
	id := func(s string) string { return s }
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
		tc.op.id, tc.op.redact = "command."+tc.name, id
		c, err := tc.op.Check(context.Background(), h)
		if err != nil || c.Needed != tc.want {
			t.Errorf("%s: needed=%v err=%v, want %v", tc.name, c.Needed, err, tc.want)
		}
	}
	op := &CommandOp{opBase: opBase{id: "command.c"}, Run: "touch " + marker, Creates: marker, redact: id}
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
