package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/hcloudfake"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/internal/testenv/baked"
	"github.com/wptest/wptest/provision/cloud"
)

// TestMain doubles as the wptest process (Main, with its signal handling)
// when a test starts this binary with WPTEST_CLI_MAIN=1. As the test
// binary it starts baking the servers' image the bare-host tests start
// from (baked.Warm) while the others run, and removes the wptest binary
// the tests share (testenv.WptestBinary) once they are done.
func TestMain(m *testing.M) {
	if os.Getenv("WPTEST_CLI_MAIN") == "1" {
		os.Exit(Main())
	}
	flag.Parse()
	baked.Warm(baked.Servers...)
	code := m.Run()
	testenv.RemoveBuilt()
	os.Exit(code)
}

// upChild is `wptest machines up` as a real process against the fake API,
// which sends it SIGTERM at a chosen request (from the fake's handler,
// before the answer) or when a chosen line appears on its stderr.
type upChild struct {
	code           int
	stdout, stderr string
	runDir         string
}

func runUpChild(t *testing.T, fake *hcloudfake.Fake, atCall func(hcloudfake.Call) (signal bool, f hcloudfake.Fault), atLine string) upChild {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "machines", "up", "--run", "t1", "--profile", "cpanel-apache", "--wait", "10m")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "WPTEST_CLI_MAIN=1", "HCLOUD_TOKEN="+cliToken, "HCLOUD_ENDPOINT="+fake.URL, "HOME="+dir, "USER=tester")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	var once sync.Once
	sigterm := func() {
		<-started
		once.Do(func() { cmd.Process.Signal(syscall.SIGTERM) })
	}
	fake.Hook = func(c hcloudfake.Call) hcloudfake.Fault {
		if atCall == nil {
			return hcloudfake.Fault{}
		}
		sig, f := atCall(c)
		if sig {
			sigterm()
		}
		return f
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	close(started)
	var stderr strings.Builder
	sc := bufio.NewScanner(errPipe)
	for sc.Scan() {
		stderr.WriteString(sc.Text() + "\n")
		if atLine != "" && strings.Contains(sc.Text(), atLine) {
			sigterm()
		}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(3 * time.Minute): // a hang guard, not a measurement
		cmd.Process.Kill()
		t.Fatalf("machines up did not end:\n%s", stderr.String())
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return upChild{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String(), runDir: filepath.Join(dir, "runs", "t1")}
}

// SIGTERM at several points of `wptest machines up` (a real signal to a
// real process): before anything exists, at each kind of create (one of
// them with its answer lost), at set_rules, and in the SSH wait. Each time
// the exit code is 8 with "interrupted; nothing left", and the API holds
// nothing: the cleanups ran and the label was confirmed empty.
func TestMachinesUpSIGTERM(t *testing.T) {
	at := func(pattern string, n int, drop bool) func(hcloudfake.Call) (bool, hcloudfake.Fault) {
		return func(c hcloudfake.Call) (bool, hcloudfake.Fault) {
			if c.Pattern() == pattern && c.N == n {
				return true, hcloudfake.Fault{Drop: drop}
			}
			return false, hcloudfake.Fault{}
		}
	}
	cases := []struct {
		name   string
		atCall func(hcloudfake.Call) (bool, hcloudfake.Fault)
		atLine string
	}{
		{name: "plan", atCall: at("GET /server_types", 1, false)},
		{name: "ssh key create", atCall: at("POST /ssh_keys", 1, false)},
		{name: "firewall create", atCall: at("POST /firewalls", 1, false)},
		{name: "server create, answer lost", atCall: at("POST /servers", 1, true)},
		{name: "second server create", atCall: at("POST /servers", 2, false)},
		{name: "set_rules", atCall: at("POST /firewalls/{id}/actions/set_rules", 1, false)},
		{name: "ssh wait", atLine: "==> wait for ssh and cloud-init"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := hcloudfake.New(t)
			fake.ActionsDone = true
			// Loopback addresses where no sshd listens: the SSH wait
			// retries until the signal.
			fake.ServerIP = func(id int64, _ string) string { return fmt.Sprintf("127.0.0.%d", 100+id) }
			r := runUpChild(t, fake, c.atCall, c.atLine)
			if r.code != exitcode.Interrupted || !strings.Contains(r.stderr, "interrupted; nothing left") {
				t.Errorf("exit code %d, want %d with \"interrupted; nothing left\"; stderr:\n%s", r.code, exitcode.Interrupted, r.stderr)
			}
			if left := fake.Left(); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
			if strings.Contains(r.stderr+r.stdout, cliToken) {
				t.Error("the token is in the output")
			}
			if c.name != "plan" {
				evs, err := cloud.ReadJournal(filepath.Join(r.runDir, cloud.JournalFile))
				if err != nil || len(evs) == 0 || len(cloud.Unfinished(evs)) != 0 {
					t.Errorf("journal: %d events (%v), unfinished %+v", len(evs), err, cloud.Unfinished(evs))
				}
			}
		})
	}
}

// Interrupted when a server cannot be deleted: exit 7, naming what is left
// and the command to finish, never "nothing left". In-process: the context
// is cancelled as SIGTERM cancels Main's (the signal path itself is
// TestMachinesUpSIGTERM's), and the driver's backoff is instant, so the
// three teardown attempts take no time.
func TestMachinesUpInterruptedLeftover(t *testing.T) {
	fake := hcloudfake.New(t)
	fake.ActionsDone = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fake.Hook = func(c hcloudfake.Call) hcloudfake.Fault {
		switch {
		case c.Pattern() == "POST /servers" && c.N == 2:
			cancel()
		case c.Pattern() == "DELETE /servers/{id}":
			return hcloudfake.Fault{Status: 423, Code: "locked"}
		}
		return hcloudfake.Fault{}
	}
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := Run(ctx, &App{Args: []string{"machines", "up", "--run", "t1"}, Env: []string{"HCLOUD_TOKEN=" + cliToken, "HCLOUD_ENDPOINT=" + fake.URL, "HOME=" + dir},
		Stdout: &out, Stderr: &errb, WorkDir: dir, CloudBackoff: func(int) time.Duration { return 0 }})
	if code != exitcode.Teardown || strings.Contains(errb.String(), "nothing left") {
		t.Errorf("exit code %d, want 7; stderr:\n%s", code, errb.String())
	}
	for _, want := range []string{"interrupted; ", "teardown incomplete", "still there: server wptest-t1-server (id ", "wptest down --run t1"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
	if n := fake.Count("DELETE /servers/{id}"); n != 6 {
		t.Errorf("%d server deletes, want 6 (2 servers, 3 attempts; once, by Create's own cleanup)", n)
	}
}

// The plan's cost line names the currency (from /pricing: the server
// type's price states none).
func TestMachinesPlanCurrency(t *testing.T) {
	fake := hcloudfake.New(t)
	fake.Currency = "USD"
	r := runIn(t.TempDir(), []string{"HCLOUD_TOKEN=" + cliToken, "HCLOUD_ENDPOINT=" + fake.URL}, "machines", "plan")
	if r.code != 0 || !strings.Contains(r.stdout, "cost: 0.0952 USD per hour for 2 machines (0.0476 USD each") {
		t.Fatalf("code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
}

// down warns about a create the journal never saw end, once: after down
// confirmed by label that nothing is left, later runs say nothing of it.
func TestDownJournalWarningStops(t *testing.T) {
	fake := hcloudfake.New(t)
	dir := t.TempDir()
	runDir := filepath.Join(dir, "runs", "t1")
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		t.Fatal(err)
	}
	j, err := cloud.OpenJournal(filepath.Join(runDir, cloud.JournalFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	j.Append(cloud.Event{Phase: cloud.PhaseBefore, Op: "create", Kind: "server", Name: "wptest-t1-server"})
	j.Close()
	env := []string{"HCLOUD_TOKEN=" + cliToken, "HCLOUD_ENDPOINT=" + fake.URL}
	const warning = `does not know how "create server wptest-t1-server" ended`
	first := runIn(dir, env, "down", "--run", "t1")
	if first.code != 0 || !strings.Contains(first.stderr, warning) {
		t.Fatalf("first down: code %d\n%s", first.code, first.stderr)
	}
	second := runIn(dir, env, "down", "--run", "t1")
	if second.code != 0 || strings.Contains(second.stderr, "does not know") {
		t.Fatalf("second down still warns (code %d):\n%s", second.code, second.stderr)
	}
}
