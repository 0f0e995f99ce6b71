// Package srvstat samples a server from /proc once a second: whole-machine
// CPU time (on a machine that is a cgroup namespace of its own on a shared
// kernel, a netns machine or a container: its cgroup's, cgroup.go), per process group (the caller's: the live profile's web server,
// PHP, database; the rest is "other") CPU time, each exited process's
// counted once in its own group (account.go), and PSS from smaps_rollup,
// Apache's busy/idle workers from /server-status?auto, load average and
// memory. It
// writes one JSON line per sample; Summarize turns two samples around a load
// run into the run's server-side numbers (CPU per request = whole-machine CPU
// time over the window ÷ requests answered in it, as the cPanel vs corehttpd post defines it).
//
// It runs on the server: `wptest srvstat` locally, or uploaded and started
// through a host.Host (RunRemote). Its own cost is kept below 1% of one core
// at 1 Hz with ~150 Apache processes (BenchmarkSampleWithApachePrefork): the
// /proc files stay open and are parsed in place, and PSS, which costs the
// kernel about a millisecond per process, is read within a CPU-time budget
// per sample, stalest process first.
package srvstat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"syscall"
	"time"
)

// clkTck is USER_HZ, the unit of /proc CPU times: 100 on every Linux ABI Go runs on.
const clkTck = 100

// tick is one clock tick in ns: what /proc/PID/stat rounds each time down to.
const tick = 1e9 / clkTck

// DefaultPSSBudget is the CPU time a sample spends on average reading
// smaps_rollup when Config.PSSBudget is 0: about one Apache process's
// worth. BenchmarkSamplerProcess next to 150 Apache processes: srvstat
// costs ~0.8% of a core without PSS on this VM, ~0.9% with 1 ms, ~1.0%
// with 2 ms (a coin toss around the 1% goal).
const DefaultPSSBudget = time.Millisecond

// newcomerBudgets caps, in per-sample budgets, what one sample spends on
// processes never read before (see readPSS).
const newcomerBudgets = 10

// Config says what to sample.
type Config struct {
	// Proc is the proc filesystem to read ("/proc" when empty). In a pid
	// namespace it shows that namespace's processes only; /proc/stat is
	// the whole machine's either way.
	Proc string
	// Groups: the process groups (the live profile's). DefaultGroups when
	// nil. Everything no group claims is Other.
	Groups    []Group
	StatusURL string // Apache mod_status URL ("http://127.0.0.1/server-status?auto"); "" = none
	NoPSS     bool   // skip smaps_rollup (cheaper)
	// PSSBudget: CPU time (srvstat's thread, kernel time included) a
	// sample may spend on average reading smaps_rollup of named groups'
	// processes, those never read first, then the stalest; the first
	// sample reads every one. 0 = DefaultPSSBudget.
	PSSBudget time.Duration
	// PSSAll: read every named group's process every sample (no budget;
	// about a millisecond per process).
	PSSAll bool
	// Acct: attribute processes that exit between samples by the kernel's
	// process accounting records (acct(2); root, and Proc must be our own
	// pid namespace's), so that one that lived less than an interval counts
	// in its own group, not its parent's. It turns accounting on for the
	// pid namespace until Close: call Close. Sample.ExitsFrom says whether
	// it is in use.
	Acct bool
	// CgroupFS is where the machine's own cgroups are mounted when the
	// machine is a cgroup namespace on a shared kernel (cgroup.go): ""
	// means /sys/fs/cgroup when srvstat runs in a cgroup namespace of its
	// own, else none (the machine has its own kernel: /proc/stat).
	CgroupFS string
}

// Sample is one JSON line. CPU fields are cumulative seconds since boot (the
// machine) or since srvstat started (groups); subtract two samples for a window.
type Sample struct {
	Time string  `json:"t"`    // RFC 3339, UTC
	Unix float64 `json:"unix"` // seconds, same instant
	CPUs int     `json:"cpus"`
	CPU  CPU     `json:"cpu"`
	// Machine is the machine's own CPU time from its cgroup, when it is a
	// cgroup namespace on a shared kernel (a netns machine, a container):
	// CPU is that kernel's, every machine's, then. Absent otherwise.
	Machine        *MachineCPU      `json:"machine,omitempty"`
	Load           [3]float64       `json:"load"`
	MemTotalKB     int64            `json:"mem_total_kb"`
	MemAvailableKB int64            `json:"mem_available_kb"`
	Procs          int              `json:"procs"`
	Groups         map[string]Usage `json:"groups"`
	// CPURoundingS: how far below the CPU its processes really used the
	// groups' cpu_s (summed) may read at this sample. /proc gives a
	// process's reaped children's time in whole ticks (10 ms, user and
	// system apart), so this is 20 ms per process that has reaped a child,
	// plus 20 ms per process whose own time also comes in ticks (when Proc
	// is another pid namespace's), plus 10 ms per process that was running
	// on another CPU when read, at most one per CPU (the kernel updates a
	// running process's time at its next tick). Over a window from sample
	// a to b, the groups' sum is within (-b's, +a's) of the truth.
	CPURoundingS float64 `json:"cpu_rounding_s"`
	// ExitsFrom: how processes that exited between samples are attributed:
	// "acct" (process accounting: each in its own group) or "parents" (one
	// that lived less than an interval counts in its parent's group).
	ExitsFrom string   `json:"exits_from"`
	Apache    *Workers `json:"apache,omitempty"`
	// SelfCPUSec: srvstat's own CPU time so far; its cost, for the record.
	SelfCPUSec float64 `json:"self_cpu_s"`
}

// CPU is /proc/stat's first line in seconds.
type CPU struct {
	User    float64 `json:"user"`
	Nice    float64 `json:"nice"`
	System  float64 `json:"system"`
	Idle    float64 `json:"idle"`
	IOWait  float64 `json:"iowait"`
	IRQ     float64 `json:"irq"`
	SoftIRQ float64 `json:"softirq"`
	Steal   float64 `json:"steal"`
}

// Busy is every non-idle second (iowait counts as idle, steal as not ours: neither is busy).
func (c CPU) Busy() float64 { return c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ }

// Total is every second the CPUs were accounted.
func (c CPU) Total() float64 { return c.Busy() + c.Idle + c.IOWait + c.Steal }

// Usage is one group's cumulative CPU (own and exited children's) and current memory.
type Usage struct {
	// CPUSec: CPU time the group's processes used since srvstat's first
	// sample, those that exited since included, each once.
	CPUSec float64 `json:"cpu_s"`
	Procs  int     `json:"procs"`
	// Exits: members that exited since the first sample (that srvstat saw,
	// or that process accounting reported).
	Exits int64 `json:"exits,omitempty"`
	// PSSKB is the sum of the latest PSS reading of every live member. It
	// is there only when every member has one: a group with a member never
	// read (just started, or its smaps_rollup unreadable) has no PSSKB
	// rather than a sum that counts that member as 0.
	PSSKB int64 `json:"pss_kb,omitempty"`
	// PSSRead: members with a PSS reading (PSSKB is there when it equals Procs).
	PSSRead int `json:"pss_read,omitempty"`
	// PSSAgeS: how old the oldest of those readings is at the sample's time,
	// seconds (0: all read in this sample). Absent when no member has one.
	PSSAgeS *float64 `json:"pss_age_s,omitempty"`
}

// Workers is Apache's scoreboard.
type Workers struct {
	Busy  int    `json:"busy"`
	Idle  int    `json:"idle"`
	Slots int    `json:"slots"` // scoreboard length (ServerLimit × ThreadsPerChild)
	Error string `json:"error,omitempty"`
}

type procKey struct {
	pid   int
	start uint64 // starttime: tells a reused pid apart
}

// proc is one process, kept from sample to sample while it lives.
type proc struct {
	key     procKey
	fd      int    // /proc/PID/stat, open while the process is tracked
	schedFD int    // /proc/PID/schedstat, once it was idle (-1: not open)
	state   byte   // R, S, Z...
	comm    string // last read
	exe     string // base name of /proc/PID/exe, read with comm ("" = unknown)
	// foreign: it runs in a pid namespace below cfg.Proc's (foreignPid):
	// Other's, whatever its name, and so is what it forks.
	foreign bool
	uid     int64 // effective uid (-1: not read)
	// own: index of the group of its own name and user (-1: none);
	// group: this sample's (own, else the nearest claimed ancestor's,
	// else Other's).
	own, group int
	// userCheck: a group with users names it, so its uid matters (read
	// again while it is young and root: a forked worker drops root).
	userCheck bool
	seenAt    time.Time // the sample that found it
	ppid      int
	threads   int
	reads     int
	lastTicks uint64 // utime+stime at the last stat read

	// CPU, ns. cpu: its own (utime+stime), exact from its CPU clock when
	// Proc is our pid namespace's, else whole ticks; kids: its reaped
	// children's (cutime+cstime), whole ticks; cflt: its children's page
	// faults (cminflt+cmajflt), which grow whenever it reaps one. prev*:
	// the same at the last sample, already counted.
	cpu, kids, cflt             uint64
	prevCPU, prevKids, prevCflt uint64
	exact                       bool // cpu is from the CPU clock
	// debt: CPU of its reaped children counted beyond what its rounded
	// kids shows (see settle).
	debt uint64

	// run, pcount: schedstat's run time and times scheduled, read before
	// the last stat read: unchanged means it has not run since, so nothing
	// in its stat moved (see idle).
	run, pcount uint64
	runOK       bool
	readAt      int // sample number of the last stat read
	// quiet, ranGated: when to check schedstat first (see idle).
	quiet, ranGated int
	born            int // sample number of the first read
	listed          int // sample number of the last /proc listing that had it
	seq             int // when last read, in this sample's order of reads
	goneSeq         int // when found gone

	// This sample's reaping (account.go).
	depth    int
	absorbed []*proc    // exited processes it reaped
	recs     []*exitRec // never-seen exited processes it reaped
	rec      *exitRec   // its own exit record, once gone
	taken    uint64     // CPU of absorbed it accounts for
	counted  uint64     // cpu+kids+debt when it is gone: what its reaper's kids holds of it already

	pssKB   int64
	pssOK   bool          // pssKB is a reading
	pssAt   time.Time     // when last tried (zero: never)
	pssCost time.Duration // CPU time the last read took
}

// Sampler keeps what it needs between samples to account for processes that exit.
type Sampler struct {
	cfg    Config
	groups []matcher
	err    error            // the groups' (bad user...)
	other  int              // Other's group index: len(groups)
	procs  map[int]*proc    // live processes by pid
	cum    []uint64         // CPU counted per group since the first sample, ns
	exits  []int64          // exits per group
	status *statusClient    // for StatusURL
	n      int              // samples taken
	acct   *exitLog         // process accounting, when in use
	acctNo string           // why not, when asked for
	wait   map[int]*exitRec // exit records of processes not reaped yet
	lost   int              // exited processes no reaper's kids accounted for (tests)
	byPid  map[int]*proc    // this sample's gone processes, by pid
	kids   map[int][]*proc  // this sample's live processes by parent

	dirFD, statFD, loadFD, memFD int // /proc and its files, kept open (-1: not yet)
	buf, dents                   []byte
	gone, queue, order           []*proc
	seq                          int    // reads in this sample
	noSched                      bool   // no /proc/PID/schedstat (CONFIG_SCHED_INFO off)
	lastPid, listedPid           uint64 // loadavg's last pid now, and at the last listing
	ns                           int    // 1: cfg.Proc is our pid namespace's; -1: not; 0: unknown
	// procNS is the pid namespace cfg.Proc shows (its pid 1's, "pid:[N]";
	// "-": unknown, nothing is foreign); "" until read.
	procNS     string
	gate       bool                 // schedstat may stand in for stat: the last sample ended 10 ms ago or more
	lastEnd    time.Time            // when the last sample ended
	now        time.Time            // when this sample started
	gateGap    time.Duration        // 10 ms (tests of a fake /proc: 0)
	skipped    int                  // stat reads saved (for tests)
	pssReads   int                  // smaps_rollup reads so far (for the benchmark)
	pssSpent   time.Duration        // and their cost
	pssAvgCost time.Duration        // mean read cost, to predict a never-read process's
	pssCredit  time.Duration        // PSS budget not spent yet (negative: overspent)
	cpuClock   func() time.Duration // threadCPU (tests make read costs exact)
	// Tests: exit records instead of process accounting's, and a hook
	// before every stat read (a fake /proc changing mid-sample).
	testRecs   func() []*exitRec
	beforeRead func(pid int)
}

// fullEvery: /proc is listed at least every fullEvery samples, even when no
// pid was handed out (see readProcs).
const fullEvery = 10

// New returns a Sampler. A problem with cfg.Groups (CheckGroups) is
// returned by every Sample.
func New(cfg Config) *Sampler {
	if cfg.Proc == "" {
		cfg.Proc = "/proc"
	}
	if cfg.Groups == nil {
		cfg.Groups = DefaultGroups
	}
	if cfg.PSSBudget <= 0 {
		cfg.PSSBudget = DefaultPSSBudget
	}
	if cfg.CgroupFS == "" && ownCgroupNS() {
		cfg.CgroupFS = "/sys/fs/cgroup"
	}
	s := &Sampler{cfg: cfg, procs: map[int]*proc{}, wait: map[int]*exitRec{},
		dirFD: -1, statFD: -1, loadFD: -1, memFD: -1, buf: make([]byte, 4096), dents: make([]byte, 32<<10),
		pssAvgCost: time.Millisecond, cpuClock: threadCPU, gateGap: 10 * time.Millisecond}
	s.groups, s.err = compileGroups(cfg.Groups)
	s.other = len(s.groups)
	s.cum = make([]uint64, s.other+1)
	s.exits = make([]int64, s.other+1)
	return s
}

// classify sets p's own group from its comm, exe and (if a group with
// users names it) uid.
func (s *Sampler) classify(p *proc) {
	p.own, p.userCheck = -1, false
	if p.foreign {
		return // another machine's (a container's, a bare host's): Other
	}
	for i := range s.groups {
		g := &s.groups[i]
		if !g.names(p.comm, p.exe) {
			continue
		}
		if g.users == nil {
			p.own = i
			return
		}
		p.userCheck = true
		if p.uid < 0 {
			p.uid = s.readUID(p.key.pid)
		}
		if p.uid >= 0 && g.users[uint32(p.uid)] {
			p.own = i
			return
		}
	}
}

// classifyExit is classify for an exit record (no exe: its comm; its real uid).
func (s *Sampler) classifyExit(e *exitRec) int {
	for i := range s.groups {
		g := &s.groups[i]
		if g.names(e.comm, "") && (g.users == nil || g.users[e.uid]) {
			return i
		}
	}
	return -1
}

func (s *Sampler) groupName(i int) string {
	if i >= 0 && i < s.other {
		return s.groups[i].name
	}
	return Other
}

// Sample reads /proc (and the status URL) once.
func (s *Sampler) Sample(ctx context.Context) (Sample, error) {
	if s.err != nil {
		return Sample{}, s.err
	}
	now := time.Now()
	s.now = now
	at := sampleTime()
	smp := Sample{Time: at.UTC().Format(time.RFC3339Nano), Unix: float64(at.UnixNano()) / 1e9,
		CPUs: runtime.NumCPU(), Groups: make(map[string]Usage, len(s.groups)+1), ExitsFrom: "parents"}
	if err := s.readStat(&smp); err != nil {
		return smp, err
	}
	s.readLoadMem(&smp)
	if s.cfg.CgroupFS != "" {
		smp.Machine = readCgroupCPU(s.cfg.CgroupFS)
	}
	// A running process's run time is updated at its next tick (at most
	// 10 ms): closer samples cannot tell from schedstat that it ran.
	s.gate = now.Sub(s.lastEnd) >= s.gateGap
	defer func() { s.lastEnd = time.Now() }()
	if err := s.readProcs(); err != nil {
		return smp, err
	}
	recs := s.exitRecords()
	s.account(recs)
	if s.acct != nil || s.testRecs != nil {
		smp.ExitsFrom = "acct"
	}
	if !s.cfg.NoPSS {
		s.readPSS()
	}
	s.n++
	s.groupUsage(&smp, now)
	smp.Procs = len(s.procs)
	if s.cfg.StatusURL != "" {
		smp.Apache = s.workers(ctx)
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		smp.SelfCPUSec = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	return smp, nil
}

// exitRecords starts the exit log on the first sample (when asked for and
// possible) and returns the records written since the last one.
func (s *Sampler) exitRecords() []*exitRec {
	if s.cfg.Acct && s.n == 0 && s.acct == nil && s.acctNo == "" {
		if !s.sameNS() {
			s.acctNo = "Proc is not this pid namespace's /proc"
		} else if l, err := startExitLog(); err != nil {
			s.acctNo = err.Error()
		} else {
			s.acct = l
		}
	}
	var recs []*exitRec
	if s.testRecs != nil {
		recs = s.testRecs()
	} else if s.acct != nil && s.n > 0 {
		var err error
		if recs, err = s.acct.records(); err != nil {
			s.acct.close()
			s.acct, s.acctNo = nil, err.Error()
		}
	}
	return recs
}

// groupUsage fills each group's processes, PSS, CPU and exits into smp,
// and how far the CPU figures may be off by rounding.
func (s *Sampler) groupUsage(smp *Sample, now time.Time) {
	oldest := make(map[int]time.Time, len(s.groups))
	rounding, running := uint64(0), 0
	for _, p := range s.procs {
		name := s.groupName(p.group)
		u := smp.Groups[name]
		u.Procs++
		if p.pssOK && p.group != s.other {
			u.PSSKB += p.pssKB
			u.PSSRead++
			if o, ok := oldest[p.group]; !ok || p.pssAt.Before(o) {
				oldest[p.group] = p.pssAt
			}
		}
		smp.Groups[name] = u
		if p.cflt > 0 {
			rounding += 2 * tick
		}
		if !p.exact {
			rounding += 2 * tick
		}
		if p.readAt == s.n-1 && p.state == 'R' {
			running++
		}
	}
	// A process running on another CPU when read is up to a tick (≤ 10 ms)
	// behind; at most one per CPU.
	rounding += uint64(min(running, smp.CPUs)) * tick
	smp.CPURoundingS = float64(rounding) / 1e9
	for g, o := range oldest {
		name := s.groupName(g)
		u := smp.Groups[name]
		age := math.Round(max(now.Sub(o).Seconds(), 0)*1000) / 1000
		u.PSSAgeS = &age
		if u.PSSRead < u.Procs {
			u.PSSKB = 0 // a member was never read: no sum that counts it as 0
		}
		smp.Groups[name] = u
	}
	for g := range s.cum {
		name := s.groupName(g)
		u := smp.Groups[name]
		u.CPUSec = float64(s.cum[g]) / 1e9
		u.Exits = s.exits[g]
		smp.Groups[name] = u
	}
}

// AcctError says why Config.Acct is not in use ("" when it is, or was not asked for).
func (s *Sampler) AcctError() string { return s.acctNo }

// readPSS refreshes PSS readings of named groups' processes: those never
// read first (always, whatever the budget), then the stalest, as far as the
// budget goes. The budget is an
// average per sample: each sample adds it to a credit that pays for reads
// at their measured cost, so a budget below one read's cost reads every few
// samples, and the cost follows the budget whatever a read costs. The credit
// is capped at one sample's budget (or the next read's cost, if more): a
// quiet spell does not save up for a burst. The first sample reads them
// all, so that a run starting with srvstat has every group's PSS from its
// first sample on (a one-time cost).
func (s *Sampler) readPSS() {
	all := s.cfg.PSSAll || s.n == 0
	q := s.queue[:0]
	for _, p := range s.procs {
		if p.group != s.other {
			q = append(q, p)
		}
	}
	defer func() { clear(q); s.queue = q[:0] }()
	if len(q) == 0 {
		return
	}
	slices.SortFunc(q, func(a, b *proc) int {
		if c := a.pssAt.Compare(b.pssAt); c != 0 {
			return c // the zero time (never read) sorts first
		}
		return a.key.pid - b.key.pid
	})
	predict := func(p *proc) time.Duration {
		if p.pssOK {
			return p.pssCost
		}
		return s.pssAvgCost
	}
	if !all {
		s.pssCredit = min(s.pssCredit+s.cfg.PSSBudget, max(s.cfg.PSSBudget, predict(q[0])))
	}
	// The cost is CPU time of this thread: reading smaps_rollup is the
	// kernel walking page tables in our syscall.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	spentNew := time.Duration(0)
	for _, p := range q {
		// A member never read is read now, over budget if need be (the
		// credit goes negative and later re-reads wait): otherwise its
		// group's sum stays withheld for as long as members keep arriving
		// (prefork spawning, other servers on the machine). Births are
		// rare, so the average holds; where they are not (a php-cgi per
		// request), newcomers beyond newcomerBudgets budgets wait, and
		// their group's sum is withheld meanwhile.
		if !all {
			if p.pssAt.IsZero() {
				if spentNew >= newcomerBudgets*s.cfg.PSSBudget {
					continue
				}
			} else if s.pssCredit < predict(p) {
				break
			}
		}
		t0 := s.cpuClock()
		kb, ok := s.pss(p.key.pid)
		c := s.cpuClock() - t0
		if !all {
			s.pssCredit -= c
		}
		if p.pssAt.IsZero() {
			spentNew += c
		}
		s.pssReads++
		s.pssSpent += c
		p.pssAt, p.pssCost = time.Now(), c
		p.pssKB, p.pssOK = kb, ok
		if ok {
			s.pssAvgCost = (s.pssAvgCost*7 + c) / 8
		}
	}
}

// Close releases the open /proc files and the status connection.
func (s *Sampler) Close() {
	if s.status != nil {
		s.status.close()
	}
	s.acct.close()
	s.acct = nil
	for pid, p := range s.procs {
		rawClose(p.fd)
		if p.schedFD >= 0 {
			rawClose(p.schedFD)
		}
		delete(s.procs, pid)
	}
	for _, fd := range []*int{&s.dirFD, &s.statFD, &s.loadFD, &s.memFD} {
		if *fd >= 0 {
			rawClose(*fd)
			*fd = -1
		}
	}
}

func (s *Sampler) workers(ctx context.Context) *Workers {
	if s.status == nil {
		s.status = newStatusClient(s.cfg.StatusURL)
	}
	b, err := s.status.get(ctx)
	if err != nil {
		return &Workers{Error: err.Error()}
	}
	w := ParseStatus(b)
	return &w
}

// ParseStatus reads mod_status's ?auto text.
func ParseStatus(b []byte) Workers {
	var w Workers
	for len(b) > 0 {
		var l []byte
		l, b, _ = bytes.Cut(b, []byte("\n"))
		k, v, ok := bytes.Cut(l, []byte(":"))
		if !ok {
			continue
		}
		v = bytes.TrimSpace(v)
		switch string(k) {
		case "BusyWorkers":
			w.Busy, _ = strconv.Atoi(string(v))
		case "IdleWorkers":
			w.Idle, _ = strconv.Atoi(string(v))
		case "Scoreboard":
			w.Slots = len(v)
		}
	}
	return w
}

// Loop samples every interval until ctx ends or count samples were written
// (count 0: no limit), one JSON line each.
func Loop(ctx context.Context, s *Sampler, interval time.Duration, count int, w io.Writer) error {
	enc := json.NewEncoder(w)
	return Every(ctx, s, interval, count, func(smp Sample, err error) error {
		if err != nil {
			return err
		}
		if err := enc.Encode(smp); err != nil {
			return fmt.Errorf("srvstat: write: %w", err)
		}
		return nil
	})
}

// Every is the sampler's one loop: a sample now and then one every
// interval (a ticker: a slow sample does not shift the ones after it),
// count samples (0: until ctx ends), each given to fn with its error; fn's
// error ends the loop. Every sampler in wptest (srvstat, bench --status-url,
// run's local server) runs on it.
func Every(ctx context.Context, s *Sampler, interval time.Duration, count int, fn func(Sample, error) error) error {
	if interval <= 0 {
		interval = time.Second
	}
	tk := time.NewTicker(interval)
	defer tk.Stop()
	for i := 0; count == 0 || i < count; i++ {
		if err := fn(s.Sample(ctx)); err != nil {
			return err
		}
		if count != 0 && i == count-1 {
			break
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tk.C:
		}
	}
	return nil
}

// Read parses JSON lines written by Loop.
func Read(r io.Reader) ([]Sample, error) {
	var out []Sample
	dec := json.NewDecoder(r)
	for {
		var s Sample
		if err := dec.Decode(&s); err == io.EOF {
			return out, nil
		} else if err != nil {
			return out, fmt.Errorf("srvstat: sample %d: %w", len(out)+1, err)
		}
		out = append(out, s)
	}
}

// GroupNames returns the group names of samples, sorted.
func GroupNames(ss []Sample) []string {
	seen := map[string]bool{}
	for _, s := range ss {
		for g := range s.Groups {
			seen[g] = true
		}
	}
	var out []string
	for g := range seen {
		out = append(out, g)
	}
	sort.Strings(out)
	return out
}
