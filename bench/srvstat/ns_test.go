package srvstat

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/testenv"
)

// The invariant tests compare srvstat with the kernel's own count of the
// CPU a set of processes used: a cpuacct cgroup's usage (ns, exact,
// exited processes included). The set must be exactly what srvstat sees,
// and nothing else on this machine (go test runs packages side by side):
// so the test runs again in a pid and mount namespace of its own, as its
// init, with /proc showing only its processes, all of them in a cgroup of
// their own. That is also how srvstat runs on a bare host: /proc shows the
// namespace, /proc/stat the whole machine.

const (
	nsEnv     = "WPTEST_SRVSTAT_NS"      // the cgroup, in the copy running in the namespace
	cpuacctV1 = "/sys/fs/cgroup/cpuacct" // cgroup v1 cpuacct hierarchy
)

// nsInit runs in TestMain of the copy started by inNamespace: it joins the
// cgroup and mounts a /proc of the new pid namespace.
func nsInit() error {
	cg := os.Getenv(nsEnv)
	if cg == "" {
		return nil
	}
	if os.Getpid() != 1 {
		return fmt.Errorf("%s set, but pid %d is not a namespace's init", nsEnv, os.Getpid())
	}
	if err := os.WriteFile(filepath.Join(cg, "cgroup.procs"), []byte("0"), 0); err != nil {
		return fmt.Errorf("join %s: %w", cg, err)
	}
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make / private: %w", err)
	}
	if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	return nil
}

// inNamespace runs t again in a pid namespace of its own (see above) and
// returns "", false: the copy's result is t's. In the copy it returns the
// cgroup directory and true: go on with the test there.
func inNamespace(t *testing.T) (string, bool) {
	t.Helper()
	if cg := os.Getenv(nsEnv); cg != "" {
		return cg, true
	}
	testenv.NeedRoot(t)
	_, err := os.Stat(filepath.Join(cpuacctV1, "cpuacct.usage"))
	testenv.Need(t, err == nil, "a cgroup v1 cpuacct hierarchy at "+cpuacctV1)
	b := make([]byte, 6)
	rand.Read(b)
	cg := filepath.Join(cpuacctV1, "wptest-srvstat-"+hex.EncodeToString(b))
	if err := os.Mkdir(cg, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Every process of the namespace died with its init; the cgroup
		// empties as they are released.
		testenv.Poll(10*time.Second, func() bool { return os.Remove(cg) == nil || os.IsNotExist(os.Remove(cg)) })
	})
	args := []string{"-test.run=^" + t.Name() + "$", "-test.count=1", "-test.v"}
	if d, ok := t.Deadline(); ok {
		// Time for the copy's own timeout report to come back.
		args = append(args, "-test.timeout="+(time.Until(d)*9/10).Round(time.Second).String())
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), nsEnv+"="+cg)
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS, Pdeathsig: syscall.SIGKILL}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	for _, l := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		t.Log(l)
	}
	switch {
	case err != nil:
		t.Fatalf("in its own pid namespace: %v", err)
	case strings.Contains(out.String(), "--- SKIP") && testenv.InCI():
		t.Fatal("CI=true and the copy in its pid namespace skipped (above)")
	case strings.Contains(out.String(), "--- SKIP"):
		t.Skip("skipped in its pid namespace (above)")
	case !strings.Contains(out.String(), "--- PASS"):
		t.Fatal("no PASS from the copy in its pid namespace")
	}
	return "", false
}

// cgroupUsage is the cgroup's CPU time so far, ns.
func cgroupUsage(t testing.TB, cg string) uint64 {
	b, err := os.ReadFile(filepath.Join(cg, "cpuacct.usage"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// On this kernel: a process named as a group names it, in a pid namespace
// of its own (as a container's or a bare host's apache2 is), is not in
// the group; the same program in ours is.
func TestOtherPidNamespaceNotInTheGroup(t *testing.T) {
	testenv.NeedRoot(t)
	sleep := testenv.NeedBinary(t, "sleep")
	name := filepath.Join(t.TempDir(), "srvstat-nsproc")
	if err := os.Symlink(sleep, name); err != nil {
		t.Fatal(err)
	}
	start := func(flags uintptr) *exec.Cmd {
		cmd := exec.Command(name, "300")
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: flags, Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	ours, theirs := start(0), start(syscall.CLONE_NEWPID)
	comm := func(pid int) string {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		return strings.TrimSpace(string(b))
	}
	testenv.WaitFor(t, time.Minute, "both to run as srvstat-nsproc", func() bool {
		return comm(ours.Process.Pid) == "srvstat-nsproc" && comm(theirs.Process.Pid) == "srvstat-nsproc"
	})
	s := New(Config{Groups: []Group{{Name: "nsproc", Exe: []string{"srvstat-nsproc"}}}, NoPSS: true})
	defer s.Close()
	smp, err := s.Sample(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := smp.Groups["nsproc"].Procs; n != 1 {
		t.Errorf("group srvstat-nsproc holds %d processes, want 1: ours (pid %d), not the one in a pid namespace of its own (pid %d)", n, ours.Process.Pid, theirs.Process.Pid)
	}
}
