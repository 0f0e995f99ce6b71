// The whole quick start takes 5 to 9 minutes: it is built only when asked
// for (make quickstart-fresh), so that no test skips in CI.

//go:build quickstartfresh

package quickstart

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
)

// removeBlock is the README's block that removes what the main job left.
const removeBlock = "sh remove"

// TestQuickStartOnFreshDebian is the quick start where a stranger runs it:
// a fresh Debian (a bare host: minbase and sshd, nothing `make deps`
// installs), as root. It runs the offline block as written in a copy of
// the checkout's wptest and quick.hcl (the host has no Go: `make build`
// runs here and its binary is put there), the run in full, then the
// README's removal block, and fails if any of them fails or if the
// removal leaves a package, the user, a directory or a process behind.
// It takes 5 to 9 minutes: not in CI (TestQuickStartRuns is); make
// quickstart-fresh runs it.
func TestQuickStartOnFreshDebian(t *testing.T) {
	testenv.Integration(t)
	testenv.NeedBinary(t, "make")
	ruid2 := testenv.Ruid2Source(t)
	root, md := repoRoot(t), readme(t)
	cmds := commands(codeBlock(md, offlineBlock))
	if len(cmds) < 2 || cmds[0] != "make build" {
		t.Fatalf("README.md ```%s: %q, want make build first", offlineBlock, cmds)
	}
	build := exec.Command("/bin/sh", "-ec", cmds[0])
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	bh := testenv.BareHosts(t, "quickstart")[0]
	ctx := context.Background()
	h := openBare(t, ctx, bh)
	for _, f := range []struct {
		local, remote string
		mode          os.FileMode
	}{
		{filepath.Join(root, "bin", "wptest"), "/root/wptest/bin/wptest", 0o755},
		{filepath.Join(root, "experiments", "quick.hcl"), "/root/wptest/experiments/quick.hcl", 0o644},
		{ruid2, "/root/mod_ruid2.c", 0o644},
	} {
		putFile(t, ctx, h, f.local, f.remote, f.mode)
	}
	for _, c := range cmds[1:] {
		t0 := time.Now()
		res, err := h.Run(ctx, host.Cmd{Script: "export RUID2=/root/mod_ruid2.c\ncd /root/wptest\n" + c, Timeout: 45 * time.Minute, Label: "quick start"})
		if err != nil {
			t.Fatalf("README.md ```%s: %q on %s: %v\n%s", offlineBlock, c, bh.Platform, err, tail(string(res.Stderr), 40))
		}
		t.Logf("%s on %s: %s; stdout %q", c, bh.Platform, time.Since(t0).Round(time.Second), strings.TrimSpace(string(res.Stdout)))
	}
	remove := codeBlock(md, removeBlock)
	if remove == "" {
		t.Fatalf("README.md has no ```%s block", removeBlock)
	}
	if res, err := h.Run(ctx, host.Cmd{Script: "set -e\n" + remove, Timeout: 15 * time.Minute, Label: "remove"}); err != nil {
		t.Fatalf("README.md ```%s: %v\n%s", removeBlock, err, tail(string(res.Stderr)+string(res.Stdout), 40))
	}
	res, err := h.Run(ctx, host.Cmd{Script: leftovers})
	if err != nil {
		t.Fatal(err)
	}
	if left := strings.TrimSpace(string(res.Stdout)); left != "" {
		t.Errorf("after README.md's ```%s, still there:\n%s", removeBlock, left)
	}
}

// leftovers prints what the main job made that is still on the host.
const leftovers = `
for p in apache2 apache2-dev libcap-dev mariadb-server caddy wordpress $(dpkg-query -W -f '${Package} ' 'php*' 2>/dev/null); do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' && echo "package $p"
done
id wpsite >/dev/null 2>&1 && echo "user wpsite"
for d in /home/wpsite /etc/wptest /usr/local/lib/wptest /var/lib/wptest /home/.wptest-staging /etc/apache2 /etc/caddy /etc/php /var/lib/mysql /var/log/caddy; do
	[ -e "$d" ] && echo "path $d"
done
for x in apache2 caddy mariadbd php-fpm; do pgrep -x "$x" >/dev/null 2>&1 && echo "process $x"; done
pgrep -f php-fpm >/dev/null 2>&1 && echo "process php-fpm"
true
`

func openBare(t *testing.T, ctx context.Context, bh *testenv.BareHost) host.Host {
	t.Helper()
	tg, err := host.ParseTarget(bh.Target)
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Open(ctx, tg, host.Options{Name: bh.Name, KnownHostsFile: bh.KnownHosts, IdentityFile: bh.Identity})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func putFile(t *testing.T, ctx context.Context, h host.Host, local, remote string, mode os.FileMode) {
	t.Helper()
	if _, err := h.Run(ctx, host.Cmd{Script: "mkdir -p " + host.Quote(filepath.Dir(remote))}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(local)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := h.Put(ctx, remote, f, host.PutOptions{Mode: mode}); err != nil {
		t.Fatalf("put %s: %v", remote, err)
	}
}
