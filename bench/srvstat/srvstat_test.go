package srvstat

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
)

// A CPU burner in a group of its own must show up with about the CPU it burned,
// and the whole machine's busy time must include it.
func TestSamplerSeesCPUBurner(t *testing.T) {
	sh := testenv.NeedBinary(t, "sh")
	// The burner is a shell loop; a group named after it (comm "sh" is too
	// common), so run it under a unique name via a symlink.
	dir := t.TempDir()
	burner := dir + "/srvstat-burn"
	if err := os.Symlink(sh, burner); err != nil {
		t.Fatal(err)
	}
	s := New(Config{Groups: []Group{{Name: "burn", Exe: []string{"srvstat-burn"}}}})
	ctx := context.Background()
	s0, err := s.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(burner, "-c", `while :; do :; done`)
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Sample once it has burnt some CPU, and again once it has burnt more:
	// the kernel's count, not the time, says when (a busy machine gives it
	// less of each second).
	burnt := func(ticks uint64) func() bool { return func() bool { return procTicks(t, cmd.Process.Pid) >= ticks } }
	testenv.WaitFor(t, 2*time.Minute, "the burner to use 0.3 s of CPU", burnt(30))
	mid, err := s.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if mid.Groups["burn"].Procs < 1 {
		t.Fatalf("burner not seen in its group: %+v", mid.Groups)
	}
	testenv.WaitFor(t, 2*time.Minute, "the burner to use 0.6 s of CPU", burnt(60))
	// It exits and is reaped by us, not by a member: the CPU it burned since
	// the last sample is only in our cutime, and must still be its group's.
	cmd.Process.Kill()
	cmd.Wait()
	wall := time.Since(t0).Seconds()
	s1, err := s.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	used := s1.Groups["burn"].CPUSec - s0.Groups["burn"].CPUSec
	// The truth: what the kernel charged the burner, from wait4.
	truth := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	if truth < 0.2 || used < truth*0.95-0.02 || used > truth*1.05+0.02 {
		t.Fatalf("burner group CPU %.2f s, kernel says the burner used %.2f s (%.2f s wall)", used, truth, wall)
	}
	busy := s1.CPU.Busy() - s0.CPU.Busy()
	if busy < used*0.9 {
		t.Fatalf("machine busy %.2f s < burner %.2f s", busy, used)
	}
	if s1.Groups["burn"].Procs != 0 || s1.MemTotalKB == 0 || s1.Procs == 0 {
		t.Fatalf("after exit: %+v mem=%d procs=%d", s1.Groups["burn"], s1.MemTotalKB, s1.Procs)
	}
	if mid.Groups["burn"].PSSKB <= 0 {
		t.Fatalf("no PSS for the live burner: %+v", mid.Groups["burn"])
	}
	srv, err := Summarize([]Sample{s0, mid, s1}, t0, time.Now(), 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	if g := srv.Groups["burn"]; g.CPUMs < 900*truth || srv.CPUMsPerRequest <= 0 || g.PSSPeakKB <= 0 {
		t.Fatalf("summary: %+v", srv)
	}
	t.Logf("burner %.2f s CPU (kernel: %.2f s) in %.2f s; machine busy %.2f s; summary cpu%%=%.1f", used, truth, wall, busy, srv.CPUBusyPct)
}

// A process that sat idle (so srvstat checks it through schedstat instead
// of re-reading its stat) and then burns CPU must show that CPU in the next
// sample, between what its stat said just before and just after; and one
// that dies while idle must be gone from the next sample, whether or not a
// pid was handed out meanwhile (no listing of /proc when none was).
func TestSamplerSeesIdleProcessWakeUp(t *testing.T) {
	sh := testenv.NeedBinary(t, "sh")
	dir := t.TempDir()
	waker := dir + "/srvstat-wake"
	if err := os.Symlink(sh, waker); err != nil {
		t.Fatal(err)
	}
	start := func() (*exec.Cmd, io.WriteCloser) {
		cmd := exec.Command(waker, "-c", `read x; while :; do :; done`)
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd, in
	}
	wake, in := start()
	doomed, _ := start()
	s := New(Config{Groups: []Group{{Name: "wake", Exe: []string{"srvstat-wake"}}}, NoPSS: true})
	defer s.Close()
	ctx := context.Background()
	var s0 Sample
	var err error
	for i := 0; i < 6; i++ {
		if s0, err = s.Sample(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if s0.Groups["wake"].Procs != 2 {
		t.Fatalf("idle processes not seen: %+v", s0.Groups)
	}
	for _, c := range []*exec.Cmd{wake, doomed} {
		if p := s.procs[c.Process.Pid]; !s.noSched && (p == nil || p.quiet < 2 || !p.runOK) {
			t.Fatalf("idle for 6 samples, yet not checked through schedstat: %+v", p)
		}
	}
	doomed.Process.Kill()
	doomed.Wait()
	if _, err := in.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 2*time.Minute, "the woken process to use 0.25 s of CPU", func() bool { return procTicks(t, wake.Process.Pid) >= 25 })
	// Its CPU clock (exact, what srvstat reads) just before and after the
	// sample; the few ms it used before it went idle are not in the growth.
	before, _ := procClock(wake.Process.Pid)
	listed := s.listedPid
	s1, err := s.Sample(ctx)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := procClock(wake.Process.Pid)
	got := s1.Groups["wake"].CPUSec - s0.Groups["wake"].CPUSec
	// Above: this process reaped the killed one, and what its cutime grew
	// by beyond that one's last reading goes to that one's group: up to 20
	// ms of cutime's rounding.
	if before < 0.2e9 || got < float64(before)/1e9-0.011 || got > float64(after)/1e9+0.02 {
		t.Fatalf("after waking: group CPU grew %.4f s, its CPU clock said %.4f s before the sample and %.4f s after", got, float64(before)/1e9, float64(after)/1e9)
	}
	if n := s1.Groups["wake"].Procs; n != 1 {
		t.Fatalf("%d processes in the group after one of two died", n)
	}
	t.Logf("/proc listed for that sample: %v", s.listedPid != listed)
}

// procTicks is utime+stime of pid from its /proc stat.
func procTicks(t *testing.T, pid int) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	fs := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	u, _ := strconv.ParseUint(fs[11], 10, 64)
	st, _ := strconv.ParseUint(fs[12], 10, 64)
	return u + st
}

func TestParseStatus(t *testing.T) {
	w := ParseStatus([]byte("Total Accesses: 10\nBusyWorkers: 3\nIdleWorkers: 7\nScoreboard: __W_K_R___....\n"))
	if w.Busy != 3 || w.Idle != 7 || w.Slots != 14 {
		t.Fatalf("%+v", w)
	}
}

func TestLoopWritesJSONLines(t *testing.T) {
	var buf bytes.Buffer
	if err := Loop(context.Background(), New(Config{NoPSS: true}), 50*time.Millisecond, 3, &buf); err != nil {
		t.Fatal(err)
	}
	ss, err := Read(&buf)
	if err != nil || len(ss) != 3 {
		t.Fatalf("%d samples, %v", len(ss), err)
	}
	if ss[2].Unix <= ss[0].Unix || ss[2].CPU.Total() < ss[0].CPU.Total() {
		t.Fatalf("samples not in order: %+v", ss)
	}
}

// RunRemote through a real host.Host (the local one): the installed binary
// is started with srvstat's flags, and its JSON lines come back.
func TestRunRemoteThroughLocalHost(t *testing.T) {
	var out bytes.Buffer
	path := t.TempDir() + "/wptest-srvstat"
	h := host.NewLocal(nil)
	exe, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	if err := h.Put(context.Background(), path, exe, host.PutOptions{Mode: 0o755}); err != nil {
		t.Fatal(err)
	}
	err = RunRemote(context.Background(), h, Remote{Path: path, Args: []string{"--count", "2", "--interval", "100ms"}}, &out)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := Read(&out)
	if err != nil || len(ss) != 2 || ss[1].Unix <= ss[0].Unix {
		t.Fatalf("%d samples, %v: %s", len(ss), err, out.String())
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("uploaded binary: %v %v", fi, err)
	}
}

// A zombie member (exited, not yet reaped: its smaps_rollup answers ESRCH)
// has no memory: it counts as 0 kB, and does not withhold its group's PSS
// (a crashed server's children can stay zombies for a while).
func TestZombieMemberDoesNotWithholdGroupPSS(t *testing.T) {
	sh := testenv.NeedBinary(t, "sh")
	dir := t.TempDir()
	name := dir + "/srvstat-zomb"
	if err := os.Symlink(sh, name); err != nil {
		t.Fatal(err)
	}
	live := exec.Command(name, "-c", "sleep 30")
	zombie := exec.Command(name, "-c", "exit 0")
	for _, c := range []*exec.Cmd{live, zombie} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { live.Process.Kill(); live.Wait(); zombie.Wait() })
	// Wait until the second one has exited (state Z: not reaped, we do not Wait yet).
	for deadline := time.Now().Add(10 * time.Second); ; {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(zombie.Process.Pid) + "/stat")
		if _, rest, ok := strings.Cut(string(b), ") "); ok && strings.HasPrefix(rest, "Z") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child never became a zombie")
		}
		time.Sleep(20 * time.Millisecond)
	}
	s := New(Config{Groups: []Group{{Name: "z", Exe: []string{"srvstat-zomb"}}}})
	defer s.Close()
	smp, err := s.Sample(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if z := smp.Groups["z"]; z.Procs < 2 || z.PSSRead != z.Procs || z.PSSKB <= 0 {
		t.Fatalf("group with a live member and a zombie: %+v, want every member read, the live ones' PSS", z)
	}
}

// A group's peak is the most members one sample saw in the window: the
// samples' counts, not their exits or anything outside the window.
func TestSummarizeProcsPeak(t *testing.T) {
	t0 := time.Unix(1000, 0)
	mk := func(sec, procs int) Sample {
		return Sample{Unix: float64(t0.Unix() + int64(sec)), Groups: map[string]Usage{"php": {Procs: procs, Exits: int64(sec * 100)}}}
	}
	srv, err := Summarize([]Sample{mk(0, 200), mk(1, 8), mk(2, 150), mk(3, 9), mk(4, 300)}, t0.Add(time.Second), t0.Add(3*time.Second), 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Groups["php"].ProcsPeak; got != 150 {
		t.Fatalf("php processes at once: %d, want 150 (the window's samples only)", got)
	}
}

// Worker usage needs a status reading in the window: none (the page failed
// throughout) is no usage at all, not 0% of MaxRequestWorkers.
func TestSummarizeWorkersOnlyFromReadings(t *testing.T) {
	t0 := time.Unix(1000, 0)
	mk := func(sec int, w *Workers) Sample {
		return Sample{Unix: float64(t0.Unix() + int64(sec)), Groups: map[string]Usage{}, Apache: w}
	}
	failed := []Sample{mk(0, &Workers{Error: "refused"}), mk(1, &Workers{Error: "refused"}), mk(2, &Workers{Error: "refused"})}
	srv, err := Summarize(failed, t0, t0.Add(2*time.Second), 10, 150)
	if err != nil {
		t.Fatal(err)
	}
	if srv.WorkerLimit != 0 || srv.WorkerUsagePct != 0 {
		t.Fatalf("no reading: limit %d, usage %.1f%%; want none", srv.WorkerLimit, srv.WorkerUsagePct)
	}
	read := []Sample{mk(0, &Workers{Busy: 3, Idle: 7, Slots: 10}), mk(1, &Workers{Busy: 15, Idle: 0, Slots: 15}), mk(2, &Workers{Error: "timeout"})}
	if srv, err = Summarize(read, t0, t0.Add(2*time.Second), 10, 150); err != nil {
		t.Fatal(err)
	}
	if srv.WorkerLimit != 150 || srv.MaxBusyWorkers != 15 || srv.WorkerUsagePct != 10 {
		t.Fatalf("readings: %d busy of %d = %.1f%%; want 15 of 150 = 10%%", srv.MaxBusyWorkers, srv.WorkerLimit, srv.WorkerUsagePct)
	}
}
