package provision

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/shellword"
	"github.com/wptest/wptest/internal/testenv"
	"mvdan.cc/sh/v3/syntax"
)

// recording runs every command on the real host and keeps its script.
type recording struct {
	host.Host
	mu      sync.Mutex
	scripts []string
}

func (r *recording) Run(ctx context.Context, cmd host.Cmd) (host.Result, error) {
	r.mu.Lock()
	r.scripts = append(r.scripts, cmd.Script)
	r.mu.Unlock()
	return r.Host.Run(ctx, cmd)
}

// TestOpsQuoteHostileValues: the commands Go builds from a profile's
// values (paths, link targets, package, user and service names) keep each
// value one word. Real ops on this machine with hostile names: files,
// directories and links land at exactly those names, nothing the names
// say runs (the canary is never made), and every script the ops ran parses
// with the value inside one word.
func TestOpsQuoteHostileValues(t *testing.T) {
	testenv.NeedRoot(t) // applies root-owned files on this host
	dir := t.TempDir()
	canary := filepath.Join(dir, "PWNED")
	payloads := []string{
		"sp ace",
		"q'uote",
		"$(touch${IFS}" + canary + ")",
		"`touch " + canary + "`",
		";touch " + canary + ";",
		"new\nline",
		"gl*b?[x]",
		"$HOME\"\\",
	}
	// Each name its own marker, so a script's words are told apart.
	var names, markers []string
	for i, p := range payloads {
		markers = append(markers, "wptinj"+string(rune('a'+i)))
		names = append(names, p+markers[i])
	}
	rec := &recording{Host: host.NewLocal(nil)}
	ctx := context.Background()
	for i, n := range names {
		base := filepath.Join(dir, strings.Repeat("x", i+1))
		f := &FileOp{opBase: opBase{id: "file.f"}, Path: filepath.Join(base, n, "f.conf"), Body: []byte("x\n"), Mode: 0o640}
		checkApply(t, rec, f)
		if b, err := os.ReadFile(f.Path); err != nil || string(b) != "x\n" {
			t.Errorf("file %q: %q, %v", f.Path, b, err)
		}
		d := &DirOp{opBase: opBase{id: "directory.d"}, Path: filepath.Join(base, "d"+n), Mode: 0o750}
		checkApply(t, rec, d)
		if fi, err := os.Stat(d.Path); err != nil || !fi.IsDir() {
			t.Errorf("directory %q: %v", d.Path, err)
		}
		l := &LinkOp{opBase: opBase{id: "link.l"}, Path: filepath.Join(base, "l"+n), Target: "t" + n}
		checkApply(t, rec, l)
		if got, err := os.Readlink(l.Path); err != nil || got != l.Target {
			t.Errorf("link %q -> %q, %v; want %q", l.Path, got, err, l.Target)
		}
		c := &CommandOp{opBase: opBase{id: "command.c"}, Run: "true", Creates: filepath.Join(base, "c"+n)}
		if ch, err := c.Check(ctx, rec); err != nil || !ch.Needed {
			t.Errorf("creates %q (absent): %+v, %v", c.Creates, ch, err)
		}
		u := &UserOp{opBase: opBase{id: "user.u"}, Name: n, Home: "/nonexistent/" + n}
		if ch, err := u.Check(ctx, rec); err != nil || ch.Action != "create" {
			t.Errorf("user %q: %+v, %v", n, ch, err)
		}
		if _, err := os.Stat("/usr/bin/dpkg-query"); err == nil {
			p := &PackageOp{opBase: opBase{id: "package.p"}, Names: []string{n}, Manager: "apt"}
			if ch, err := p.Check(ctx, rec); err != nil || !ch.Needed {
				t.Errorf("package %q: %+v, %v", n, ch, err)
			}
		}
		s := &ServiceOp{Name: n, Cmds: map[string]string{}}
		for _, init := range []string{"systemd", "none"} {
			for _, which := range []string{"start", "stop", "reload", "restart", "status"} {
				rec.scripts = append(rec.scripts, s.command(init, which))
			}
		}
	}
	if _, err := os.Stat(canary); err == nil {
		t.Fatalf("a name ran as a command: %s exists", canary)
	}
	seen := 0
	for _, s := range rec.scripts {
		for i, n := range names {
			if strings.Contains(s, markers[i]) {
				seen++
			}
			if err := shellword.Check(s, syntax.LangPOSIX, n, markers[i]); err != nil {
				t.Errorf("value %q in %q: %v", n, s, err)
			}
		}
	}
	if seen < len(names)*6 {
		t.Errorf("only %d scripts held a name: the ops ran fewer commands than expected", seen)
	}
}
