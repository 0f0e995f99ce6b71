package machine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// Limits are what a machine may use of this host, as a cloud VM's size
// says: CPUs of its own (a cpuset: every process of the machine runs on
// them alone) and a memory limit (its cgroup's).
type Limits struct {
	CPUs   []int // this host's CPU numbers, sorted; nil: every CPU
	Memory int64 // bytes; 0: no limit
}

// maxCPUs bounds CPU numbers: the affinity mask's size.
const maxCPUs = 1024

type cpuMask [maxCPUs / 64]uint64

// ParseCPUs reads a CPU list as Linux writes one ("0", "2-3", "0,4-7"):
// sorted, each once.
func ParseCPUs(s string) ([]int, error) {
	bad := fmt.Errorf("%q: want CPU numbers such as \"1\", \"2-3\" or \"0,4-7\"", s)
	var out []int
	for _, part := range strings.Split(strings.TrimSpace(s), ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := cpuNum(lo)
		if err != nil {
			return nil, bad
		}
		b := a
		if isRange {
			if b, err = cpuNum(hi); err != nil || b < a {
				return nil, bad
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func cpuNum(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n >= maxCPUs || s != strconv.Itoa(n) {
		return 0, errors.New("not a CPU number")
	}
	return n, nil
}

// FormatCPUs writes cpus as Linux does ("0-3,6").
func FormatCPUs(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(cpus[i]))
		} else {
			parts = append(parts, strconv.Itoa(cpus[i])+"-"+strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

var sizeRe = regexp.MustCompile(`^([0-9]+)\s*([KMGT]?)(I?B)?$`)

// MinMemory is the least memory a machine may be given: its sshd and a
// shell must start.
const MinMemory = 64 << 20

// ParseSize reads a memory size: "512M", "4G", "4GiB", "1073741824"
// (K, M, G, T are powers of 1024).
func ParseSize(s string) (int64, error) {
	m := sizeRe.FindStringSubmatch(strings.ToUpper(strings.TrimSpace(s)))
	if m == nil || m[3] == "IB" && m[2] == "" {
		return 0, fmt.Errorf("%q: want a size such as \"512M\" or \"4G\" (K, M, G, T: powers of 1024)", s)
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	shift := strings.Index("KMGT", m[2])*10 + 10
	if m[2] == "" {
		shift = 0
	}
	if err != nil || n > (1<<62)>>shift {
		return 0, fmt.Errorf("%q: too large", s)
	}
	n <<= shift
	if n < MinMemory {
		return 0, fmt.Errorf("%q: want at least %s (the machine's sshd must start)", s, FormatSize(MinMemory))
	}
	return n, nil
}

// FormatSize writes n bytes in the largest unit that holds it whole; from
// 1G up, in G with a decimal otherwise.
func FormatSize(n int64) string {
	switch {
	case n >= 1<<40 && n%(1<<40) == 0:
		return strconv.FormatInt(n>>40, 10) + "T"
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "G"
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + "G"
	case n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "M"
	}
	return strconv.FormatInt(n>>10, 10) + "K"
}

// Split is the default division of cpus (this host's, sorted) between a
// server and its load generators, as cloud VMs of their own would have
// them: the server gets the upper half (rounded down, at least one; away
// from CPU 0, where much of the host's interrupt work lands), the load
// generators share the rest, and this process (wptest's own work) runs on
// theirs. One CPU cannot be split: all share it (shared: true).
func Split(cpus []int) (server, load []int, shared bool) {
	if len(cpus) < 2 {
		return cpus, cpus, true
	}
	n := max(1, len(cpus)/2)
	return cpus[len(cpus)-n:], cpus[:len(cpus)-n], false
}

// SplitMemory divides total bytes as Split divides CPUs: each part in
// proportion to its CPUs; the load generators' part is divided evenly
// between them (loadgens of them).
func SplitMemory(total int64, server, load []int, loadgens int) (srv, each int64) {
	n := int64(len(server) + len(load))
	if len(server) == len(load) && slices.Equal(server, load) {
		n = int64(len(server)) * 2 // shared CPUs: half each
	}
	srv = total / n * int64(len(server))
	each = total / n * int64(len(load))
	if loadgens > 1 {
		each /= int64(loadgens)
	}
	return srv &^ (1<<20 - 1), each &^ (1<<20 - 1) // whole MiB
}

// HostCPUs are the CPUs this process may run on: this host's, as far as
// wptest may use them.
func HostCPUs() ([]int, error) {
	var m cpuMask
	if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m))); e != 0 {
		return nil, fmt.Errorf("sched_getaffinity: %w", e)
	}
	return m.cpus(), nil
}

// HostMemory is this host's memory (MemTotal), bytes.
func HostMemory() (int64, error) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("/proc/meminfo has no MemTotal")
}

func (m *cpuMask) cpus() []int {
	var out []int
	for c := range maxCPUs {
		if m[c/64]&(1<<(c%64)) != 0 {
			out = append(out, c)
		}
	}
	return out
}

func maskOf(cpus []int) cpuMask {
	var m cpuMask
	for _, c := range cpus {
		m[c/64] |= 1 << (c % 64)
	}
	return m
}

// Affinity is what KeepOff changed: Restore puts it back.
type Affinity struct{ was []int }

// KeepOff moves every thread of this process (wptest's own work: SSH
// sessions, the run's bookkeeping; threads started later inherit it) off
// cpus, onto the rest of those it may use. Nothing changes where that
// leaves none.
func KeepOff(cpus []int) (*Affinity, error) {
	was, err := HostCPUs()
	if err != nil {
		return nil, err
	}
	rest := slices.DeleteFunc(slices.Clone(was), func(c int) bool { return slices.Contains(cpus, c) })
	if len(rest) == 0 || len(rest) == len(was) {
		return nil, nil
	}
	return &Affinity{was: was}, setAffinity(rest)
}

// Restore gives this process's threads back the CPUs they had.
func (a *Affinity) Restore() error {
	if a == nil {
		return nil
	}
	return setAffinity(a.was)
}

// setAffinity sets every thread's CPUs, twice over the list: a thread
// started while the first pass ran copied its maker's old mask.
func setAffinity(cpus []int) error {
	m := maskOf(cpus)
	for range 2 {
		tids, err := filepath.Glob("/proc/self/task/*")
		if err != nil {
			return err
		}
		for _, t := range tids {
			tid, _ := strconv.Atoi(filepath.Base(t))
			_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, uintptr(tid), unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m)))
			if e != 0 && e != syscall.ESRCH {
				return fmt.Errorf("sched_setaffinity %d: %w", tid, e)
			}
		}
	}
	return nil
}
