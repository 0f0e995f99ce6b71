// Package srvstat samples a server from /proc once a second: whole-machine
// CPU time, per process group (web server, php-cgi, php-fpm, database, the
// rest) CPU time including exited children and PSS from smaps_rollup, Apache's
// busy/idle workers from /server-status?auto, load average and memory. It
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
	"strings"
	"syscall"
	"time"
)

// clkTck is USER_HZ, the unit of /proc CPU times: 100 on every Linux ABI Go runs on.
const clkTck = 100

// Group names a process group by the command names (/proc/PID/comm, matched
// as prefixes: "php-fpm" matches "php-fpm8.2") of its members. A process
// whose own name matches no group belongs to the group of its nearest
// matching ancestor (a shell spawned by Apache is Apache's), else to "other".
type Group struct {
	Name  string   `json:"name"`
	Comms []string `json:"comms"`
}

// DefaultGroups are the process groups of the seeds' servers.
var DefaultGroups = []Group{
	{"web", []string{"apache2", "httpd", "caddy", "nginx", "corehttpd"}},
	{"php-cgi", []string{"php-cgi"}},
	{"php-fpm", []string{"php-fpm"}},
	{"db", []string{"mariadbd", "mysqld"}},
}

// Other is the group of every process no named group claims.
const Other = "other"

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
	Proc      string  // "/proc" when empty
	Groups    []Group // DefaultGroups when nil
	StatusURL string  // Apache mod_status URL ("http://127.0.0.1/server-status?auto"); "" = none
	NoPSS     bool    // skip smaps_rollup (cheaper)
	// PSSBudget: CPU time (srvstat's thread, kernel time included) a
	// sample may spend on average reading smaps_rollup of named groups'
	// processes, those never read first, then the stalest; the first
	// sample reads every one. 0 = DefaultPSSBudget.
	PSSBudget time.Duration
	// PSSAll: read every named group's process every sample (no budget;
	// about a millisecond per process).
	PSSAll bool
}

// Sample is one JSON line. CPU fields are cumulative seconds since boot (the
// machine) or since srvstat started (groups); subtract two samples for a window.
type Sample struct {
	Time           string           `json:"t"`    // RFC 3339, UTC
	Unix           float64          `json:"unix"` // seconds, same instant
	CPUs           int              `json:"cpus"`
	CPU            CPU              `json:"cpu"`
	Load           [3]float64       `json:"load"`
	MemTotalKB     int64            `json:"mem_total_kb"`
	MemAvailableKB int64            `json:"mem_available_kb"`
	Procs          int              `json:"procs"`
	Groups         map[string]Usage `json:"groups"`
	Apache         *Workers         `json:"apache,omitempty"`
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
	CPUSec float64 `json:"cpu_s"`
	Procs  int     `json:"procs"`
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
	key      procKey
	fd       int    // /proc/PID/stat, open while the process is tracked
	schedFD  int    // /proc/PID/schedstat, once it was idle (-1: not open)
	state    byte   // R, S, Z...
	comm     string // last read
	own      string // group of its own name ("" = none), recomputed when comm changes
	group    string // this sample's group (own, else the nearest named ancestor's, else Other)
	ppid     int
	threads  int
	total    uint64 // utime+stime+cutime+cstime, ticks
	children uint64 // cutime+cstime: reaped children, ticks
	// prevChildren: children at the previous sample.
	prevChildren uint64
	// quiet: stat reads in a row (up to 2) that found total unchanged;
	// run: schedstat's run time (ns) read before the last stat read;
	// ranGated: samples in a row schedstat showed it ran (see idle).
	quiet, ranGated int
	run             uint64
	runOK           bool
	born            int // sample number of the first read
	listed          int // sample number of the last /proc listing that had it

	// Children that exited since the last sample (this process's cutime
	// will show them): their CPU as last read, and the largest's group.
	reapSeen, reapLargest float64
	reapGroup             string

	pssKB   int64
	pssOK   bool          // pssKB is a reading
	pssAt   time.Time     // when last tried (zero: never)
	pssCost time.Duration // CPU time the last read took
}

// Sampler keeps what it needs between samples to account for processes that exit.
type Sampler struct {
	cfg      Config
	procs    map[int]*proc      // live processes by pid
	departed map[string]float64 // ticks of members that exited
	absorbed map[string]float64 // ticks a parent's cutime will show again
	last     map[string]float64 // last reported, to stay monotonic
	status   *statusClient      // for StatusURL
	n        int                // samples taken
	base     *float64           // machine busy seconds at the first sample

	dirFD, statFD, loadFD, memFD int // /proc and its files, kept open (-1: not yet)
	buf, dents                   []byte
	gone, parents, queue         []*proc
	pathBuf                      []byte
	noSched                      bool                 // no /proc/PID/schedstat (CONFIG_SCHED_INFO off)
	lastPid, listedPid           uint64               // loadavg's last pid now, and at the last listing
	ns                           int                  // 1: cfg.Proc is our pid namespace's; -1: not; 0: unknown
	skipped                      int                  // stat reads idle() saved (for tests)
	pssReads                     int                  // smaps_rollup reads so far (for the benchmark)
	pssSpent                     time.Duration        // and their cost
	pssAvgCost                   time.Duration        // mean read cost, to predict a never-read process's
	pssCredit                    time.Duration        // PSS budget not spent yet (negative: overspent)
	cpuClock                     func() time.Duration // threadCPU (tests make read costs exact)
}

// fullEvery: processes in no group are re-read only every fullEvery samples
// (a process rarely execs into a group's name; "other" comes from /proc/stat).
const fullEvery = 10

// New returns a Sampler.
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
	return &Sampler{cfg: cfg, procs: map[int]*proc{}, departed: map[string]float64{}, absorbed: map[string]float64{},
		last:  map[string]float64{},
		dirFD: -1, statFD: -1, loadFD: -1, memFD: -1, buf: make([]byte, 4096), dents: make([]byte, 32<<10),
		pssAvgCost: time.Millisecond, cpuClock: threadCPU}
}

func (s *Sampler) groupOf(comm string) string {
	for _, g := range s.cfg.Groups {
		for _, c := range g.Comms {
			if strings.HasPrefix(comm, c) {
				return g.Name
			}
		}
	}
	return ""
}

// Sample reads /proc (and the status URL) once.
func (s *Sampler) Sample(ctx context.Context) (Sample, error) {
	now := time.Now()
	smp := Sample{Time: now.UTC().Format(time.RFC3339Nano), Unix: float64(now.UnixNano()) / 1e9,
		CPUs: runtime.NumCPU(), Groups: make(map[string]Usage, len(s.cfg.Groups)+1)}
	if err := s.readStat(&smp); err != nil {
		return smp, err
	}
	s.readLoadMem(&smp)
	if err := s.readProcs(); err != nil {
		return smp, err
	}
	// Group by own name, then by nearest named ancestor.
	for _, p := range s.procs {
		g := p.own
		for pp, hops := p.ppid, 0; g == "" && pp > 1 && hops < 64; hops++ {
			a := s.procs[pp]
			if a == nil {
				break
			}
			g, pp = a.own, a.ppid
		}
		if g == "" {
			g = Other
		}
		p.group = g
	}
	s.account()
	if !s.cfg.NoPSS {
		s.readPSS()
	}
	s.n++
	sum := make(map[string]float64, len(s.cfg.Groups)+1)
	oldest := make(map[string]time.Time, len(s.cfg.Groups))
	for _, p := range s.procs {
		sum[p.group] += float64(p.total)
		u := smp.Groups[p.group]
		u.Procs++
		if p.pssOK && p.group != Other {
			u.PSSKB += p.pssKB
			u.PSSRead++
			if o, ok := oldest[p.group]; !ok || p.pssAt.Before(o) {
				oldest[p.group] = p.pssAt
			}
		}
		smp.Groups[p.group] = u
	}
	for g, o := range oldest {
		u := smp.Groups[g]
		age := math.Round(max(now.Sub(o).Seconds(), 0)*1000) / 1000
		u.PSSAgeS = &age
		if u.PSSRead < u.Procs {
			u.PSSKB = 0 // a member was never read: no sum that counts it as 0
		}
		smp.Groups[g] = u
	}
	// "other" is the rest of the machine: busy time minus the named
	// groups (kernel threads and interrupts included), so processes of no
	// group need not be read every second.
	named := 0.0
	for _, g := range s.cfg.Groups {
		v := (sum[g.Name] + s.departed[g.Name] - s.absorbed[g.Name]) / clkTck
		// Monotonic: a parent that does not wait for its children never adds
		// them to cutime, so "absorbed" can overshoot by what it never saw.
		if v < s.last[g.Name] {
			v = s.last[g.Name]
		}
		s.last[g.Name] = v
		u := smp.Groups[g.Name]
		u.CPUSec = v
		smp.Groups[g.Name] = u
		named += v
	}
	u := smp.Groups[Other]
	u.CPUSec = max(smp.CPU.Busy()-named-s.otherBase(smp), s.last[Other])
	s.last[Other] = u.CPUSec
	smp.Groups[Other] = u
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

// account handles the processes that exited since the last sample (in
// s.gone): their CPU stays in their group, and their parent's cutime counts
// it again. What they burned after the last sample shows up only in the
// parent's cutime: the parent's growth beyond what we saw is moved to the
// group of the child that exited (the largest one, if several did).
func (s *Sampler) account() {
	s.parents = s.parents[:0]
	for _, p := range s.gone {
		s.departed[p.group] += float64(p.total)
		pp := s.procs[p.ppid]
		if pp == nil {
			continue
		}
		s.absorbed[pp.group] += float64(p.total)
		if pp.reapSeen == 0 && pp.reapGroup == "" {
			s.parents = append(s.parents, pp)
		}
		pp.reapSeen += float64(p.total)
		if float64(p.total) >= pp.reapLargest {
			pp.reapLargest, pp.reapGroup = float64(p.total), p.group
		}
	}
	for _, pp := range s.parents {
		if pp.born < s.n { // it was there at the last sample
			if pp.group == Other && s.n%fullEvery != 0 {
				// Not re-read this time: read it now for its cutime.
				s.readPid(pp)
			}
			extra := float64(pp.children) - float64(pp.prevChildren) - pp.reapSeen
			if extra > 0 && pp.reapGroup != pp.group {
				s.departed[pp.reapGroup] += extra
				s.absorbed[pp.group] += extra
			}
		}
		pp.reapSeen, pp.reapLargest, pp.reapGroup = 0, 0, ""
	}
	for i := range s.gone {
		s.gone[i] = nil
	}
	s.gone = s.gone[:0]
}

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
		if p.group != Other {
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

// otherBase makes "other" count from the first sample, like the groups.
func (s *Sampler) otherBase(smp Sample) float64 {
	if s.base == nil {
		b := smp.CPU.Busy()
		s.base = &b
	}
	return *s.base
}

// Close releases the open /proc files and the status connection.
func (s *Sampler) Close() {
	if s.status != nil {
		s.status.close()
	}
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
	if interval <= 0 {
		interval = time.Second
	}
	enc := json.NewEncoder(w)
	tk := time.NewTicker(interval)
	defer tk.Stop()
	for i := 0; count == 0 || i < count; i++ {
		smp, err := s.Sample(ctx)
		if err != nil {
			return err
		}
		if err := enc.Encode(smp); err != nil {
			return fmt.Errorf("srvstat: write: %w", err)
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
