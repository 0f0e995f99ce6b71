// Package srvstat samples a server from /proc once a second: whole-machine
// CPU time, per process group (web server, php-cgi, php-fpm, database, the
// rest) CPU time including exited children and PSS from smaps_rollup, Apache's
// busy/idle workers from /server-status?auto, load average and memory. It
// writes one JSON line per sample; Summarize turns two samples around a load
// run into the run's server-side numbers (CPU per request = whole-machine CPU
// time over the window ÷ requests answered in it, as the first seed defines it).
//
// It runs on the server: `wptest srvstat` locally, or uploaded and started
// through a host.Host (RunRemote).
package srvstat

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
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

// Config says what to sample.
type Config struct {
	Proc      string  // "/proc" when empty
	Groups    []Group // DefaultGroups when nil
	StatusURL string  // Apache mod_status URL ("http://127.0.0.1/server-status?auto"); "" = none
	NoPSS     bool    // skip smaps_rollup (cheaper)
	// PSSEvery: read PSS on every Nth sample only (default 10: reading
	// smaps_rollup costs the kernel about a millisecond per process, and
	// memory moves slowly). Samples without a PSS reading omit pss_kb.
	PSSEvery int
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
	PSSKB  int64   `json:"pss_kb,omitempty"`
	Procs  int     `json:"procs"`
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

type proc struct {
	comm     string
	ppid     int
	total    uint64 // utime+stime+cutime+cstime, ticks
	children uint64 // cutime+cstime: reaped children, ticks
	group    string
}

// Sampler keeps what it needs between samples to account for processes that exit.
type Sampler struct {
	cfg      Config
	prev     map[procKey]proc
	departed map[string]float64 // ticks of members that exited
	absorbed map[string]float64 // ticks a parent's cutime will show again
	last     map[string]float64 // last reported, to stay monotonic
	client   *http.Client
	files    map[int]*statFile // /proc/PID/stat kept open: one pread per process per sample
	n        int               // samples taken
	base     *float64          // machine busy seconds at the first sample
	// other: pids in no group at the last full read. They are re-read only
	// every fullEvery samples (a process rarely execs into a group's name).
	other map[int]bool
}

const fullEvery = 10

type statFile struct {
	f     *os.File
	start uint64
}

// New returns a Sampler.
func New(cfg Config) *Sampler {
	if cfg.Proc == "" {
		cfg.Proc = "/proc"
	}
	if cfg.Groups == nil {
		cfg.Groups = DefaultGroups
	}
	if cfg.PSSEvery <= 0 {
		cfg.PSSEvery = 10
	}
	return &Sampler{cfg: cfg, departed: map[string]float64{}, absorbed: map[string]float64{}, last: map[string]float64{},
		client: &http.Client{Timeout: 900 * time.Millisecond}, files: map[int]*statFile{}}
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
		CPUs: runtime.NumCPU(), Groups: map[string]Usage{}}
	if err := s.readStat(&smp); err != nil {
		return smp, err
	}
	s.readLoadMem(&smp)
	cur, err := s.readProcs()
	if err != nil {
		return smp, err
	}
	// Group by own name, then by nearest named ancestor.
	byPid := map[int]procKey{}
	for k := range cur {
		byPid[k.pid] = k
	}
	for k, p := range cur {
		g := s.groupOf(p.comm)
		for pp, hops := p.ppid, 0; g == "" && pp > 1 && hops < 64; hops++ {
			a, ok := byPid[pp]
			if !ok {
				break
			}
			g = s.groupOf(cur[a].comm)
			pp = cur[a].ppid
		}
		if g == "" {
			g = Other
		}
		p.group = g
		cur[k] = p
	}
	if s.n%fullEvery == 0 {
		s.other = map[int]bool{}
		for k, p := range cur {
			if p.group == Other {
				s.other[k.pid] = true
			}
		}
	}
	// Processes that exited since the last sample: keep their CPU in their
	// group, and remember that their parent's cutime counts it again. What
	// they burned after the last sample shows up only in the parent's
	// cutime: the parent's growth beyond what we saw is moved to the group
	// of the child that exited (the largest one, if several did).
	type reaped struct {
		seen    float64
		group   string
		largest float64
	}
	byParent := map[procKey]*reaped{}
	for k, p := range s.prev {
		if _, alive := cur[k]; alive {
			continue
		}
		s.departed[p.group] += float64(p.total)
		pk, ok := byPid[p.ppid]
		if !ok {
			continue
		}
		s.absorbed[cur[pk].group] += float64(p.total)
		r := byParent[pk]
		if r == nil {
			r = &reaped{}
			byParent[pk] = r
		}
		r.seen += float64(p.total)
		if float64(p.total) >= r.largest {
			r.largest, r.group = float64(p.total), p.group
		}
	}
	for pk, r := range byParent {
		prev, ok := s.prev[pk]
		if !ok {
			continue
		}
		if s.other[pk.pid] && s.n%fullEvery != 0 {
			// The parent was not re-read this time: read it now for its cutime.
			if f, err := os.Open(filepath.Join(s.cfg.Proc, strconv.Itoa(pk.pid), "stat")); err == nil {
				if k, p, ok := readPidStat(f, pk.pid, make([]byte, 1024)); ok && k == pk {
					p.group = cur[pk].group
					cur[pk] = p
				}
				f.Close()
			}
		}
		extra := float64(cur[pk].children) - float64(prev.children) - r.seen
		if extra > 0 && r.group != cur[pk].group {
			s.departed[r.group] += extra
			s.absorbed[cur[pk].group] += extra
		}
	}
	sum := map[string]float64{}
	readPSS := !s.cfg.NoPSS && s.n%s.cfg.PSSEvery == 0
	s.n++
	for k, p := range cur {
		sum[p.group] += float64(p.total)
		u := smp.Groups[p.group]
		u.Procs++
		if readPSS && p.group != Other {
			u.PSSKB += s.pss(k.pid)
		}
		smp.Groups[p.group] = u
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
	smp.Procs = len(cur)
	s.prev = cur
	if s.cfg.StatusURL != "" {
		smp.Apache = s.workers(ctx)
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		smp.SelfCPUSec = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	return smp, nil
}

func (s *Sampler) readStat(smp *Sample) error {
	f, err := os.Open(filepath.Join(s.cfg.Proc, "stat"))
	if err != nil {
		return fmt.Errorf("srvstat: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return fmt.Errorf("srvstat: empty %s/stat", s.cfg.Proc)
	}
	fs := strings.Fields(sc.Text())
	if len(fs) < 9 || fs[0] != "cpu" {
		return fmt.Errorf("srvstat: unexpected first line of %s/stat: %q", s.cfg.Proc, sc.Text())
	}
	v := make([]float64, 8)
	for i := range v {
		n, _ := strconv.ParseUint(fs[i+1], 10, 64)
		v[i] = float64(n) / clkTck
	}
	smp.CPU = CPU{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]}
	return nil
}

func (s *Sampler) readLoadMem(smp *Sample) {
	if b, err := os.ReadFile(filepath.Join(s.cfg.Proc, "loadavg")); err == nil {
		fs := strings.Fields(string(b))
		for i := 0; i < 3 && i < len(fs); i++ {
			smp.Load[i], _ = strconv.ParseFloat(fs[i], 64)
		}
	}
	if b, err := os.ReadFile(filepath.Join(s.cfg.Proc, "meminfo")); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(l, ":")
			if !ok {
				continue
			}
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			switch k {
			case "MemTotal":
				smp.MemTotalKB = n
			case "MemAvailable":
				smp.MemAvailableKB = n
			}
		}
	}
}

// readProcs reads /proc/PID/stat of every process. A process that exits
// while it is read is simply not there. The stat files stay open between
// samples (a pread each instead of open, read, close), and are closed when
// their process is gone.
func (s *Sampler) readProcs() (map[procKey]proc, error) {
	d, err := os.Open(s.cfg.Proc)
	if err != nil {
		return nil, fmt.Errorf("srvstat: %w", err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("srvstat: list %s: %w", s.cfg.Proc, err)
	}
	out := make(map[procKey]proc, len(names))
	seen := make(map[int]bool, len(names))
	buf := make([]byte, 1024)
	full := s.n%fullEvery == 0
	prevByPid := map[int]procKey{}
	if !full {
		for k := range s.prev {
			prevByPid[k.pid] = k
		}
	}
	for _, n := range names {
		if n[0] < '0' || n[0] > '9' {
			continue
		}
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if !full && s.other[pid] {
			if k, ok := prevByPid[pid]; ok {
				out[k] = s.prev[k] // still there; not re-read
				seen[pid] = true
				continue
			}
		}
		sf := s.files[pid]
		if sf == nil {
			f, err := os.Open(filepath.Join(s.cfg.Proc, n, "stat"))
			if err != nil {
				continue
			}
			sf = &statFile{f: f}
			s.files[pid] = sf
		}
		k, p, ok := readPidStat(sf.f, pid, buf)
		if ok && sf.start != 0 && sf.start != k.start {
			// The pid was reused: an open stat file of a dead process reads
			// nothing, so this cannot happen, but be safe.
			ok = false
		}
		if !ok {
			sf.f.Close()
			delete(s.files, pid)
			continue
		}
		sf.start = k.start
		seen[pid] = true
		out[k] = p
	}
	if !full {
		return out, nil
	}
	for pid, sf := range s.files {
		if !seen[pid] {
			sf.f.Close()
			delete(s.files, pid)
		}
	}
	return out, nil
}

// otherBase makes "other" count from the first sample, like the groups.
func (s *Sampler) otherBase(smp Sample) float64 {
	if s.base == nil {
		b := smp.CPU.Busy()
		s.base = &b
	}
	return *s.base
}

// Close releases the open /proc files.
func (s *Sampler) Close() {
	for pid, sf := range s.files {
		sf.f.Close()
		delete(s.files, pid)
	}
}

func readPidStat(f *os.File, pid int, buf []byte) (procKey, proc, bool) {
	n, err := f.ReadAt(buf, 0)
	if n == 0 && err != nil {
		return procKey{}, proc{}, false
	}
	b := buf[:n]
	open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || close < open {
		return procKey{}, proc{}, false
	}
	comm := string(b[open+1 : close])
	fs := strings.Fields(string(b[close+1:]))
	// After ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt
	// cmajflt utime stime cutime cstime priority nice threads itrealvalue starttime
	if len(fs) < 20 {
		return procKey{}, proc{}, false
	}
	ppid, _ := strconv.Atoi(fs[1])
	var v [4]uint64
	for i := range v {
		v[i], _ = strconv.ParseUint(fs[11+i], 10, 64)
	}
	start, _ := strconv.ParseUint(fs[19], 10, 64)
	return procKey{pid, start}, proc{comm: comm, ppid: ppid, total: v[0] + v[1] + v[2] + v[3], children: v[2] + v[3]}, true
}

// pss is Pss from /proc/PID/smaps_rollup in kB (0 if gone or unreadable).
func (s *Sampler) pss(pid int) int64 {
	b, err := os.ReadFile(filepath.Join(s.cfg.Proc, strconv.Itoa(pid), "smaps_rollup"))
	if err != nil {
		return 0
	}
	i := bytes.Index(b, []byte("\nPss:"))
	if i < 0 {
		return 0
	}
	rest := b[i+5:]
	if j := bytes.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(rest)), " kB"), 10, 64)
	return n
}

func (s *Sampler) workers(ctx context.Context) *Workers {
	w := &Workers{}
	req, err := http.NewRequestWithContext(ctx, "GET", s.cfg.StatusURL, nil)
	if err != nil {
		w.Error = err.Error()
		return w
	}
	resp, err := s.client.Do(req)
	if err != nil {
		w.Error = err.Error()
		return w
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil || resp.StatusCode != 200 {
		w.Error = fmt.Sprintf("status %d %v", resp.StatusCode, err)
		return w
	}
	*w = ParseStatus(b)
	return w
}

// ParseStatus reads mod_status's ?auto text.
func ParseStatus(b []byte) Workers {
	var w Workers
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "BusyWorkers":
			w.Busy, _ = strconv.Atoi(v)
		case "IdleWorkers":
			w.Idle, _ = strconv.Atoi(v)
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
