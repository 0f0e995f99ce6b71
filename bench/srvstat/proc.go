package srvstat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// Reading /proc: every file a sample reads repeatedly stays open and is read
// with one pread into a reused buffer and parsed in place. The kernel's side
// (generating the file) is most of the cost that is left.

// The system calls on /proc are raw: they never wait for I/O, and a call
// the runtime is not told about cannot make its monitor hand our P to
// another thread when it runs long (a getdents of /proc, a smaps_rollup):
// that hand-off and the wake-ups after it cost more CPU here than the
// calls themselves.

func rawOpen(path string, flags int, perm uint32) (int, error) {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return -1, err
	}
	cwd := atFDCWD
	for {
		fd, _, e := syscall.RawSyscall6(syscall.SYS_OPENAT, uintptr(cwd), uintptr(unsafe.Pointer(p)), uintptr(flags), uintptr(perm), 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return -1, e
		}
		return int(fd), nil
	}
}

const atFDCWD = -100

func rawClose(fd int) { syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(fd), 0, 0) }

func rawSeek(fd int) (int, error) {
	off, _, e := syscall.RawSyscall(syscall.SYS_LSEEK, uintptr(fd), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(off), nil
}

func rawGetdents(fd int, buf []byte) (int, error) {
	n, _, e := syscall.RawSyscall(syscall.SYS_GETDENTS64, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// pread reads the start of the file fd into s.buf.
func (s *Sampler) pread(fd int) ([]byte, error) {
	for {
		n, _, e := syscall.RawSyscall6(syscall.SYS_PREAD64, uintptr(fd), uintptr(unsafe.Pointer(&s.buf[0])), uintptr(len(s.buf)), 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return nil, e
		}
		return s.buf[:n], nil
	}
}

// preadFile reads the start of s.cfg.Proc/name, opening it into *fd once.
func (s *Sampler) preadFile(fd *int, name string) ([]byte, error) {
	if *fd < 0 {
		f, err := rawOpen(s.cfg.Proc+"/"+name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("srvstat: open %s/%s: %w", s.cfg.Proc, name, err)
		}
		*fd = f
	}
	b, err := s.pread(*fd)
	if err != nil {
		return nil, fmt.Errorf("srvstat: read %s/%s: %w", s.cfg.Proc, name, err)
	}
	return b, nil
}

func (s *Sampler) readStat(smp *Sample) error {
	b, err := s.preadFile(&s.statFD, "stat")
	if err != nil {
		return err
	}
	line := b
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		line = b[:i]
	}
	var v [8]uint64
	if !bytes.HasPrefix(line, []byte("cpu ")) || fieldsUint(line[4:], v[:]) < len(v) {
		return fmt.Errorf("srvstat: unexpected first line of %s/stat: %q", s.cfg.Proc, line)
	}
	smp.CPU = CPU{float64(v[0]) / clkTck, float64(v[1]) / clkTck, float64(v[2]) / clkTck, float64(v[3]) / clkTck,
		float64(v[4]) / clkTck, float64(v[5]) / clkTck, float64(v[6]) / clkTck, float64(v[7]) / clkTck}
	return nil
}

// fieldsUint parses the space-separated unsigned numbers at the start of b
// into v and returns how many it found.
func fieldsUint(b []byte, v []uint64) int {
	n := 0
	in := false
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			if !in {
				if n == len(v) {
					return n
				}
				in, v[n] = true, 0
				n++
			}
			v[n-1] = v[n-1]*10 + uint64(c-'0')
		case c == ' ':
			in = false
		default:
			return n
		}
	}
	return n
}

func (s *Sampler) readLoadMem(smp *Sample) {
	s.lastPid = 0
	if b, err := s.preadFile(&s.loadFD, "loadavg"); err == nil {
		// "0.50 0.40 0.30 1/100 4242": three loads, runnable/all, last pid.
		for i := range 5 {
			b = bytes.TrimLeft(b, " ")
			j := bytes.IndexAny(b, " \n")
			if j < 0 {
				break
			}
			if i < 3 {
				smp.Load[i], _ = strconv.ParseFloat(string(b[:j]), 64)
			} else if i == 4 {
				var v [1]uint64
				if fieldsUint(b[:j], v[:]) == 1 {
					s.lastPid = v[0]
				}
			}
			b = b[j:]
		}
	}
	if b, err := s.preadFile(&s.memFD, "meminfo"); err == nil {
		smp.MemTotalKB = meminfoKB(b, "MemTotal:")
		smp.MemAvailableKB = meminfoKB(b, "MemAvailable:")
	}
}

// meminfoKB is the number after key at the start of a line of b (0 if none).
func meminfoKB(b []byte, key string) int64 {
	i := bytes.Index(b, []byte(key))
	if i < 0 || (i > 0 && b[i-1] != '\n') {
		return 0
	}
	var v [1]uint64
	fieldsUint(bytes.TrimLeft(b[i+len(key):], " "), v[:])
	return int64(v[0])
}

// readProcs lists /proc (unless no pid was handed out since the last
// listing) and reads every process: its CPU clock, and its stat when the
// clock moved (it ran). A process that exits while it is read is simply not
// there. Processes that are gone are moved to s.gone.
//
// The readings must agree with each other about every reaping: a child
// that counts as alive must not be in its parent's cutime yet, and one that
// is gone must be in it (or in its reaper's, if orphaned). Reads happen one
// after the other while processes run, so after the pass the parents of
// children found gone are read again, and so are children read before a
// parent whose cutime grew (reconcile).
func (s *Sampler) readProcs() error {
	s.seq = 0
	s.gone = s.gone[:0]
	full := s.n%fullEvery == 0
	if !full && s.lastPid != 0 && s.lastPid == s.listedPid && s.sameNS() {
		// No pid was handed out since the last listing (loadavg's last
		// pid): no new process, and an exited one fails its read below.
		for _, p := range s.procs {
			p.listed = s.n
		}
	} else if err := s.list(); err != nil {
		return err
	}
	listed := s.seq
	for pid, p := range s.procs {
		if p.listed != s.n {
			s.drop(pid, p)
			p.goneSeq = listed
		}
	}
	for pid, p := range s.procs {
		if p.born == s.n {
			continue // just read
		}
		if s.read(p, false) {
			continue
		}
		// An open stat file of a dead process reads nothing: this one exited,
		// and its pid may be another process's already.
		s.drop(pid, p)
		s.add(pid)
	}
	s.reconcile(nil)
	return nil
}

// reconcile reads again, until the readings agree: every live child read
// before a parent whose children's page faults grew (it reaped someone:
// maybe that child, after the child's read), and the nearest live ancestor
// of every process found gone after that ancestor's read (it holds the
// child's CPU now). extra are more processes to read again first (reapers
// of exit records). A few rounds at most: each read is later than the reads
// it checks.
func (s *Sampler) reconcile(extra []*proc) {
	if s.n == 0 {
		return // the first sample is the baseline: nothing is counted between its reads
	}
	clear(s.kids)
	if s.kids == nil {
		s.kids = map[int][]*proc{}
	}
	for _, p := range s.procs {
		s.kids[p.ppid] = append(s.kids[p.ppid], p)
	}
	var recheck []*proc
	reaped := func(r *proc) {
		if r.cflt == r.prevCflt {
			return
		}
		for _, c := range s.kids[r.key.pid] {
			if c.seq < r.seq {
				recheck = append(recheck, c)
			}
		}
	}
	if extra == nil {
		for _, r := range s.procs {
			reaped(r)
		}
	}
	reread := append([]*proc(nil), extra...)
	checked := 0
	for round := 0; round < 8; round++ {
		for _, r := range reread {
			if s.procs[r.key.pid] != r {
				continue
			}
			if !s.read(r, true) {
				s.drop(r.key.pid, r)
				continue
			}
			reaped(r)
		}
		reread = reread[:0]
		for _, c := range recheck {
			if s.procs[c.key.pid] == c && !s.read(c, true) {
				s.drop(c.key.pid, c)
			}
		}
		recheck = recheck[:0]
		for _, g := range s.gone[checked:] {
			if r := s.liveAncestor(g.ppid); r != nil && r.seq < g.goneSeq && !slices.Contains(reread, r) {
				reread = append(reread, r)
			}
			// It may have reaped its own children before it exited, after
			// they were read.
			for _, c := range s.kids[g.key.pid] {
				if c.seq < g.goneSeq {
					recheck = append(recheck, c)
				}
			}
		}
		checked = len(s.gone)
		if len(reread) == 0 && len(recheck) == 0 {
			return
		}
	}
}

// liveAncestor is the nearest tracked live process up the chain from pid
// (through processes gone this sample).
func (s *Sampler) liveAncestor(pid int) *proc {
	for hops := 0; pid > 0 && hops < 64; hops++ {
		if p := s.procs[pid]; p != nil {
			return p
		}
		g := s.goneByPid(pid)
		if g == nil {
			return nil
		}
		pid = g.ppid
	}
	return nil
}

func (s *Sampler) goneByPid(pid int) *proc {
	for i := len(s.gone) - 1; i >= 0; i-- {
		if s.gone[i].key.pid == pid {
			return s.gone[i]
		}
	}
	return nil
}

// sameNS says whether loadavg's last pid counts the pids of cfg.Proc's
// processes: it is the reader's pid namespace's, so cfg.Proc must be that
// namespace's /proc (its "self" is this process).
func (s *Sampler) sameNS() bool {
	if s.ns == 0 {
		s.ns = -1
		if l, err := os.Readlink(s.cfg.Proc + "/self"); err == nil && l == strconv.Itoa(os.Getpid()) {
			s.ns = 1
		}
	}
	return s.ns == 1
}

// list reads /proc's entries: new pids are added, known ones marked listed.
func (s *Sampler) list() error {
	s.listedPid = s.lastPid
	if s.dirFD < 0 {
		fd, err := rawOpen(s.cfg.Proc, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("srvstat: %w", err)
		}
		s.dirFD = fd
	}
	if _, err := rawSeek(s.dirFD); err != nil {
		return fmt.Errorf("srvstat: list %s: %w", s.cfg.Proc, err)
	}
	for {
		n, err := rawGetdents(s.dirFD, s.dents)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("srvstat: list %s: %w", s.cfg.Proc, err)
		}
		if n <= 0 {
			break
		}
		// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name NUL-terminated.
		for b := s.dents[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				break
			}
			if pid := atoiName(b[19:reclen]); pid > 0 {
				if p := s.procs[pid]; p != nil {
					p.listed = s.n
				} else {
					s.add(pid)
				}
			}
			b = b[reclen:]
		}
	}
	return nil
}

// atoiName is the pid a /proc entry's NUL-terminated name spells (0 if it is not one).
func atoiName(b []byte) int {
	pid := 0
	for _, c := range b {
		if c == 0 {
			break
		}
		if c < '0' || c > '9' || pid > 1<<30 {
			return 0
		}
		pid = pid*10 + int(c-'0')
	}
	return pid
}

// add starts tracking a process: its stat file stays open.
func (s *Sampler) add(pid int) {
	fd, err := rawOpen(s.cfg.Proc+"/"+strconv.Itoa(pid)+"/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return // gone already
	}
	p := &proc{key: procKey{pid: pid}, fd: fd, schedFD: -1, born: s.n, listed: s.n, uid: -1, own: -1, group: -1, seenAt: s.now,
		foreign: s.foreignPid(pid)}
	if !s.read(p, true) {
		rawClose(fd)
		return
	}
	if s.n == 0 {
		// The first sample is the baseline: what processes used before it
		// is not counted. Later, a new process was born since the last
		// sample: all its CPU is new.
		p.prevCPU, p.prevKids, p.prevCflt = p.cpu, p.kids, p.cflt
	}
	s.procs[pid] = p
}

// foreignPid says whether pid runs in another pid namespace than
// srvstat's (or, where cfg.Proc is not ours, than that /proc's pid 1): a
// container's, or another machine's on this kernel (the netns driver's),
// whose apache2 or php-fpm is not this server's however it is named. A
// namespace that cannot be read (not root, a /proc without them) makes
// nothing foreign.
func (s *Sampler) foreignPid(pid int) bool {
	var ref string
	if s.procNS == "" {
		// Ours where cfg.Proc is our namespace's (pid 1's may not be
		// readable: a non-dumpable init), else its pid 1's.
		s.procNS, ref = "-", s.cfg.Proc+"/1/ns/pid"
		if s.sameNS() {
			ref = s.cfg.Proc + "/self/ns/pid"
		}
		if l, err := os.Readlink(ref); err == nil {
			s.procNS = l
		}
	}
	if s.procNS == "-" {
		return false
	}
	l, err := os.Readlink(s.cfg.Proc + "/" + strconv.Itoa(pid) + "/ns/pid")
	return err == nil && l != s.procNS
}

// drop stops tracking a process that is gone; account() settles its CPU.
func (s *Sampler) drop(pid int, p *proc) {
	rawClose(p.fd)
	if p.schedFD >= 0 {
		rawClose(p.schedFD)
	}
	delete(s.procs, pid)
	p.goneSeq = s.seq
	s.gone = append(s.gone, p)
}

// read reads p again: its stat, unless schedstat says it has not run since
// (force: whatever schedstat says), and its CPU clock. False: it is gone.
func (s *Sampler) read(p *proc, force bool) bool {
	s.seq++
	p.seq = s.seq
	if !force && s.idle(p) {
		return true
	}
	if !s.readPid(p) {
		return false
	}
	p.readAt = s.n
	// The CPU clock is exact (ns, not whole ticks), as of the kernel's last
	// update of the process's time: a process running on another CPU is
	// updated at its next tick (cpu_rounding_s allows for it).
	cpu, exact := p.lastTicks*tick, false
	if s.clockOK() {
		if c, ok := procClock(p.key.pid); ok && c >= cpu {
			cpu, exact = c, true
		}
	}
	p.cpu, p.exact = max(cpu, p.cpu), exact
	return true
}

// parentKept says whether p's parent is the one it had at its last read:
// reparenting is the one change to a process's stat that needs no run.
func (s *Sampler) parentKept(p *proc) bool {
	if p.ppid <= 0 {
		return true
	}
	pp := s.procs[p.ppid]
	return pp != nil && pp.key.start <= p.key.start && pp.state != 'Z' && pp.state != 'X'
}

// clockOK says whether processes' CPU clocks can be read: pids in cfg.Proc
// must be ours (same pid namespace).
func (s *Sampler) clockOK() bool { return s.sameNS() }

// procClock is the CPU time pid's threads used so far: its POSIX CPU clock
// (CPUCLOCK_SCHED), the scheduler's ns, exited threads' included, as of
// the last update of each thread (a thread running on another CPU is
// updated at its next tick). Any process's can be read, by its pid in our
// pid namespace.
func procClock(pid int) (uint64, bool) {
	var ts syscall.Timespec
	id := (^pid)<<3 | 2 // MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, uintptr(id), uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, false
	}
	return uint64(ts.Nano()), true
}

// idle says whether p's stat need not be read again: it has one thread
// and has not run since the last read, so nothing in its stat moved
// (/proc/PID/schedstat, its run time in ns, costs a quarter of a stat read).
// Only a process that was quiet for two samples in a row is checked this
// way; one that keeps running is read directly. Reparenting is the one
// change a process need not run for: a process whose parent is gone (or a
// zombie) is read.
func (s *Sampler) idle(p *proc) bool {
	if s.noSched || p.threads != 1 || p.quiet < 2 || !s.gate {
		return false
	}
	if p.schedFD < 0 {
		fd, err := rawOpen(s.cfg.Proc+"/"+strconv.Itoa(p.key.pid)+"/schedstat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			if err == syscall.ENOENT {
				if _, err := os.Stat(s.cfg.Proc + "/" + strconv.Itoa(p.key.pid)); err == nil {
					s.noSched = true // a kernel without CONFIG_SCHED_INFO
				}
			}
			return false
		}
		p.schedFD = fd
	}
	b, err := s.pread(p.schedFD)
	if err != nil {
		return false
	}
	// Run time (ns) and times scheduled in: the run time of a process
	// running on another CPU is updated only at its next tick or switch,
	// but it counts a switch in at once, so the pair moves whenever it ran.
	var v [3]uint64
	if fieldsUint(b, v[:]) != 3 {
		return false
	}
	if !p.runOK || v[0] != p.run || v[2] != p.pcount {
		// It ran: read its stat, with this reading as the reference (taken
		// before the stat read, so a run in between shows next time).
		if p.runOK {
			if p.ranGated++; p.ranGated == 2 {
				p.quiet, p.ranGated = 0, 0 // it keeps running: read it directly
			}
		}
		p.run, p.pcount, p.runOK = v[0], v[2], true
		return false
	}
	p.ranGated = 0
	if p.ppid > 0 {
		pp := s.procs[p.ppid]
		if pp == nil || pp.key.start > p.key.start || pp.state == 'Z' || pp.state == 'X' {
			return false
		}
	}
	s.skipped++
	return true
}

// uidYoung: for how long after srvstat first sees it a root process whose
// group depends on its user has its uid read again at each stat read.
const uidYoung = 10 * time.Second

// readUID is pid's effective uid from /proc/PID/status (-1 if gone or unreadable).
func (s *Sampler) readUID(pid int) int64 {
	fd, err := rawOpen(s.cfg.Proc+"/"+strconv.Itoa(pid)+"/status", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	defer rawClose(fd)
	b, err := s.pread(fd)
	if err != nil {
		return -1
	}
	i := bytes.Index(b, []byte("\nUid:"))
	if i < 0 {
		return -1
	}
	var v [2]uint64 // real, effective
	if fieldsUint(bytes.TrimLeft(bytes.ReplaceAll(b[i+5:min(len(b), i+64)], []byte("\t"), []byte(" ")), " "), v[:]) < 2 {
		return -1
	}
	return int64(v[1])
}

// readExe is the base name of pid's executable ("" for a kernel thread, or
// when srvstat may not see it).
func (s *Sampler) readExe(pid int) string {
	l, err := os.Readlink(s.cfg.Proc + "/" + strconv.Itoa(pid) + "/exe")
	if err != nil {
		return ""
	}
	l = strings.TrimSuffix(l, " (deleted)")
	return l[strings.LastIndexByte(l, '/')+1:]
}

// readPid rereads p's /proc/PID/stat. False: it is gone.
func (s *Sampler) readPid(p *proc) bool {
	if s.beforeRead != nil {
		s.beforeRead(p.key.pid)
	}
	b, err := s.pread(p.fd)
	if err != nil || len(b) == 0 {
		return false
	}
	open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || close < open {
		return false
	}
	// After ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt
	// cmajflt utime stime cutime cstime priority nice threads itrealvalue starttime
	var v [20]uint64
	k := -1
	for _, c := range b[close+1:] {
		if c == ' ' {
			if k++; k == len(v) {
				break
			}
		} else if k >= 0 && c >= '0' && c <= '9' {
			v[k] = v[k]*10 + uint64(c-'0')
		}
	}
	if k < len(v)-1 {
		return false
	}
	start := v[19]
	if p.key.start != 0 && p.key.start != start {
		return false // another process under the same pid (cannot happen through an open file; be safe)
	}
	// A process being reaped can still be read, as dead (state X) and with
	// no parent (ppid 0, once its pid is unhashed): it is gone, and its
	// reaper's cutime has it already.
	if st := b[min(close+2, len(b)-1)]; st == 'X' || st == 'x' || (v[1] == 0 && p.ppid != 0) {
		return false
	}
	p.key.start = start
	p.reads++
	if comm := b[open+1 : close]; string(comm) != p.comm {
		// First read, or it exec'd (or renamed itself): classify again, and
		// its memory is no longer what was read.
		p.comm = string(comm)
		p.exe, p.uid = s.readExe(p.key.pid), -1
		s.classify(p)
		p.pssOK, p.pssAt = false, time.Time{}
	} else if p.userCheck && p.uid <= 0 && s.now.Sub(p.seenAt) < uidYoung {
		// A forked worker (php-fpm's, mpm-itk's) drops root soon after
		// the fork: read the uid of a young root process again.
		p.uid = -1
		s.classify(p)
	}
	ticks := v[11] + v[12]
	if ticks != p.lastTicks || v[13]+v[14] != p.kids/tick {
		p.quiet = 0
	} else if p.quiet < 2 {
		p.quiet++
	}
	p.lastTicks = ticks
	p.state = b[min(close+2, len(b)-1)]
	p.ppid = int(v[1])
	p.threads = int(v[17])
	p.kids = (v[13] + v[14]) * tick
	p.cflt = v[8] + v[10]
	return true
}

// ticks is utime+stime of the last stat read.
func (p *proc) ticks() uint64 { return p.lastTicks }

// pss is Pss from /proc/PID/smaps_rollup in kB; false if gone or unreadable.
func (s *Sampler) pss(pid int) (int64, bool) {
	// ESRCH: a zombie (or a process just gone) has no memory left: 0 kB
	// is its PSS, not a missing reading that would withhold its group's.
	// So is ENOENT once /proc/PID itself is gone (it exited since the
	// listing); a missing smaps_rollup of a live process stays unreadable.
	dir := s.cfg.Proc + "/" + strconv.Itoa(pid)
	fd, err := rawOpen(dir+"/smaps_rollup", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if errors.Is(err, syscall.ENOENT) {
		var st syscall.Stat_t
		return 0, syscall.Stat(dir, &st) == syscall.ENOENT
	}
	if err != nil {
		return 0, errors.Is(err, syscall.ESRCH)
	}
	defer rawClose(fd)
	b, err := s.pread(fd)
	if err != nil {
		return 0, errors.Is(err, syscall.ESRCH)
	}
	i := bytes.Index(b, []byte("\nPss:"))
	if i < 0 {
		return 0, false
	}
	var v [1]uint64
	if fieldsUint(bytes.TrimLeft(b[i+5:], " "), v[:]) != 1 {
		return 0, false
	}
	return int64(v[0]), true
}

// threadCPU is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID: exact, unlike
// getrusage's, which lags by up to a tick for a running thread).
func threadCPU() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}
