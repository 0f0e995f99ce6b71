package machine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cgroups are a machine's own cgroups, one per hierarchy it needs: the
// CPU-accounting one (its usage counter holds all CPU time its processes
// ever ran, kernel time spent for them and exited processes included,
// which /proc cannot tell once a process is gone), and, when it has
// Limits, the cpuset and memory ones. Every process of the machine is in
// each; the machine sees them, read-only, as its /sys/fs/cgroup, in a
// cgroup namespace of its own (boot.go).
type cgroups struct {
	dirs []cgDir
}

// cgDir is one of a machine's cgroups.
type cgDir struct {
	path string // on this host
	// view is where the machine sees it: its hierarchy's mount point
	// under /sys/fs/cgroup ("cpuacct", "unified"; "" for a pure cgroup2
	// host's /sys/fs/cgroup itself).
	view string
	v2   bool // cgroup2: cpu.stat usage_usec; v1: cpuacct.usage (ns)
	acct bool // its usage is the machine's CPU time
}

const (
	cgroup1Magic = 0x27e0eb
	cgroup2Magic = 0x63677270
	cgroupBase   = "/sys/fs/cgroup"
)

// v1Mounts are where a cgroup v1 hierarchy with each controller may be
// mounted, and the file that tells it is there.
var v1Mounts = map[string][]struct{ dir, probe string }{
	"cpuacct": {{"cpuacct", "cpuacct.usage"}, {"cpu,cpuacct", "cpuacct.usage"}},
	"cpuset":  {{"cpuset", "cpuset.cpus"}},
	"memory":  {{"memory", "memory.limit_in_bytes"}},
}

// v2Mounts are where cgroup2 may be: pure v2, or the hybrid layout's tree.
var v2Mounts = []string{"", "unified"}

func fsIs(path string, magic int64) bool {
	var st syscall.Statfs_t
	return syscall.Statfs(path, &st) == nil && int64(st.Type) == magic
}

// v1Mount is the mount point (under cgroupBase) of the v1 hierarchy with
// controller ctrl, "" if none.
func v1Mount(ctrl string) string {
	for _, c := range v1Mounts[ctrl] {
		p := filepath.Join(cgroupBase, c.dir)
		if _, err := os.Stat(filepath.Join(p, c.probe)); err == nil && fsIs(p, cgroup1Magic) {
			return c.dir
		}
	}
	return ""
}

// v2Mount is the cgroup2 mount point (under cgroupBase) and the
// controllers it offers; ok false if there is none.
func v2Mount() (view string, ctrls []string, ok bool) {
	for _, v := range v2Mounts {
		p := filepath.Join(cgroupBase, v)
		if fsIs(p, cgroup2Magic) {
			b, _ := os.ReadFile(filepath.Join(p, "cgroup.controllers"))
			return v, strings.Fields(string(b)), true
		}
	}
	return "", nil, false
}

// ownPath is this process's cgroup in the v1 hierarchy of ctrl ("/" if
// unknown): a machine's group goes under it, so a limit this process is
// under holds for its machines too.
func ownPath(ctrl string) string {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "/"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) == 3 && slices.Contains(strings.Split(parts[1], ","), ctrl) {
			return parts[2]
		}
	}
	return "/"
}

// newCgroups makes cgroup name in each hierarchy the machine needs: CPU
// accounting always (v1 cpuacct, else cgroup2), cpuset and memory when l
// asks for them (v1, else cgroup2), each set to l. Groups in v1 are made
// under this process's own; in cgroup2 at its root (a group with
// processes may not have children with controllers). On error it removes
// what it made; the caller records what it returns.
func newCgroups(name string, l Limits) (cg *cgroups, err error) {
	need := map[string]bool{"cpuacct": true, "cpuset": l.CPUs != nil, "memory": l.Memory > 0}
	cg = &cgroups{}
	defer func() {
		if err != nil {
			err = errors.Join(err, cg.remove())
			cg = nil
		}
	}()
	var onV2 []string // controllers no v1 hierarchy has
	for _, ctrl := range []string{"cpuacct", "cpuset", "memory"} {
		if !need[ctrl] {
			continue
		}
		view := v1Mount(ctrl)
		if view == "" {
			onV2 = append(onV2, ctrl)
			continue
		}
		d := cgDir{path: filepath.Join(cgroupBase, view, ownPath(ctrl), name), view: view, acct: ctrl == "cpuacct"}
		if strings.ContainsAny(d.path, " \t\n=") {
			// The machine's boot takes its groups as PATH=VIEW words.
			return cg, fmt.Errorf("cgroup path %q: this process's cgroup has a blank or '=' in its name", d.path)
		}
		if err := os.Mkdir(d.path, 0o755); err != nil {
			return cg, fmt.Errorf("make cgroup: %w", err)
		}
		cg.dirs = append(cg.dirs, d)
		if err := d.limit(ctrl, l); err != nil {
			return cg, err
		}
	}
	if len(onV2) == 0 {
		return cg, nil
	}
	return cg, cg.addV2(name, onV2, l)
}

// addV2 makes the machine's cgroup2 group with the controllers ctrls.
func (cg *cgroups) addV2(name string, ctrls []string, l Limits) error {
	view, have, ok := v2Mount()
	if !ok {
		return fmt.Errorf("no cgroup hierarchy with %s is mounted (cgroup v1 or cgroup2 at %s)", strings.Join(ctrls, ", "), cgroupBase)
	}
	root := filepath.Join(cgroupBase, view)
	var enable []string
	for _, c := range ctrls {
		if c == "cpuacct" {
			continue // cpu.stat is in every cgroup2 group
		}
		if !slices.Contains(have, c) {
			return fmt.Errorf("cgroup2 at %s has no %s controller (it has %q) and no cgroup v1 hierarchy has it", root, c, strings.Join(have, " "))
		}
		enable = append(enable, "+"+c)
	}
	if len(enable) > 0 {
		if err := os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte(strings.Join(enable, " ")), 0); err != nil {
			return fmt.Errorf("enable %s in %s: %w", strings.Join(enable, " "), root, err)
		}
	}
	d := cgDir{path: filepath.Join(root, name), view: view, v2: true, acct: slices.Contains(ctrls, "cpuacct")}
	if err := os.Mkdir(d.path, 0o755); err != nil {
		return fmt.Errorf("make cgroup: %w", err)
	}
	cg.dirs = append(cg.dirs, d)
	for _, c := range ctrls {
		if err := d.limit(c, l); err != nil {
			return err
		}
	}
	return nil
}

// limit writes l's value for controller ctrl into d.
func (d cgDir) limit(ctrl string, l Limits) error {
	var files [][2]string
	switch {
	case ctrl == "cpuset" && !d.v2:
		// A v1 cpuset takes no process before it has memory nodes: its
		// parent's.
		mems, err := os.ReadFile(filepath.Join(filepath.Dir(d.path), "cpuset.mems"))
		if err != nil {
			return err
		}
		files = [][2]string{{"cpuset.mems", strings.TrimSpace(string(mems))}, {"cpuset.cpus", FormatCPUs(l.CPUs)}}
	case ctrl == "cpuset":
		files = [][2]string{{"cpuset.cpus", FormatCPUs(l.CPUs)}}
	case ctrl == "memory" && !d.v2:
		files = [][2]string{{"memory.limit_in_bytes", strconv.FormatInt(l.Memory, 10)}}
	case ctrl == "memory":
		files = [][2]string{{"memory.max", strconv.FormatInt(l.Memory, 10)}}
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(d.path, f[0]), []byte(f[1]), 0); err != nil {
			return fmt.Errorf("cgroup %s: write %s %q: %w", d.path, f[0], f[1], err)
		}
	}
	return nil
}

// acctDir is the group whose usage is the machine's CPU time.
func (cg *cgroups) acctDir() (cgDir, bool) {
	for _, d := range cg.dirs {
		if d.acct {
			return d, true
		}
	}
	return cgDir{}, false
}

// usage is the CPU time of every process that was ever in the machine.
func (cg *cgroups) usage() (time.Duration, error) {
	d, ok := cg.acctDir()
	if !ok {
		return 0, errors.New("no CPU-accounting cgroup")
	}
	if !d.v2 {
		b, err := os.ReadFile(filepath.Join(d.path, "cpuacct.usage"))
		if err != nil {
			return 0, err
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return time.Duration(ns), err
	}
	b, err := os.ReadFile(filepath.Join(d.path, "cpu.stat"))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "usage_usec "); ok {
			us, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return time.Duration(us) * time.Microsecond, err
		}
	}
	return 0, fmt.Errorf("%s/cpu.stat has no usage_usec", d.path)
}

// paths are the groups' directories on this host.
func (cg *cgroups) paths() []string {
	var out []string
	for _, d := range cg.dirs {
		out = append(out, d.path)
	}
	return out
}

// views are the groups as the machine's boot mounts them: "PATH=VIEW".
func (cg *cgroups) views() []string {
	var out []string
	for _, d := range cg.dirs {
		out = append(out, d.path+"="+d.view)
	}
	return out
}

// remove kills whatever is still in the groups and removes them.
func (cg *cgroups) remove() error {
	var errs []error
	for _, d := range slices.Backward(cg.dirs) {
		errs = append(errs, removeCgroup(d.path))
	}
	return errors.Join(errs...)
}

// cgroupProcs lists the pids in the group at dir.
func cgroupProcs(dir string) []int {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
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

// removeCgroup kills whatever is still in the group at dir and removes it.
func removeCgroup(dir string) error {
	err := poll(context.Background(), 30*time.Second, func() bool {
		for _, p := range cgroupProcs(dir) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		err := os.Remove(dir)
		return err == nil || errors.Is(err, os.ErrNotExist)
	})
	if err != nil {
		return fmt.Errorf("remove cgroup %s: processes %v still in it", dir, cgroupProcs(dir))
	}
	return nil
}
