package host_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
)

// openSSH connects to a test sshd with its pinned key and client key.
func openSSH(t testing.TB, s *testenv.SSHServer, log io.Writer) host.Host {
	t.Helper()
	target, err := host.ParseTarget(s.Target)
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Open(context.Background(), target, host.Options{
		KnownHostsFile: s.KnownHostsFile,
		IdentityFile:   s.IdentityFile,
		Log:            log,
		ConnectTimeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatalf("open %s: %v\nsshd log:\n%s", s.Target, err, s.Log())
	}
	t.Cleanup(func() { h.Close() })
	return h
}

type testHost struct {
	name string
	h    host.Host
	log  *testenv.SyncBuffer
}

// bothHosts returns Local and an SSH host on a real sshd: every behaviour
// in the table below must hold for both.
func bothHosts(t *testing.T) []testHost {
	t.Helper()
	testenv.NeedRoot(t) // chown, and sshd logs in as root
	s := testenv.SSHD(t)
	llog, slog := &testenv.SyncBuffer{}, &testenv.SyncBuffer{}
	local, err := host.Open(context.Background(), host.Target{Local: true}, host.Options{Log: llog})
	if err != nil {
		t.Fatal(err)
	}
	return []testHost{
		{"local", local, llog},
		{"ssh", openSSH(t, s, slog), slog},
	}
}

// behaviours is the Host contract, written once, run for Local and SSH.
var behaviours = []struct {
	name string
	test func(t *testing.T, h host.Host, log *testenv.SyncBuffer)
}{
	{"RunStdout", testRunStdout},
	{"NULRefused", testNULRefused},
	{"ExitCodeAndStderrTail", testExitError},
	{"Stdin", testStdin},
	{"ScriptInNoArgv", testScriptInNoArgv},
	{"StreamsToWritersAndLog", testStreams},
	{"SecretStdoutNeverLogged", testSecretStdout},
	{"TimeoutKillsCommand", testTimeout},
	{"CancelKillsCommand", testCancel},
	{"ConcurrentRuns", testConcurrent},
	{"PutGetModeOwner", testPutGet},
	{"PutFailureLeavesNothing", testPutFailure},
	{"PutCancelled", testPutCancelled},
	{"KilledBySignal", testSignal},
	{"PutIsAtomic", testPutAtomic},
	{"DialContext", testDial},
	{"Facts", testFacts},
	{"BatchAnswersAsOneByOne", testBatch},
}

func TestHostBehaviour(t *testing.T) {
	for _, th := range bothHosts(t) {
		t.Run(th.name, func(t *testing.T) {
			for _, b := range behaviours {
				t.Run(b.name, func(t *testing.T) { b.test(t, th.h, th.log) })
			}
		})
	}
}

func run(t *testing.T, h host.Host, script string) host.Result {
	t.Helper()
	res, err := h.Run(context.Background(), host.Cmd{Script: script, Timeout: time.Minute})
	if err != nil {
		t.Fatalf("run %q on %s: %v", script, h.Name(), err)
	}
	return res
}

func testRunStdout(t *testing.T, h host.Host, _ *testenv.SyncBuffer) {
	res := run(t, h, `printf '%s\n' "$((6*7))" "$LC_ALL"; echo to-stderr >&2`)
	if got := string(res.Stdout); got != "42\nC\n" {
		t.Errorf("stdout = %q, want %q", got, "42\nC\n")
	}
	if got := string(res.Stderr); got != "to-stderr\n" {
		t.Errorf("stderr = %q (no PTY: stderr must stay apart)", got)
	}
	if res.Exit != 0 {
		t.Errorf("exit = %d", res.Exit)
	}
}

func testExitError(t *testing.T, h host.Host, _ *testenv.SyncBuffer) {
	res, err := h.Run(context.Background(), host.Cmd{
		Script: `echo partial-out; i=1; while [ $i -le 15 ]; do echo "err-line-$i" >&2; i=$((i+1)); done; exit 3`,
		Label:  "op-7",
	})
	var ee *host.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("err = %v (%T), want *host.ExitError", err, err)
	}
	if ee.Code != 3 || res.Exit != 3 {
		t.Errorf("code = %d, result exit = %d, want 3", ee.Code, res.Exit)
	}
	msg := err.Error()
	for _, want := range []string{"[" + h.Name() + "]", "op-7", "exit status 3", "err-line-6", "err-line-15"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "err-line-5\n") || strings.Contains(msg, "err-line-5 ") {
		t.Errorf("message should hold only the last 10 stderr lines:\n%s", msg)
	}
	if string(res.Stdout) != "partial-out\n" {
		t.Errorf("stdout = %q", res.Stdout)
	}
}

func testStdin(t *testing.T, h host.Host, log *testenv.SyncBuffer) {
	secret := "s3cret-" + strconv.Itoa(os.Getpid()) + "-" + t.Name()
	res, err := h.Run(context.Background(), host.Cmd{
		Script: "sha256sum | cut -d' ' -f1",
		Stdin:  strings.NewReader(secret),
		Label:  "hash-secret",
	})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(secret))
	if got := strings.TrimSpace(string(res.Stdout)); got != hex.EncodeToString(sum[:]) {
		t.Errorf("remote hash %q, want %x", got, sum)
	}
	if strings.Contains(log.String(), secret) {
		t.Errorf("stdin leaked into the host log")
	}
	// A command that does not read stdin still finishes with a reader that never ends.
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := h.Run(ctx, host.Cmd{Script: "echo ignores-stdin", Stdin: pr}); err != nil {
		t.Errorf("command ignoring an endless stdin: %v", err)
	}
}

// testScriptInNoArgv: while a command runs, no process on the machine
// (the host's processes are this machine's, for both hosts here) has its
// script in its argv, where ps shows it to every user; the command still
// gets its stdin after the script, and streams its output as it comes.
func testScriptInNoArgv(t *testing.T, h host.Host, _ *testenv.SyncBuffer) {
	canary := "wptest-argv-canary-" + strconv.Itoa(os.Getpid()) + "-" + strings.ReplaceAll(t.Name(), "/", "-")
	script := "pw='https://alice:" + canary + "@example.invalid/x'\n" +
		"echo started\nIFS= read -r line\necho \"got $line\"\nsleep 0.1 & wait\ncat"
	started := make(chan struct{})
	pr, pw := io.Pipe()
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		_, err := h.Run(context.Background(), host.Cmd{Script: script, Stdin: pr, Label: "argv",
			Stdout: &signalWriter{w: &out, want: "started\n", seen: started}, Timeout: time.Minute})
		done <- err
	}()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("ended before it started: %v\n%s", err, out.String())
	}
	// The command waits for its stdin: now every process's argv.
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range cmdlines {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(canary)) {
			t.Errorf("%s holds the script: %q", f, bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
		}
	}
	if _, err := io.WriteString(pw, "first line\nthe rest\n"); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "started\ngot first line\nthe rest\n" {
		t.Errorf("output %q", got)
	}
}

// signalWriter closes seen once what was written holds want.
type signalWriter struct {
	mu   sync.Mutex
	w    *bytes.Buffer
	want string
	seen chan struct{}
	done bool
}

func (s *signalWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.Write(p)
	if !s.done && strings.Contains(s.w.String(), s.want) {
		s.done = true
		close(s.seen)
	}
	return len(p), nil
}

func testStreams(t *testing.T, h host.Host, log *testenv.SyncBuffer) {
	var out, errw bytes.Buffer
	_, err := h.Run(context.Background(), host.Cmd{
		Script: "echo visible-out; echo visible-err >&2",
		Label:  "stream-check",
		Stdout: &out, Stderr: &errw,
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "visible-out\n" || errw.String() != "visible-err\n" {
		t.Errorf("writers got %q / %q", out.String(), errw.String())
	}
	l := log.String()
	for _, want := range []string{
		"[" + h.Name() + "] stream-check: visible-out\n",
		"[" + h.Name() + "] stream-check! visible-err\n",
	} {
		if !strings.Contains(l, want) {
			t.Errorf("host log lacks %q:\n%s", want, l)
		}
	}
}

// alive reports whether pid exists and is not a zombie (PID 1 in a
// container may not reap orphans).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] != 'Z'
	}
	return true
}

// waitDead polls until pid is gone (remote timeout -k allows 5s grace).
func waitDead(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still running after the command was killed", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sleeper starts a background sleep (a grandchild), records its pid, and
// waits for it: killing only the shell would leave the sleep running.
func sleeper(pidFile string) string {
	return fmt.Sprintf("sleep 300 & echo $! > %s; echo started; wait", host.Quote(pidFile))
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func testTimeout(t *testing.T, h host.Host, _ *testenv.SyncBuffer) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	res, err := h.Run(context.Background(), host.Cmd{Script: sleeper(pidFile), Timeout: 1 * time.Second, Label: "slow"})
	var te *host.TimeoutError
	if !errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v (%T), want *host.TimeoutError", err, err)
	}
	// The command sleeps 300 s: returning well before that is the timeout
	// at work (the bound is loose so a loaded machine cannot miss it).
	if d := time.Since(start); d > 2*time.Minute {
		t.Errorf("Run returned after %s for a 1s timeout", d)
	}
	if !strings.Contains(err.Error(), "slow") || !strings.Contains(err.Error(), h.Name()) {
		t.Errorf("message %q lacks label or host", err)
	}
	if string(res.Stdout) != "started\n" {
		t.Errorf("output until the timeout = %q", res.Stdout)
	}
	waitDead(t, readPid(t, pidFile))
}

func testCancel(t *testing.T, h host.Host, _ *testenv.SyncBuffer) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancel once the pid is written in full (the shell creates the
		// file before it writes to it).
		for {
			if b, err := os.ReadFile(pidFile); err == nil && bytes.HasSuffix(b, []byte("\n")) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	_, err := h.Run(ctx, host.Cmd{Script: sleeper(pidFile)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	waitDead(t, readPid(t, pidFile))
}

func testConcurrent(t *testing.T, h host.Host, _ *testenv.SyncBuffer) {
	// More than OpenSSH's default MaxSessions (10), which the test sshd keeps.
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := h.Run(context.Background(), host.Cmd{Script: fmt.Sprintf("sleep 0.2; echo %d", i)})
			if err == nil && strings.TrimSpace(string(res.Stdout)) != strconv.Itoa(i) {
				err = fmt.Errorf("run %d got %q", i, res.Stdout)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

func nobody(t *testing.T) (uid, gid int, group string) {
	t.Helper()
	u, err := user.Lookup("nobody")
	testenv.Need(t, err == nil, "user nobody")
	g, err := user.LookupGroupId(u.Gid)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid, g.Name
}

func testPutGet(t *testing.T, h host.Host, _ *testenv.SyncBuffer) {
	ctx := context.Background()
	uid, gid, group := nobody(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "conf.ini")
	if err := os.WriteFile(p, []byte("old content that is longer than the new one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []byte("key = value\n")
	if err := h.Put(ctx, p, bytes.NewReader(want), host.PutOptions{Mode: 0o640, Owner: "nobody", Group: group}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if fi.Mode().Perm() != 0o640 || int(st.Uid) != uid || int(st.Gid) != gid {
		t.Errorf("mode %v owner %d:%d, want 0640 %d:%d", fi.Mode().Perm(), st.Uid, st.Gid, uid, gid)
	}
	rc, err := h.Get(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("Get = %q, %v; want %q", got, err, want)
	}
	// Only the group: the owner stays the connecting user's (root).
	if err := h.Put(ctx, p, strings.NewReader("x"), host.PutOptions{Group: group}); err != nil {
		t.Fatal(err)
	}
	fi, _ = os.Stat(p)
	st = fi.Sys().(*syscall.Stat_t)
	if fi.Mode().Perm() != 0o644 || int(st.Uid) != os.Geteuid() || int(st.Gid) != gid {
		t.Errorf("mode %v owner %d:%d, want 0644 %d:%d", fi.Mode().Perm(), st.Uid, st.Gid, os.Geteuid(), gid)
	}
	assertNoTemp(t, dir)
	if _, err := h.Get(ctx, filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("Get of a missing file: %v", err)
	}
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
}

// failingReader gives some bytes, then an error, like a broken upload source.
type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("source broke")
	}
	n := min(len(p), f.n)
	for i := range p[:n] {
		p[i] = 'x'
	}
	f.n -= n
	return n, nil
}

func testPutFailure(t *testing.T, h host.Host, _ *testenv.SyncBuffer) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, "keep")
	if err := os.WriteFile(p, []byte("original"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := h.Put(ctx, p, &failingReader{n: 100 << 10}, host.PutOptions{})
	if err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("Put from a broken reader: %v (want an error naming %s)", err, p)
	}
	if b, _ := os.ReadFile(p); string(b) != "original" {
		t.Errorf("target changed by a failed Put: %q", b)
	}
	err = h.Put(ctx, p, strings.NewReader("x"), host.PutOptions{Owner: "no-such-user-wptest"})
	if err == nil || !strings.Contains(err.Error(), "no-such-user-wptest") {
		t.Errorf("Put with an unknown owner: %v", err)
	}
	missing := filepath.Join(dir, "no", "such", "dir", "f")
	if err := h.Put(ctx, missing, strings.NewReader("x"), host.PutOptions{}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("Put into a missing dir: %v", err)
	}
	assertNoTemp(t, dir)
}

// cancelAfter is a source that cancels the upload's context after n bytes.
type cancelAfter struct {
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	if c.n <= 0 {
		c.cancel()
		time.Sleep(10 * time.Millisecond)
	}
	n := min(len(p), max(c.n, 1024))
	for i := range p[:n] {
		p[i] = 'y'
	}
	c.n -= n
	return n, nil
}

func testPutCancelled(t *testing.T, h host.Host, _ *testenv.SyncBuffer) {
	dir := t.TempDir()
	p := filepath.Join(dir, "keep")
	if err := os.WriteFile(p, []byte("original"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// An endless source: only the cancellation can end this upload.
	err := h.Put(ctx, p, &cancelAfter{n: 256 << 10, cancel: cancel}, host.PutOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "original" {
		t.Errorf("target changed by a cancelled Put: %.20q", b)
	}
	assertNoTemp(t, dir)
}

func testSignal(t *testing.T, h host.Host, _ *testenv.SyncBuffer) {
	_, err := h.Run(context.Background(), host.Cmd{Script: "echo dying >&2; kill -TERM $$; sleep 5"})
	var ee *host.ExitError
	if !errors.As(err, &ee) || ee.Code != 128+15 {
		t.Fatalf("err = %v, want exit status 143 (128+SIGTERM)", err)
	}
	if !strings.Contains(err.Error(), "dying") {
		t.Errorf("message lacks stderr: %v", err)
	}
}

// testPutAtomic overwrites a file again and again with large files of
// different content while readers read it in a loop: every read must be
// exactly one complete version. TestAtomicityCheckCatchesInPlaceWrites
// shows the same check fails a writer that is not atomic.
func testPutAtomic(t *testing.T, h host.Host, _ *testenv.SyncBuffer) {
	ctx := context.Background()
	r := startAtomicityCheck(t, func(p string, v []byte) error {
		return h.Put(ctx, p, bytes.NewReader(v), host.PutOptions{Mode: 0o644})
	})
	bad, sample := r.run(t)
	if bad > 0 {
		t.Fatalf("readers saw %d partial or mixed files, e.g. %s", bad, sample)
	}
	assertNoTemp(t, r.dir)
}

// atomicityCheck runs two readers over one file while a writer overwrites
// it with versions of different content: a separate process
// (cat | sha256sum in a shell loop) and a Go loop, which reads often.
type atomicityCheck struct {
	dir, path string
	versions  [][]byte
	valid     map[string]int
	write     func(path string, v []byte) error
}

func startAtomicityCheck(t *testing.T, write func(path string, v []byte) error) *atomicityCheck {
	const size = 1 << 20
	r := &atomicityCheck{dir: t.TempDir(), valid: map[string]int{}, write: write}
	r.path = filepath.Join(r.dir, "big.bin")
	for i := range 3 {
		v := bytes.Repeat([]byte{byte('a' + i)}, size)
		// Distinct heads too, so a prefix of one version is never another.
		copy(v, fmt.Sprintf("version-%d\n", i))
		sum := sha256.Sum256(v)
		r.valid[hex.EncodeToString(sum[:])] = i
		r.versions = append(r.versions, v)
	}
	if err := write(r.path, r.versions[0]); err != nil {
		t.Fatal(err)
	}
	return r
}

// run overwrites until both readers have read often enough (bounded in
// time), and returns how many reads were not a complete version.
func (r *atomicityCheck) run(t *testing.T) (bad int64, sample string) {
	t.Helper()
	ctx := context.Background()
	stop := filepath.Join(r.dir, "stop")
	script := fmt.Sprintf(`while [ ! -e %[1]s ]; do cat %[2]s | sha256sum; done`, host.Quote(stop), host.Quote(r.path))
	var shellHashes testenv.SyncBuffer
	shellDone := make(chan error, 1)
	go func() {
		_, err := host.NewLocal(nil).Run(ctx, host.Cmd{Script: script, Stdout: &shellHashes, Timeout: 2 * time.Minute})
		shellDone <- err
	}()
	var goReads, goBad atomic.Int64
	var badSample atomic.Value
	goDone := make(chan struct{})
	go func() {
		defer close(goDone)
		for {
			if _, err := os.Stat(stop); err == nil {
				return
			}
			b, err := os.ReadFile(r.path)
			sum := sha256.Sum256(b)
			if _, ok := r.valid[hex.EncodeToString(sum[:])]; !ok || err != nil {
				badSample.Store(fmt.Sprintf("Go read of %d bytes (err %v)", len(b), err))
				goBad.Add(1)
			}
			goReads.Add(1)
		}
	}()
	deadline := time.Now().Add(time.Minute)
	puts := 0
	for ; puts < 20 || goReads.Load() < 100 || strings.Count(shellHashes.String(), "\n") < 5; puts++ {
		if time.Now().After(deadline) {
			break
		}
		if err := r.write(r.path, r.versions[(puts+1)%len(r.versions)]); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(stop, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-shellDone; err != nil {
		t.Fatal(err)
	}
	<-goDone
	bad = goBad.Load()
	if s, ok := badSample.Load().(string); ok {
		sample = s
	}
	lines := strings.Split(strings.TrimSpace(shellHashes.String()), "\n")
	seen := map[int]int{}
	for _, l := range lines {
		sum, _, _ := strings.Cut(l, " ")
		if v, ok := r.valid[sum]; ok {
			seen[v]++
		} else {
			bad++
			sample = "cat read with sha256 " + sum
		}
	}
	if goReads.Load() < 100 || len(lines) < 5 || (bad == 0 && len(seen) < 2) {
		t.Fatalf("readers saw too little to prove anything: %d Go reads, %d cat reads, versions %v", goReads.Load(), len(lines), seen)
	}
	t.Logf("%d writes; %d Go reads and %d cat reads, %d not a complete version", puts, goReads.Load(), len(lines), bad)
	return bad, sample
}

// The atomicity check is not vacuous: a writer that truncates the file and
// writes it in place (not atomic) is caught.
func TestAtomicityCheckCatchesInPlaceWrites(t *testing.T) {
	r := startAtomicityCheck(t, func(p string, v []byte) error {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		// Two halves with a pause: a window in which readers see half a file.
		if _, err := f.Write(v[:len(v)/2]); err != nil {
			return err
		}
		time.Sleep(5 * time.Millisecond)
		_, err = f.Write(v[len(v)/2:])
		return err
	})
	if bad, _ := r.run(t); bad == 0 {
		t.Fatal("in-place writes were never caught: the atomicity check proves nothing")
	}
}

func testDial(t *testing.T, h host.Host, _ *testenv.SyncBuffer) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	peers := make(chan net.Addr, 1)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			select {
			case peers <- c.RemoteAddr():
			default:
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := h.DialContext(ctx, "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	msg := []byte("ping through " + h.Name())
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("echo = %q, %v", got, err)
	}
	// Through SSH the listener's peer is sshd's socket, not ours.
	peer := <-peers
	_, ours := h.(*host.Local)
	if direct := peer.String() == c.LocalAddr().String(); direct != ours {
		t.Errorf("listener saw %s, our end is %s: want direct=%v for %s", peer, c.LocalAddr(), ours, h.Name())
	}
	// A closed port is an error naming the address, not a hang.
	l2, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := l2.Addr().String()
	l2.Close()
	if _, err := h.DialContext(ctx, "tcp", dead); err == nil || !strings.Contains(err.Error(), dead) {
		t.Errorf("dial to a closed port: %v", err)
	}
}

func testFacts(t *testing.T, h host.Host, _ *testenv.SyncBuffer) {
	f, err := h.Facts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	osr, err := os.ReadFile("/etc/os-release")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(osr), "\nID="+f.OSID+"\n") && !strings.HasPrefix(string(osr), "ID="+f.OSID+"\n") {
		t.Errorf("OSID %q not the ID in /etc/os-release", f.OSID)
	}
	major, _, _ := strings.Cut(f.OSVersion, ".")
	if f.Platform != f.OSID+"-"+major || major == "" {
		t.Errorf("Platform %q from ID %q VERSION_ID %q", f.Platform, f.OSID, f.OSVersion)
	}
	wantArch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	if wantArch != "" && f.Arch != wantArch {
		t.Errorf("Arch %q, want %q", f.Arch, wantArch)
	}
	wantInit := "none"
	if fi, err := os.Stat("/run/systemd/system"); err == nil && fi.IsDir() {
		wantInit = "systemd"
	}
	if f.Init != wantInit {
		t.Errorf("Init %q, want %q", f.Init, wantInit)
	}
	if _, err := os.Stat("/usr/bin/apt-get"); err == nil && f.PackageManager != "apt" {
		t.Errorf("PackageManager %q on a host with apt-get", f.PackageManager)
	}
	// SELinux: selinuxfs is mounted exactly when the kernel applies policy.
	wantSE := map[string]string{"1": "enforcing", "0": "permissive"}
	if b, err := os.ReadFile("/sys/fs/selinux/enforce"); err == nil {
		if want := wantSE[strings.TrimSpace(string(b))]; f.SELinux != want {
			t.Errorf("SELinux %q, selinuxfs says %q", f.SELinux, want)
		}
	} else if _, err := exec.LookPath("getenforce"); err != nil {
		if _, err := os.Stat("/etc/selinux/config"); err != nil && f.SELinux != "absent" {
			t.Errorf("SELinux %q on a host without selinuxfs, getenforce or /etc/selinux/config, want absent", f.SELinux)
		}
	}
	if _, err := exec.LookPath("firewall-cmd"); err != nil && f.Firewalld != "absent" {
		t.Errorf("Firewalld %q on a host without firewall-cmd, want absent", f.Firewalld)
	}
	if f.SELinuxEnabled() != (f.SELinux == "enforcing" || f.SELinux == "permissive") {
		t.Errorf("SELinuxEnabled() = %v for %q", f.SELinuxEnabled(), f.SELinux)
	}
}

// testSecretStdout: a command reading credentials gives them to its caller
// only: neither the host's log nor its error shows them.
func testSecretStdout(t *testing.T, h host.Host, log *testenv.SyncBuffer) {
	ctx := context.Background()
	res, err := h.Run(ctx, host.Cmd{Script: "echo DB_PASSWORD=hunter2-secret", Label: "creds", SecretStdout: true})
	if err != nil || !strings.Contains(string(res.Stdout), "hunter2-secret") {
		t.Fatalf("run: %v, stdout %q", err, res.Stdout)
	}
	_, err = h.Run(ctx, host.Cmd{Script: "echo DB_PASSWORD=hunter2-secret; echo no such file >&2; exit 3", Label: "creds", SecretStdout: true})
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("error %v: want the stderr tail without the secret", err)
	}
	if strings.Contains(log.String(), "hunter2") || !strings.Contains(log.String(), "creds! no such file") {
		t.Errorf("log shows the secret or lacks stderr:\n%s", log.String())
	}
}

// A script with a NUL is refused before it is sent: a shell would stop
// there or drop the byte and run another script than the one written.
func testNULRefused(t *testing.T, h host.Host, _ *testenv.SyncBuffer) {
	dir := t.TempDir()
	_, err := h.Run(context.Background(), host.Cmd{Script: "touch " + dir + "/ran\x00; rm -rf /nonexistent", Timeout: time.Minute})
	if err == nil || !strings.Contains(err.Error(), "NUL byte") {
		t.Errorf("a script with a NUL: %v, want a refusal naming the NUL", err)
	}
	if _, serr := os.Stat(dir + "/ran"); serr == nil {
		t.Error("the script ran")
	}
}
