package host_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
)

// batchScripts are what an op's check or a fact looks like, and what could
// break a batch that runs them in one shell: an exit, a failed command
// under set -e, variables and traps of their own, a case statement, a
// heredoc, a comment on the last line, stdin read, output without a
// newline, binary bytes, nothing printed at all, a cd.
var batchScripts = []string{
	`echo one; echo err-one >&2`,
	`exit 3`,
	`set -e; false; echo not-reached`,
	`wptest_batch=/nonexistent; x=1; echo "x=$x"`,
	`echo "x=${x-unset} batch=${wptest_batch_x-unset}"`,
	`trap 'echo trapped' EXIT; echo before`,
	"case $(uname -s) in Linux) echo linux ;; *) echo other ;; esac",
	"cat <<'EOF'\n$HOME is not expanded\nEOF",
	"echo last # a comment on the last line",
	`cat; echo "stdin read: $?"`,
	`printf 'no newline'`,
	`printf '\000\001\377\n'; printf '\000' >&2`,
	`:`,
	`cd /; pwd`,
	`pwd`,
	`echo out; echo err >&2; exit 7`,
}

// testBatch: every command of a batch gets the answer it gets alone
// (exit, stdout, stderr, the error's type and code), in order, in one
// command on the host.
func testBatch(t *testing.T, h host.Host, log *testenv.SyncBuffer) {
	ctx := context.Background()
	var cmds []host.Cmd
	for i, s := range batchScripts {
		cmds = append(cmds, host.Cmd{Script: s, Label: "batch-" + string(rune('a'+i))})
	}
	before := strings.Count(log.String(), "$ ")
	answers, err := host.RunBatch(ctx, h, "a batch", time.Minute, cmds)
	if err != nil {
		t.Fatalf("RunBatch: %v", err)
	}
	if n := strings.Count(log.String(), "$ ") - before; n != 1 {
		t.Errorf("the batch ran %d commands on the host, want 1", n)
	}
	if len(answers) != len(cmds) {
		t.Fatalf("%d answers for %d commands", len(answers), len(cmds))
	}
	for i, c := range cmds {
		res, err := h.Run(ctx, c)
		a := answers[i]
		if a.Result.Exit != res.Exit || !bytes.Equal(a.Result.Stdout, res.Stdout) || !bytes.Equal(a.Result.Stderr, res.Stderr) {
			t.Errorf("%q: batch exit %d stdout %q stderr %q; alone exit %d stdout %q stderr %q", c.Script,
				a.Result.Exit, a.Result.Stdout, a.Result.Stderr, res.Exit, res.Stdout, res.Stderr)
		}
		var ea, eb *host.ExitError
		switch {
		case (err == nil) != (a.Err == nil):
			t.Errorf("%q: batch error %v, alone %v", c.Script, a.Err, err)
		case err != nil && (!errors.As(err, &eb) || !errors.As(a.Err, &ea) || ea.Code != eb.Code || ea.Label != eb.Label || ea.Host != eb.Host):
			t.Errorf("%q: batch error %#v, alone %#v", c.Script, a.Err, err)
		}
	}
	// A command with stdin of its own is not for a batch.
	if _, err := host.RunBatch(ctx, h, "refused", time.Minute, []host.Cmd{{Script: "cat", Stdin: strings.NewReader("x")}}); err == nil {
		t.Errorf("a batch took a command with stdin")
	}
	// A script that swallows the rest (an unclosed quote) fails the batch
	// as a whole, not one answer: the caller runs them one by one.
	if _, err := host.RunBatch(ctx, h, "broken", time.Minute, []host.Cmd{{Script: "echo 'unclosed"}, {Script: "echo fine"}}); err == nil {
		t.Errorf("a batch with an unclosed quote answered")
	}
}

// TestBatchWithAFullTmp: where the batch's outputs cannot be written in
// full (a full tmpfs /tmp, Debian 13's default), the batch fails as a
// whole (the caller runs the commands one by one); it never answers with
// a cut output, which a check ending in "; true" would read as "no such
// user" or "not installed".
func TestBatchWithAFullTmp(t *testing.T) {
	testenv.NeedRoot(t)
	tmp := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", tmp).CombinedOutput()
	testenv.Need(t, err == nil, "a tmpfs mount: "+string(out))
	t.Cleanup(func() { _ = exec.Command("umount", tmp).Run() })
	_ = exec.Command("dd", "if=/dev/zero", "of="+filepath.Join(tmp, "fill"), "bs=4k").Run() // until it is full
	h := host.NewLocal(nil).WithEnv("TMPDIR=" + tmp)
	cmds := []host.Cmd{
		{Script: `getent passwd root; true`, Label: "user.root"},
		{Script: `echo "nginx installed"; true`, Label: "package.nginx"},
	}
	if answers, err := host.RunBatch(context.Background(), h, "full", time.Minute, cmds); err == nil {
		t.Errorf("a batch on a full /tmp answered: %+v", answers)
	}
}

// TestBatchTimeoutLeavesNoOutputs: a batch stopped at its timeout over
// SSH (timeout TERMs it) removes its temp dir and the outputs in it.
func TestBatchTimeoutLeavesNoOutputs(t *testing.T) {
	testenv.NeedRoot(t)
	h := openSSH(t, testenv.SSHD(t), nil)
	note := filepath.Join(t.TempDir(), "dir")
	cmds := []host.Cmd{
		{Script: "echo output-of-a-check", Label: "a"},
		{Script: "dirname \"$(readlink /proc/self/fd/2)\" >" + host.Quote(note) + "; sleep 60", Label: "b"}, // where the outputs are; then hangs
	}
	if _, err := host.RunBatch(context.Background(), h, "hangs", 2*time.Second, cmds); err == nil {
		t.Fatal("a hanging batch answered")
	}
	b, err := os.ReadFile(note)
	if err != nil {
		t.Fatal(err)
	}
	dir := strings.TrimSpace(string(b))
	if !filepath.IsAbs(dir) || !strings.HasPrefix(filepath.Base(dir), "tmp.") {
		t.Fatalf("not the batch's dir: %q", dir)
	}
	// The TERM trap removed it before the shell, and so the command, ended.
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		os.RemoveAll(dir)
		t.Errorf("the timed-out batch's temp dir %s is still there (%v)", dir, err)
	}
}
