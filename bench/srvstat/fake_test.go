package srvstat

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// fakeProc is a /proc tree in a temp dir (Config.Proc), for what a real
// machine cannot be made to do on cue: exact PSS values, unreadable
// smaps_rollup, a parent that vanishes. Files are rewritten in place (same
// inode), as /proc files change under an open descriptor.
type fakeProc struct {
	t   *testing.T
	dir string
}

func newFakeProc(t *testing.T) fakeProc {
	f := fakeProc{t, t.TempDir()}
	f.write("stat", "cpu  1000 0 500 90000 10 0 5 0 0 0\ncpu0 1000 0 500 90000 10 0 5 0 0 0\nintr 1 2 3\n")
	f.write("loadavg", "0.50 0.40 0.30 1/100 4242\n")
	f.write("meminfo", "MemTotal:        4000000 kB\nMemFree:         1000000 kB\nMemAvailable:    3000000 kB\n")
	return f
}

func (f fakeProc) write(name, s string) {
	f.t.Helper()
	p := filepath.Join(f.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

type fakePid struct {
	pid, ppid, threads int
	comm               string
	state              byte
	utime, stime       uint64 // ticks
	cutime, cstime     uint64
	cflt               uint64 // children's minor faults: 1 when cutime or cstime is not 0, unless set
	start              uint64
	ns                 string // its ns/pid link ("pid:[4026531836]"); "": none
}

// stat writes /proc/PID/stat in the kernel's format.
func (f fakeProc) stat(p fakePid) {
	if p.threads == 0 {
		p.threads = 1
	}
	if p.start == 0 {
		p.start = uint64(1000 + p.pid)
	}
	if p.state == 0 {
		p.state = 'S'
	}
	if p.cflt == 0 && p.cutime+p.cstime > 0 {
		p.cflt = 1
	}
	f.write(fmt.Sprintf("%d/stat", p.pid), fmt.Sprintf("%d (%s) %c %d %d %d 0 -1 4194560 100 %d 0 0 %d %d %d %d 20 0 %d 0 %d 10000000 500 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		p.pid, p.comm, p.state, p.ppid, p.pid, p.pid, p.cflt, p.utime, p.stime, p.cutime, p.cstime, p.threads, p.start))
	if p.ns != "" {
		link := filepath.Join(f.dir, strconv.Itoa(p.pid), "ns", "pid")
		os.Remove(link)
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			f.t.Fatal(err)
		}
		if err := os.Symlink(p.ns, link); err != nil {
			f.t.Fatal(err)
		}
	}
}

// exit makes pid gone as the kernel does once it is reaped: its open stat
// file reads nothing, and /proc no longer lists it.
func (f fakeProc) exit(pid int) {
	f.write(fmt.Sprintf("%d/stat", pid), "")
	f.remove(pid)
}

func (f fakeProc) pss(pid int, kb int64) {
	f.write(fmt.Sprintf("%d/smaps_rollup", pid), fmt.Sprintf("55d0c0a00000-7ffd39d3b000 ---p 00000000 00:00 0                          [rollup]\nRss:                %d kB\nPss:                %d kB\nPss_Dirty:          %d kB\n", kb*2, kb, kb/2))
}

func (f fakeProc) sched(pid int, ns uint64) {
	f.write(fmt.Sprintf("%d/schedstat", pid), fmt.Sprintf("%d 1000 7\n", ns))
}

func (f fakeProc) remove(pid int) {
	if err := os.RemoveAll(filepath.Join(f.dir, strconv.Itoa(pid))); err != nil {
		f.t.Fatal(err)
	}
}

// exactCost makes every PSS read of s cost exactly d of its budget (real
// reads of a small file cost a few µs, varying).
func exactCost(s *Sampler, d time.Duration) {
	var now time.Duration
	s.cpuClock = func() time.Duration { now += d; return now }
	s.pssAvgCost = d
}

func sample(t testing.TB, s *Sampler) Sample {
	t.Helper()
	smp, err := s.Sample(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return smp
}

// The whole-machine and per-group numbers come from the fake files, parsed
// in place: CPU, load, memory, and group CPU as the sum of the members'.
func TestSampleParsesProc(t *testing.T) {
	f := newFakeProc(t)
	f.stat(fakePid{pid: 1, comm: "init", utime: 7})
	f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 100, stime: 50, cutime: 3, cstime: 2})
	f.stat(fakePid{pid: 11, ppid: 10, comm: "apache2", utime: 40, stime: 10})
	// A shell of Apache's is Apache's; its name has spaces and a ')'.
	f.stat(fakePid{pid: 12, ppid: 11, comm: "my sh) x", utime: 5})
	f.stat(fakePid{pid: 20, ppid: 1, comm: "mariadbd", utime: 300, threads: 12})
	s := New(Config{Proc: f.dir, NoPSS: true})
	defer s.Close()
	smp := sample(t, s)
	if smp.CPU.User != 10 || smp.CPU.System != 5 || smp.CPU.Idle != 900 || smp.CPU.IOWait != 0.1 || smp.CPU.SoftIRQ != 0.05 {
		t.Fatalf("cpu %+v", smp.CPU)
	}
	if smp.Load != [3]float64{0.5, 0.4, 0.3} || smp.MemTotalKB != 4000000 || smp.MemAvailableKB != 3000000 || smp.Procs != 5 {
		t.Fatalf("load %v mem %d/%d procs %d", smp.Load, smp.MemTotalKB, smp.MemAvailableKB, smp.Procs)
	}
	web, db := smp.Groups["web"], smp.Groups["db"]
	if web.Procs != 3 || web.CPUSec != 0 || db.Procs != 1 || db.CPUSec != 0 || smp.Groups[Other].Procs != 1 {
		t.Fatalf("first sample (counts from here): %+v", smp.Groups)
	}
	if web.PSSKB != 0 || web.PSSRead != 0 || web.PSSAgeS != nil {
		t.Fatalf("--no-pss read PSS: %+v", web)
	}
	// Own times (from a fake /proc: whole ticks) and the rounding they
	// allow: 20 ms a process, 20 more for Apache's parent, which reaped.
	if smp.CPURoundingS != 0.12 || smp.ExitsFrom != "parents" {
		t.Fatalf("rounding %.2f s, exits from %q", smp.CPURoundingS, smp.ExitsFrom)
	}
	f.stat(fakePid{pid: 1, comm: "init", utime: 9})
	f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 150, stime: 50, cutime: 3, cstime: 2})
	f.stat(fakePid{pid: 11, ppid: 10, comm: "apache2", utime: 50, stime: 10})
	f.stat(fakePid{pid: 12, ppid: 11, comm: "my sh) x", utime: 10})
	f.stat(fakePid{pid: 20, ppid: 1, comm: "mariadbd", utime: 310, threads: 12})
	smp = sample(t, s)
	web, db = smp.Groups["web"], smp.Groups["db"]
	if math.Abs(web.CPUSec-0.65) > 1e-9 || math.Abs(db.CPUSec-0.1) > 1e-9 || math.Abs(smp.Groups[Other].CPUSec-0.02) > 1e-9 {
		t.Fatalf("second sample: %+v", smp.Groups)
	}
}

// The first sample reads every process's PSS; after it, with a budget that
// pays for one read per sample, PSS is read round-robin: never-read processes
// first, then the stalest, each process once per cycle. The group's PSS is
// the sum of the latest readings, there only while every member has one.
func TestPSSBudgetRoundRobin(t *testing.T) {
	f := newFakeProc(t)
	f.stat(fakePid{pid: 1, comm: "init"})
	f.pss(1, 99999) // not in a named group: never read
	const n = 5
	want := int64(0)
	for i := range n {
		pid := 10 + i
		f.stat(fakePid{pid: pid, ppid: 1, comm: "apache2"})
		f.pss(pid, int64(1000*(i+1)))
		want += int64(1000 * (i + 1))
	}
	s := New(Config{Proc: f.dir, PSSBudget: time.Millisecond})
	exactCost(s, time.Millisecond) // one read per sample
	defer s.Close()
	smp := sample(t, s)
	times := []float64{smp.Unix}
	if web := smp.Groups["web"]; web.PSSKB != want || web.PSSRead != n || web.PSSAgeS == nil || *web.PSSAgeS != 0 {
		t.Fatalf("first sample: %+v, want all %d read, %d kB", web, n, want)
	}
	if other := smp.Groups[Other]; other.PSSKB != 0 || other.PSSRead != 0 {
		t.Fatalf("other's PSS read: %+v", other)
	}
	// Every process grows by 100 kB: each sample picks up exactly one more
	// (the stalest), so after a cycle all are fresh and none was read twice.
	for i := range n {
		f.pss(10+i, int64(1000*(i+1)+100))
	}
	for cycle := range 2 {
		for i := range n {
			time.Sleep(20 * time.Millisecond)
			smp := sample(t, s)
			times = append(times, smp.Unix)
			web := smp.Groups["web"]
			if w := want + int64(100*min(n, cycle*n+i+1)); web.PSSKB != w || web.PSSRead != n {
				t.Fatalf("cycle %d, sample %d: %+v, want %d kB", cycle, i, web, w)
			}
			// Once the first sample's readings are all replaced, the oldest
			// reading in the sum is from n-1 samples back (taken after that
			// sample's timestamp, before the next one's).
			if k := len(times) - 1; k >= n {
				hi, lo := times[k]-times[k-n+1], times[k]-times[k-n+2]
				if age := *web.PSSAgeS; age > hi+0.0015 || age < lo-0.0015 {
					t.Fatalf("cycle %d, sample %d: oldest PSS reading %.3f s old, want %.3f..%.3f", cycle, i, age, lo, hi)
				}
			}
		}
	}
	want += 100 * n
	// Two new members, budget for one: both are read in the sample that
	// finds them (a newcomer never withholds its group's sum), and the
	// overspent budget is paid back: the next sample re-reads nothing. One
	// that exits leaves the sum.
	f.stat(fakePid{pid: 30, ppid: 10, comm: "apache2"})
	f.pss(30, 7)
	f.stat(fakePid{pid: 31, ppid: 10, comm: "apache2"})
	f.pss(31, 8)
	f.remove(12)
	reads := s.pssReads
	smp = sample(t, s)
	if web := smp.Groups["web"]; web.Procs != n+1 || web.PSSRead != n+1 || web.PSSKB != want-3100+7+8 || s.pssReads != reads+2 {
		t.Fatalf("two new, both read at once, one gone: %+v (%d reads), want %d kB", web, s.pssReads-reads, want-3100+7+8)
	}
	sample(t, s)
	if s.pssReads != reads+2 {
		t.Fatalf("after overspending, %d more reads, want none", s.pssReads-reads-2)
	}
	sample(t, s)
	if s.pssReads != reads+3 {
		t.Fatalf("once paid back, %d more reads, want 1", s.pssReads-reads-2)
	}
}

// Newcomers are read over budget, but only up to newcomerBudgets budgets a
// sample: a group that spawns a process per request (php-cgi) cannot make
// srvstat's cost follow its spawn rate; the rest wait for the next sample.
func TestPSSNewcomersCapped(t *testing.T) {
	f := newFakeProc(t)
	f.stat(fakePid{pid: 10, ppid: 1, comm: "php-cgi"})
	f.pss(10, 1)
	s := New(Config{Proc: f.dir, PSSBudget: time.Millisecond})
	exactCost(s, time.Millisecond)
	defer s.Close()
	sample(t, s)
	const born = newcomerBudgets + 5
	for i := range born {
		f.stat(fakePid{pid: 100 + i, ppid: 10, comm: "php-cgi"})
		f.pss(100+i, 1)
	}
	reads := s.pssReads
	if cgi := sample(t, s).Groups["php-cgi"]; cgi.Procs != born+1 || cgi.PSSRead != newcomerBudgets+1 || cgi.PSSKB != 0 {
		t.Fatalf("first sample after %d births: %+v (%d reads), want %d read and the sum withheld", born, cgi, s.pssReads-reads, newcomerBudgets)
	}
	if cgi := sample(t, s).Groups["php-cgi"]; cgi.PSSRead != born+1 || cgi.PSSKB != born+1 {
		t.Fatalf("second sample: %+v, want all read, %d kB", cgi, born+1)
	}
}

// The budget is an average: below one read's cost, a read every few
// samples; above, as many reads as it pays for; the cost follows it.
func TestPSSBudgetIsAnAverage(t *testing.T) {
	f := newFakeProc(t)
	for i := range 20 {
		f.stat(fakePid{pid: 10 + i, ppid: 1, comm: "nginx"})
		f.pss(10+i, 100)
	}
	for _, c := range []struct {
		budget time.Duration
		reads  int // in 12 samples after the first
	}{
		{250 * time.Microsecond, 3}, // a 1 ms read every 4th sample
		{time.Millisecond, 12},
		{3500 * time.Microsecond, 36}, // 3 a sample; the 0.5 left is not saved up
	} {
		s := New(Config{Proc: f.dir, PSSBudget: c.budget})
		exactCost(s, time.Millisecond)
		sample(t, s)
		if s.pssReads != 20 {
			t.Fatalf("budget %s: first sample read %d of 20", c.budget, s.pssReads)
		}
		for range 12 {
			sample(t, s)
		}
		if got := s.pssReads - 20; got != c.reads {
			t.Fatalf("budget %s, reads of 1 ms: %d reads in 12 samples, want %d", c.budget, got, c.reads)
		}
		s.Close()
	}
}

// A member whose smaps_rollup cannot be read keeps its group's PSS out of
// the sample (not counted as 0), and does not starve the others.
func TestPSSUnreadableMemberWithholdsGroupPSS(t *testing.T) {
	f := newFakeProc(t)
	f.stat(fakePid{pid: 10, ppid: 1, comm: "php-fpm8.2"})
	f.pss(10, 5000)
	f.stat(fakePid{pid: 11, ppid: 10, comm: "php-fpm8.2"})
	f.stat(fakePid{pid: 12, ppid: 10, comm: "php-fpm8.2"}) // no smaps_rollup
	f.pss(11, 3000)
	s := New(Config{Proc: f.dir, PSSBudget: time.Millisecond})
	exactCost(s, time.Millisecond)
	defer s.Close()
	for i := range 6 {
		if fpm := sample(t, s).Groups["php-fpm"]; fpm.PSSKB != 0 || fpm.Procs != 3 || fpm.PSSRead != 2 {
			t.Fatalf("sample %d: %+v", i, fpm)
		}
	}
	// Once readable, it is read within a cycle (the failed read counts as
	// its turn: it does not take every sample's budget).
	f.pss(12, 1000)
	for range 2 {
		sample(t, s)
	}
	if fpm := sample(t, s).Groups["php-fpm"]; fpm.PSSKB != 9000 || fpm.PSSRead != 3 {
		t.Fatalf("once readable: %+v", fpm)
	}
	// --pss-all reads everyone every sample: fresh (age 0).
	a := New(Config{Proc: f.dir, PSSAll: true})
	defer a.Close()
	if fpm := sample(t, a).Groups["php-fpm"]; fpm.PSSKB != 9000 || fpm.PSSAgeS == nil || *fpm.PSSAgeS != 0 {
		t.Fatalf("pss-all: %+v", fpm)
	}
}

// A process that execs into a group's name moves to that group, and its
// PSS reading (of the old program) is dropped and read again first.
func TestExecMovesProcessToItsNewGroup(t *testing.T) {
	f := newFakeProc(t)
	f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 100})
	f.pss(10, 4000)
	f.stat(fakePid{pid: 11, ppid: 10, comm: "sh", utime: 1})
	f.pss(11, 500)
	s := New(Config{Proc: f.dir, PSSBudget: time.Millisecond})
	exactCost(s, time.Millisecond)
	defer s.Close()
	if web := sample(t, s).Groups["web"]; web.Procs != 2 || web.PSSKB != 4500 {
		t.Fatalf("before exec: %+v", web)
	}
	f.stat(fakePid{pid: 11, ppid: 10, comm: "php-cgi", utime: 2})
	f.pss(11, 9000)
	smp := sample(t, s)
	web, cgi := smp.Groups["web"], smp.Groups["php-cgi"]
	if web.Procs != 1 || web.PSSKB != 4000 || cgi.Procs != 1 || cgi.PSSKB != 9000 || cgi.CPUSec != 0.01 || web.CPUSec != 0 {
		t.Fatalf("after exec: web %+v, php-cgi %+v", web, cgi)
	}
}

// A child that exits keeps its CPU in its group; what it burned after the
// last sample (only in its parent's cutime) goes to its group too, not the
// parent's.
func TestExitedChildKeepsCPUInItsGroup(t *testing.T) {
	f := newFakeProc(t)
	f.stat(fakePid{pid: 1, comm: "init"})
	f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 100})
	f.stat(fakePid{pid: 11, ppid: 10, comm: "php-cgi", utime: 30})
	s := New(Config{Proc: f.dir, NoPSS: true})
	defer s.Close()
	sample(t, s)
	// php-cgi burns 20 more ticks, exits, and Apache reaps it: 50 in cutime.
	f.exit(11)
	f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2", utime: 100, cutime: 50})
	s1 := sample(t, s)
	if s1.Groups["web"].CPUSec != 0 || s1.Groups["php-cgi"].CPUSec != 0.2 || s1.Groups["php-cgi"].Procs != 0 || s1.Groups["php-cgi"].Exits != 1 {
		t.Fatalf("after the exit: %+v", s1.Groups)
	}
}

// A process that stays idle is checked through schedstat, not re-read;
// once schedstat shows it ran, its stat is read again; and a process whose
// parent vanished is re-read though it did not run (reparenting changes its
// ppid, and so its group).
func TestIdleProcessesCheckedThroughSchedstat(t *testing.T) {
	f := newFakeProc(t)
	f.stat(fakePid{pid: 1, comm: "init"})
	f.sched(1, 1)
	f.stat(fakePid{pid: 5, ppid: 1, comm: "php-fpm", utime: 1}) // a subreaper (PR_SET_CHILD_SUBREAPER)
	f.sched(5, 100)
	f.stat(fakePid{pid: 10, ppid: 5, comm: "apache2", utime: 100})
	f.sched(10, 5000)
	f.stat(fakePid{pid: 11, ppid: 10, comm: "helper", utime: 7})
	f.sched(11, 7000)
	s := New(Config{Proc: f.dir, NoPSS: true})
	s.gateGap = 0 // a fake /proc is never behind
	defer s.Close()
	for range 6 {
		sample(t, s)
	}
	skipped := s.skipped
	if skipped == 0 {
		t.Fatal("idle processes were re-read every sample")
	}
	// Apache runs: schedstat moves, and its new stat is what counts.
	f.stat(fakePid{pid: 10, ppid: 5, comm: "apache2", utime: 180})
	f.sched(10, 9000)
	smp := sample(t, s)
	if got := smp.Groups["web"].CPUSec; math.Abs(got-0.8) > 1e-9 {
		t.Fatalf("web CPU %.2f s after Apache ran, want 0.80", got)
	}
	if s.skipped == skipped {
		t.Fatal("the helper, idle, was re-read")
	}
	// Apache goes; the helper is reparented to the subreaper without running.
	f.remove(10)
	f.stat(fakePid{pid: 11, ppid: 5, comm: "helper", utime: 7})
	smp = sample(t, s)
	if web, fpm := smp.Groups["web"], smp.Groups["php-fpm"]; web.Procs != 0 || fpm.Procs != 2 {
		t.Fatalf("after reparenting: web %+v, php-fpm %+v", web, fpm)
	}
}

// /proc is listed only when a pid was handed out since the last listing
// (loadavg's last pid moved), or on every fullEvery-th sample: between
// them, a new process cannot exist.
func TestListingOnlyWhenAPidWasHandedOut(t *testing.T) {
	f := newFakeProc(t)
	f.stat(fakePid{pid: 10, ppid: 1, comm: "apache2"})
	s := New(Config{Proc: f.dir, NoPSS: true})
	defer s.Close()
	s.ns = 1 // as if f.dir were this process's /proc
	sample(t, s)
	// A process that appears without a pid being handed out (only a fake
	// /proc can do that) is not looked for...
	f.stat(fakePid{pid: 11, ppid: 10, comm: "apache2"})
	if web := sample(t, s).Groups["web"]; web.Procs != 1 {
		t.Fatalf("listed though no pid was handed out: %+v", web)
	}
	// ...and found once the last pid moves.
	f.write("loadavg", "0.50 0.40 0.30 1/100 4243\n")
	if web := sample(t, s).Groups["web"]; web.Procs != 2 {
		t.Fatalf("not listed after a pid was handed out: %+v", web)
	}
	f.stat(fakePid{pid: 12, ppid: 10, comm: "apache2"})
	for s.n%fullEvery != 0 {
		sample(t, s)
	}
	if web := sample(t, s).Groups["web"]; web.Procs != 3 {
		t.Fatalf("not listed on a full sample: %+v", web)
	}
}
