package machine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/wptest/wptest/internal/flock"
	"github.com/wptest/wptest/internal/subnet"
)

// Record is a machine as its state file lists it: what it made, in order,
// and its labels. It is all a later process needs to remove it.
type Record struct {
	Dir    string
	ID     string // network namespace
	Name   string
	Suite  string
	IP     string
	Labels map[string]string

	owner, pid, root, subnet string
	links, cgroups           []string
}

func readRecord(dir string) (Record, error) {
	b, err := os.ReadFile(filepath.Join(dir, "state"))
	if err != nil {
		return Record{}, err
	}
	r := Record{Dir: dir, Labels: map[string]string{}}
	for _, l := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(l, " ")
		switch k {
		case "owner":
			r.owner = v
		case "name":
			r.Name = v
		case "suite":
			r.Suite = v
		case "ip":
			r.IP = v
		case "label":
			lk, lv, _ := strings.Cut(v, "=")
			r.Labels[lk] = lv
		case "subnet":
			r.subnet = v
		case "mount":
			r.root = v
		case "netns":
			r.ID = v
		case "link":
			r.links = append(r.links, v)
		case "cgroup":
			r.cgroups = append(r.cgroups, v)
		case "pid":
			r.pid = v
		}
	}
	return r, nil
}

// Records lists every machine on this host, sorted by directory: the
// driver's (labelled) and the tests'.
func Records() ([]Record, error) {
	dirs, err := filepath.Glob(filepath.Join(hostsDir, "*"))
	if err != nil {
		return nil, err
	}
	sort.Strings(dirs)
	var out []Record
	for _, d := range dirs {
		r, err := readRecord(d)
		if errors.Is(err, os.ErrNotExist) {
			continue // being made: no state file yet, or being removed
		}
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// remove removes everything r lists, in order: its processes (killing PID
// 1 ends every process of its PID namespace, and the mounts of its mount
// namespace), cgroup, network namespace and veths, rootfs mount, files,
// the claim on its subnet. What is already gone counts as removed; what is
// left after it is an error naming it.
func (r Record) remove(done <-chan struct{}) error {
	var errs []error
	if pid, alive := samePID(r.pid); alive {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		gone := func() bool {
			if done != nil {
				select {
				case <-done:
					return true
				default:
					return false
				}
			}
			return !processAlive(pid)
		}
		if err := poll(context.Background(), time.Minute, gone); err != nil {
			errs = append(errs, fmt.Errorf("PID 1 (%d) did not exit", pid))
		}
	}
	for _, cg := range slices.Backward(r.cgroups) {
		if err := removeCgroup(cg); err != nil {
			errs = append(errs, err)
		}
	}
	if r.ID != "" {
		if _, err := os.Stat("/run/netns/" + r.ID); err == nil {
			if out, err := exec.Command("ip", "netns", "del", r.ID).CombinedOutput(); err != nil {
				errs = append(errs, fmt.Errorf("ip netns del %s: %v %s", r.ID, err, out))
			}
		}
	}
	for _, l := range r.links {
		if _, err := os.Stat("/sys/class/net/" + l); err == nil {
			_ = exec.Command("ip", "link", "del", l).Run()
		}
	}
	if err := unmount(r.root); err != nil {
		errs = append(errs, err)
	} else if err := os.RemoveAll(r.Dir); err != nil {
		errs = append(errs, err)
	}
	if r.subnet != "" {
		errs = append(errs, subnet.Link{Lock: r.subnet}.Release())
	}
	if left := r.Leftovers(); len(left) > 0 {
		errs = append(errs, fmt.Errorf("left behind: %s", strings.Join(left, ", ")))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove machine %s (%s): %w", r.Name, r.ID, err)
	}
	return nil
}

// Remove removes everything r lists (a machine of another process: down,
// gc); the error names what is left.
func (r Record) Remove() error { return r.remove(nil) }

// Leftovers lists what of the machine still exists.
func (r Record) Leftovers() []string {
	var left []string
	if pid, alive := samePID(r.pid); alive {
		left = append(left, fmt.Sprintf("process %d", pid))
	}
	if _, err := os.Stat("/run/netns/" + r.ID); r.ID != "" && err == nil {
		left = append(left, "network namespace "+r.ID)
	}
	for _, l := range r.links {
		if _, err := os.Stat("/sys/class/net/" + l); err == nil {
			left = append(left, "link "+l)
		}
	}
	if r.Dir != "" && mounted(r.Dir) {
		left = append(left, "mount "+r.root)
	}
	for _, cg := range r.cgroups {
		if _, err := os.Stat(cg); err == nil {
			left = append(left, "cgroup "+cg)
		}
	}
	if _, err := os.Stat(r.Dir); r.Dir != "" && err == nil {
		left = append(left, "directory "+r.Dir)
	}
	if _, err := os.Stat(r.subnet); r.subnet != "" && err == nil {
		left = append(left, "subnet claim "+r.subnet)
	}
	return left
}

// Remove removes everything the machine made; the error names what is left.
func (h *Host) Remove() error {
	if h.state != nil {
		h.state.Close()
		h.state = nil
	}
	r, err := readRecord(h.dir)
	if errors.Is(err, os.ErrNotExist) {
		// Made no state file (or removed already): only what Host holds.
		r = Record{Dir: h.dir, ID: h.ID, Name: h.Name, subnet: h.link.Lock, links: h.links}
	} else if err != nil {
		return err
	}
	var done <-chan struct{}
	if h.cmd != nil && h.cmd.Process != nil {
		done = h.done // our child: gone once reaped
	}
	return r.remove(done)
}

// Leftovers lists what of the machine still exists (nothing once Remove
// succeeded).
func (h *Host) Leftovers() []string {
	r, err := readRecord(h.dir)
	if err != nil {
		r = Record{Dir: h.dir, ID: h.ID, subnet: h.link.Lock, links: h.links}
		r.cgroups = h.Cgroups()
		if h.cmd != nil && h.cmd.Process != nil {
			r.pid = fmt.Sprintf("%d:%s", h.cmd.Process.Pid, procStart(h.cmd.Process.Pid))
		}
		r.root = h.Root
	}
	return r.Leftovers()
}

// Sweep removes the machines of processes that died before they removed
// them (Tied machines; their PID 1 died with them). Untied machines are
// the user's until down or gc.
func Sweep(log io.Writer) {
	unlock, err := flock.Take(filepath.Join(CacheDir, "hosts.lock"), syscall.LOCK_EX)
	if err != nil {
		fmt.Fprintf(log, "netns: sweep: %v\n", err)
		return
	}
	defer unlock()
	rs, err := Records()
	if err != nil {
		fmt.Fprintf(log, "netns: sweep: %v\n", err)
		return
	}
	for _, r := range rs {
		if r.owner == "" {
			continue
		}
		if _, alive := samePID(r.owner); alive {
			continue // its maker is still running
		}
		if err := r.remove(nil); err != nil {
			fmt.Fprintf(log, "netns: removing %s, left by a process that died: %v\n", r.Dir, err)
		} else {
			fmt.Fprintf(log, "netns: removed %s, left by a process that died\n", r.Dir)
		}
	}
}
