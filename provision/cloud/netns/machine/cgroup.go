package machine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuCgroup is a cgroup of its own for one machine's processes. Its usage
// counter holds all CPU time they ever ran, exited processes included,
// which /proc cannot tell once a process is gone.
type cpuCgroup struct {
	dir string
	v2  bool // cgroup2: cpu.stat usage_usec; v1: cpuacct.usage (ns)
}

const (
	cgroup1Magic = 0x27e0eb
	cgroup2Magic = 0x63677270
)

// cgroupRoots are where a CPU-accounting hierarchy may be mounted, best
// first: v1 cpuacct counts in nanoseconds, cgroup2 in microseconds (pure
// v2 at /sys/fs/cgroup, or the hybrid layout's unified tree).
var cgroupRoots = []struct {
	path string
	v2   bool
}{
	{"/sys/fs/cgroup/cpuacct", false},
	{"/sys/fs/cgroup/cpu,cpuacct", false},
	{"/sys/fs/cgroup", true},
	{"/sys/fs/cgroup/unified", true},
}

// newCPUCgroup makes cgroup name at the top of the first usable hierarchy.
func newCPUCgroup(name string) (*cpuCgroup, error) {
	var errs []error
	for _, r := range cgroupRoots {
		var st syscall.Statfs_t
		if err := syscall.Statfs(r.path, &st); err != nil {
			continue
		}
		if r.v2 && st.Type != cgroup2Magic || !r.v2 && st.Type != cgroup1Magic {
			continue
		}
		probe := "cpuacct.usage"
		if r.v2 {
			probe = "cpu.stat"
		}
		if _, err := os.Stat(filepath.Join(r.path, probe)); err != nil && !r.v2 {
			continue // a v1 hierarchy without cpuacct (the root has no cpu.stat in v2)
		}
		dir := filepath.Join(r.path, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			errs = append(errs, err)
			continue
		}
		return &cpuCgroup{dir: dir, v2: r.v2}, nil
	}
	if len(errs) == 0 {
		return nil, errors.New("no cgroup hierarchy with CPU accounting is mounted (cgroup v1 cpuacct or cgroup2)")
	}
	return nil, fmt.Errorf("cannot make a cgroup: %w", errors.Join(errs...))
}

// usage is the CPU time of every process that was ever in the group.
func (c *cpuCgroup) usage() (time.Duration, error) {
	if !c.v2 {
		b, err := os.ReadFile(filepath.Join(c.dir, "cpuacct.usage"))
		if err != nil {
			return 0, err
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return time.Duration(ns), err
	}
	b, err := os.ReadFile(filepath.Join(c.dir, "cpu.stat"))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "usage_usec "); ok {
			us, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return time.Duration(us) * time.Microsecond, err
		}
	}
	return 0, fmt.Errorf("%s/cpu.stat has no usage_usec", c.dir)
}

// procs lists the pids in the group.
func (c *cpuCgroup) procs() []int {
	b, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if p, err := strconv.Atoi(f); err == nil {
			pids = append(pids, p)
		}
	}
	return pids
}

// remove kills whatever is still in the group and removes it.
func (c *cpuCgroup) remove() error {
	err := poll(context.Background(), 30*time.Second, func() bool {
		for _, p := range c.procs() {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		err := os.Remove(c.dir)
		return err == nil || errors.Is(err, os.ErrNotExist)
	})
	if err != nil {
		return fmt.Errorf("remove cgroup %s: processes %v still in it", c.dir, c.procs())
	}
	return nil
}
