package experiment

import (
	"context"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/results"
)

// ownMachine records whether the server is a machine of its own
// (results.MachineInfo.OwnMachine): the machine-wide CPU figure counts
// everything on the machine, so it is the server's only when neither the
// machine running wptest nor a load generator runs there. Boot IDs tell,
// whatever the driver: a cloud server or a host of the user's has its own;
// the local target is this machine, and the netns driver's machines (or
// static targets that are namespaces or containers here) share its kernel.
// A machine on a shared kernel whose CPU its cgroup counts (CPUFrom
// "cgroup": a netns machine, a container) is one of its own all the same;
// CPUsSharedWith then names what of the run may run on its CPUs.
func (r *runner) ownMachine(ctx context.Context, sm cloud.Machine, info *results.MachineInfo) {
	load := ""
	if r.lg.Name() == LocalLoadHost {
		load = " and its load generator"
	}
	if sm.Local {
		info.SharedWith = "the machine running wptest" + load + " (the server is that machine)"
		return
	}
	if info.BootID == "" {
		return // not known: the report says so
	}
	var with, cpus []string
	local := host.NewLocal(io.Discard)
	if bootID(ctx, local) == info.BootID {
		with = append(with, "the machine running wptest"+load+" (one kernel: the same boot ID)")
		if cpusOverlap(info.CPUSet, selfCPUs(ctx, local)) {
			cpus = append(cpus, "the machine running wptest"+load)
		}
	}
	for _, lm := range r.loadInfos() {
		if lm.BootID == info.BootID {
			with = append(with, "load generator "+lm.Host+" (the same boot ID)")
			if cpusOverlap(info.CPUSet, lm.CPUSet) {
				cpus = append(cpus, "load generator "+lm.Host)
			}
		}
	}
	info.CPUsSharedWith = strings.Join(cpus, " and ")
	if info.CPUFrom == "cgroup" {
		info.OwnMachine = true
		return
	}
	info.SharedWith = strings.Join(with, " and ")
	info.OwnMachine = len(with) == 0
}

// selfCPUs are the CPUs this process's commands run on ("0-3").
func selfCPUs(ctx context.Context, h host.Host) string {
	res, err := h.Run(ctx, host.Cmd{Label: "cpuset", Timeout: time.Minute, Script: "awk '/^Cpus_allowed_list:/{print $2}' /proc/self/status"})
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(res.Stdout))
}

// cpusOverlap says whether two CPU lists as Linux writes them ("0-3,6")
// share a CPU; an unknown or unreadable list shares them all.
func cpusOverlap(a, b string) bool {
	sa, oka := cpuSet(a)
	sb, okb := cpuSet(b)
	if !oka || !okb {
		return true
	}
	for c := range sa {
		if sb[c] {
			return true
		}
	}
	return false
}

func cpuSet(list string) (map[int]bool, bool) {
	set := map[int]bool{}
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		x, err := strconv.Atoi(lo)
		y := x
		if err == nil && isRange {
			y, err = strconv.Atoi(hi)
		}
		if err != nil || y < x || y-x > 4096 {
			return nil, false
		}
		for c := x; c <= y; c++ {
			set[c] = true
		}
	}
	return set, true
}

// loadInfos are the load generator machines the manifest records.
func (r *runner) loadInfos() []results.MachineInfo {
	if len(r.man.LoadMachines) > 0 {
		return r.man.LoadMachines
	}
	if r.man.LoadMachine != nil {
		return []results.MachineInfo{*r.man.LoadMachine}
	}
	return nil
}

// bootID is h's kernel boot ID ("" if unreadable).
func bootID(ctx context.Context, h host.Host) string {
	res, err := h.Run(ctx, host.Cmd{Label: "boot id", Timeout: time.Minute, Script: "cat /proc/sys/kernel/random/boot_id"})
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(res.Stdout))
}
