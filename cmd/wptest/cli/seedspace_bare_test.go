package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/internal/testenv/baked"
)

// TestBareHostSeedNoSpace: the docroot's filesystem (/home, a tmpfs of its
// own) is filled to 256 KB short of anything a seed needs, after a seed
// that verifies. Another seed exits 4 naming the space it needs and has,
// and changes nothing: the docroot, its marker and the seed record are as
// they were, no staging is left, and the previous seed still verifies.
// No command's log holds a NUL byte.
func TestBareHostSeedNoSpace(t *testing.T) {
	t.Parallel() // a host from the servers' image
	bh := baked.Hosts(t, baked.Servers, "web")[0]
	_, conn, sh := bareHost(t, bh)
	agent := testenv.WptestBinary(t)
	work := t.TempDir()
	wptest := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), &App{Args: append(args, conn...), Stdout: &stdout, Stderr: &stderr, WorkDir: work, Env: os.Environ()})
		return code, stdout.String() + stderr.String()
	}
	must := func(args ...string) {
		t.Helper()
		if code, out := wptest(args...); code != 0 {
			t.Fatalf("wptest %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
	}
	sh("mount -t tmpfs -o size=300m,mode=0755 wptest-small /home")
	must("up", "--profile", "nginx", "--agent", agent)
	must("seed", "--fixture", "minimal")
	must("verify")

	const doc = "/home/wpsite/public_html"
	state := func() string {
		return sh(`find ` + doc + ` -printf '%p %y %m %u %s %T@\n' | sort | sha256sum; sha256sum /var/lib/wptest/seeds/home-wpsite-public_html.json; ls -A /home/.wptest-staging 2>/dev/null || true`)
	}
	sh(`avail=$(stat -f -c '%a * %S' /home); head -c $(( $avail - 262144 )) /dev/zero > /home/filler`)
	before := state()
	code, out := wptest("seed", "--fixture", "minimal", "--seed", "2")
	t.Logf("seed with the disk full:\n%s", out)
	if code != 4 || !strings.Contains(out, "not enough space to seed fixture minimal seed 2, so nothing was changed") || !strings.Contains(out, "the seed needs") {
		t.Fatalf("seed on a full filesystem: exit %d, want 4 naming the space it needs\n%s", code, out)
	}
	if after := state(); after != before {
		t.Errorf("the refused seed changed the site:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if code, out := wptest("verify"); code != 0 {
		t.Errorf("the previous seed no longer verifies: exit %d\n%s", code, out)
	}
	logs, _ := filepath.Glob(filepath.Join(work, "runs", "*.log"))
	if len(logs) == 0 {
		t.Error("no command log in runs/")
	}
	for _, l := range logs {
		if b, err := os.ReadFile(l); err != nil || bytes.IndexByte(b, 0) >= 0 {
			t.Errorf("%s: %v, or it holds a NUL byte", l, err)
		}
	}
}
