package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/exitcode"
)

// hostileBait is what testdata/hostile's experiments reach for on this
// machine: a key (read and uploaded, it would leak), a link to it, a FIFO
// (opened to read, it blocks) and the path a command would create.
type hostileBait struct {
	dir, key, link, fifo, pwned string
	keyAtime                    time.Time
}

func newHostileBait(t *testing.T) *hostileBait {
	t.Helper()
	b := &hostileBait{dir: t.TempDir()}
	secret := t.TempDir()
	b.key = filepath.Join(secret, "id_ed25519")
	b.link = filepath.Join(b.dir, "mod_ruid2.c")
	b.fifo = filepath.Join(b.dir, "fifo.c")
	b.pwned = filepath.Join(b.dir, "PWNED")
	if err := os.WriteFile(b.key, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// An atime before the mtime: relatime then records the next read.
	b.keyAtime = time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(b.key, b.keyAtime, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(b.key, b.link); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(b.fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	return b
}

func (b *hostileBait) fill(src string) string {
	return strings.NewReplacer("@KEY@", b.key, "@LINK@", b.link, "@FIFO@", b.fifo, "@PWNED@", b.pwned).Replace(src)
}

func atime(t *testing.T, p string) time.Time {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		t.Fatal(err)
	}
	return time.Unix(st.Atim.Unix())
}

// untouched fails t if the key was read or the command ran.
func (b *hostileBait) untouched(t *testing.T, what string) {
	t.Helper()
	if got := atime(t, b.key); !got.Equal(b.keyAtime) {
		t.Errorf("%s: the key was read (atime %s)", what, got)
	}
	if _, err := os.Lstat(b.pwned); err == nil {
		t.Errorf("%s: the file's command ran: %s exists", what, b.pwned)
	}
}

// runNoBlock is runCLI that cannot hang on the bait's FIFO: were the
// command to open it for reading, the test opens its other end (and
// fails) rather than wait for the suite's timeout.
func runNoBlock(t *testing.T, b *hostileBait, workDir string, args ...string) (int, string, string) {
	t.Helper()
	type res struct {
		code        int
		out, errOut string
	}
	done := make(chan res, 1)
	go func() {
		var out, errb strings.Builder
		code := Run(context.Background(), &App{Args: args, Stdout: &out, Stderr: &errb, WorkDir: workDir})
		done <- res{code, out.String(), errb.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.out, r.errOut
	case <-time.After(2 * time.Minute):
		t.Errorf("%s: still running after 2 minutes: blocked on the FIFO?", strings.Join(args, " "))
		if w, err := os.OpenFile(b.fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		r := <-done
		return r.code, r.out, r.errOut
	}
}

// Files from strangers are data. Each of testdata/hostile's experiments
// reaches for the machine running wptest or the server (a command run as
// root, code or a package put on the server, a key, the process's
// environment, a FIFO, a link out of its directory, the server opened to
// everyone, root as the site's user): run --plan and run --target local
// both stop at load, exit 2 at the line marked "<- refused", print no
// plan, create nothing in the work directory (no runs/), read no key and
// run nothing.
func TestHostileExperimentsAreData(t *testing.T) {
	files, err := filepath.Glob("testdata/hostile/*.hcl")
	if err != nil || len(files) < 10 {
		t.Fatalf("the hostile corpus: %v %v", files, err)
	}
	b := newHostileBait(t)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		line := 0
		for i, l := range strings.Split(string(raw), "\n") {
			if strings.Contains(l, "# <- refused") {
				line = i + 1
			}
		}
		if line == 0 {
			t.Fatalf("%s marks no line # <- refused", f)
		}
		file := filepath.Join(b.dir, filepath.Base(f))
		if err := os.WriteFile(file, []byte(b.fill(string(raw))), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, mode := range [][]string{{"--plan"}, {"--target", "local"}} {
			what := filepath.Base(f) + " " + strings.Join(mode, " ")
			work := t.TempDir()
			code, out, errOut := runNoBlock(t, b, work, append([]string{"run", file}, mode...)...)
			if code != exitcode.Config {
				t.Errorf("%s: exit %d, want %d\n%s%s", what, code, exitcode.Config, out, errOut)
			}
			if want := filepath.Base(f) + ":" + strconv.Itoa(line) + ":"; !strings.Contains(errOut, want) {
				t.Errorf("%s: stderr does not point at %s:\n%s", what, want, errOut)
			}
			if strings.Contains(out, "plan_sha256") || strings.Contains(errOut, "==>") {
				t.Errorf("%s: went on past the load:\n%s%s", what, out, errOut)
			}
			if left, _ := os.ReadDir(work); len(left) > 0 {
				t.Errorf("%s: created %s in the work directory", what, left[0].Name())
			}
			b.untouched(t, what)
		}
	}
	// The check can fail: reading the key moves its atime.
	if _, err := os.ReadFile(b.key); err != nil {
		t.Fatal(err)
	}
	if atime(t, b.key).Equal(b.keyAtime) {
		t.Fatal("this file system does not record reads (noatime): the key's atime proves nothing")
	}
}

// On the command line the operator names local files, but still only
// regular ones in their own directory, read without blocking: a FIFO, a
// link to a key elsewhere and /proc's environ stop run --plan (exit 2,
// naming the variable and the path) without reading the key or hanging.
func TestCommandLineLocalFileRefusesWhatIsNoFile(t *testing.T) {
	b := newHostileBait(t)
	for _, p := range []string{b.fifo, b.link, "/proc/self/environ", "/dev/zero"} {
		code, out, errOut := runNoBlock(t, b, t.TempDir(), "run", quickFile(t), "--plan", "-var", "ruid2_source_url=local+file://"+p)
		if code != exitcode.Config || !strings.Contains(errOut, "ruid2_source_url") || !strings.Contains(errOut, p) {
			t.Errorf("-var ruid2_source_url=local+file://%s: exit %d, want %d naming the variable and path\n%s%s", p, code, exitcode.Config, out, errOut)
		}
		b.untouched(t, p)
	}
}

// What a file may not say the operator still can, on the command line: who
// may reach the server, and the plan shows it.
func TestOperatorMachinesVarsOnTheCommandLine(t *testing.T) {
	post, err := filepath.Abs("../../../experiments/corehttpd-vs-cpanel.hcl")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, nil, "run", post, "--plan", "-var", "allow_ssh_from=203.0.113.41", "-var", "allow_from=198.51.100.7,2001:db8::/48")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if want := "allow_from 198.51.100.7,2001:db8::/48, allow_ssh_from 203.0.113.41"; !strings.Contains(out, want) {
		t.Errorf("the plan's machines line lacks %q:\n%.600s", want, out)
	}
}
