package srvstat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Exit records from BSD process accounting (acct(2)): the kernel writes one
// record for every process of our pid namespace when it exits, with its pid,
// its parent's pid (the process that will reap it), its real uid, comm and
// CPU time. That is how srvstat knows the group of a process that started
// and ended between two samples (a php-cgi per request): /proc never shows
// it, and the CPU it used only shows up in its parent's cutime.
//
// The amount of CPU still comes from the reaper's cutime (exact to its tick
// rounding); a record's CPU time (sampled at the scheduler tick and
// truncated to 10 ms) only splits that amount between groups when a reaper
// took children of several groups in one interval.

// exitRec is one acct_v3 record.
type exitRec struct {
	pid, ppid int
	uid       uint32
	comm      string
	cpu       uint64 // ns, utime+stime as the record has it

	// Set while accounting (account.go): its group; attached: it hangs
	// under a tracked process (its parent), else parentRec is its parent's
	// record; kids: records whose parent it was.
	since     int // sample number it came in (waiting ones)
	group     int
	groupSet  bool
	attached  bool
	parentRec *exitRec
	kids      []*exitRec
}

const (
	acctV3Size = 64
	ahz        = 100 // acct_v3's time unit: 1/100 s
)

// parseExitRecs reads acct_v3 records (this machine's byte order).
func parseExitRecs(b []byte, self int) ([]*exitRec, error) {
	var out []*exitRec
	for ; len(b) >= acctV3Size; b = b[acctV3Size:] {
		r := b[:acctV3Size]
		if r[1]&0x0f != 3 {
			return out, fmt.Errorf("srvstat: process accounting record version %d, want 3", r[1]&0x0f)
		}
		e := &exitRec{
			uid:  binary.NativeEndian.Uint32(r[8:]),
			pid:  int(binary.NativeEndian.Uint32(r[16:])),
			ppid: int(binary.NativeEndian.Uint32(r[20:])),
			cpu:  (compT(binary.NativeEndian.Uint16(r[32:])) + compT(binary.NativeEndian.Uint16(r[34:]))) * (1e9 / ahz),
		}
		comm := r[48:64]
		if i := bytes.IndexByte(comm, 0); i >= 0 {
			comm = comm[:i]
		}
		e.comm = string(comm)
		// Switching files writes a record for the process that switched
		// (us, alive): not an exit.
		if e.pid == self {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// compT decodes comp_t: 13-bit mantissa, 3-bit base-8 exponent.
func compT(v uint16) uint64 { return uint64(v&0x1fff) << (3 * (v >> 13)) }

// exitLog runs process accounting into files of its own, switching to a new
// file at every sample and reading the one it left (every record is in
// exactly one file: the kernel switches atomically, and has written the old
// one out when acct(2) returns).
type exitLog struct {
	dir      string
	lock     *os.File
	lockPath string
	cur      string
	seq      int
	self     int
}

// acctDir holds the accounting files: a small tmpfs of its own, so that
// records cannot fill a real filesystem if srvstat is killed before it
// turns accounting off (the kernel stops writing when it is 98% full).
const acctDir = "/run/wptest-srvstat"

// Files that mean someone else runs process accounting (Debian's acct,
// RHEL's psacct): srvstat must not take it over.
var systemPacct = []string{"/var/log/account/pacct", "/var/account/pacct"}

// startExitLog turns process accounting on for our pid namespace, or says
// why it cannot.
func startExitLog() (*exitLog, error) {
	for _, f := range systemPacct {
		if _, err := os.Stat(f); err == nil {
			return nil, fmt.Errorf("%s exists: this machine runs its own process accounting", f)
		}
	}
	ns, err := os.Readlink("/proc/self/ns/pid") // "pid:[4026531836]"
	if err != nil {
		return nil, err
	}
	ns = strings.Trim(strings.TrimPrefix(ns, "pid:"), "[]")
	if err := os.MkdirAll(acctDir, 0o700); err != nil {
		return nil, err
	}
	if !mountPoint(acctDir) {
		if err := syscall.Mount("wptest-srvstat", acctDir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "size=16m,mode=0700"); err != nil {
			return nil, fmt.Errorf("mount a tmpfs on %s: %w", acctDir, err)
		}
	}
	// One srvstat per pid namespace runs accounting (there is one
	// accounting file per namespace); the others attribute by parent.
	lockPath := filepath.Join(acctDir, "lock."+ns)
	lf, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	// The holder removes the file when it is done: the lock counts only if
	// the path still names the file we locked.
	var a, b syscall.Stat_t
	if syscall.Flock(int(lf.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil ||
		syscall.Fstat(int(lf.Fd()), &a) != nil || syscall.Stat(lockPath, &b) != nil || a.Ino != b.Ino {
		lf.Close()
		return nil, errors.New("another srvstat runs process accounting in this pid namespace")
	}
	l := &exitLog{dir: acctDir, lock: lf, lockPath: lockPath, self: os.Getpid()}
	// Files a killed srvstat of this namespace left (we hold the lock: no
	// one else's).
	old, _ := filepath.Glob(filepath.Join(acctDir, "pacct."+ns+".*"))
	l.cur = filepath.Join(acctDir, "pacct."+ns+"."+strconv.Itoa(l.self))
	if _, err := l.switchTo(); err != nil {
		lf.Close()
		return nil, err
	}
	for _, f := range old {
		os.Remove(f)
	}
	return l, nil
}

// mountPoint says whether dir is a filesystem of its own (ours, from an
// earlier srvstat), not a directory of /run's.
func mountPoint(dir string) bool {
	var a, b syscall.Stat_t
	return syscall.Stat(dir, &a) == nil && syscall.Stat(filepath.Dir(dir), &b) == nil && a.Dev != b.Dev
}

// switchTo starts the next file and returns the previous one's name ("" at first).
func (l *exitLog) switchTo() (string, error) {
	prev := ""
	if l.seq > 0 {
		prev = l.cur + "." + strconv.Itoa(l.seq-1)
	}
	next := l.cur + "." + strconv.Itoa(l.seq)
	f, err := os.OpenFile(next, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", fmt.Errorf("process accounting: %w", err)
	}
	f.Close()
	if err := syscall.Acct(next); err != nil {
		os.Remove(next)
		return "", fmt.Errorf("process accounting: acct: %w", err)
	}
	l.seq++
	return prev, nil
}

// records switches files and returns the records of the processes that
// exited since the last call.
func (l *exitLog) records() ([]*exitRec, error) {
	prev, err := l.switchTo()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(prev)
	os.Remove(prev)
	if err != nil {
		return nil, fmt.Errorf("process accounting: %w", err)
	}
	return parseExitRecs(b, l.self)
}

// close turns accounting off and removes the files.
func (l *exitLog) close() {
	if l == nil || l.lock == nil {
		return
	}
	syscall.Syscall(syscall.SYS_ACCT, 0, 0, 0) // NULL: accounting off
	if l.seq > 0 {
		os.Remove(l.cur + "." + strconv.Itoa(l.seq-1))
	}
	os.Remove(l.lockPath)
	l.lock.Close()
	l.lock = nil
}
