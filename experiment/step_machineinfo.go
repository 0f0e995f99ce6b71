package experiment

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/wptest/wptest/bench/srvstat"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/results"
)

// stepMachineInfo records what the server is, and whom it shares its
// kernel with, in the manifest.
type stepMachineInfo struct{ noCleanup }

func (stepMachineInfo) Name() string { return "machine info" }

func (stepMachineInfo) Run(ctx context.Context, r *runner) error {
	info := machineInfo(ctx, r.srv.h, r.srv.facts)
	info.LoadLocal = r.srv.m.Local && r.lg.Name() == LocalLoadHost
	info.LoadHost = r.lg.Name()
	info.LoadGenLinkMbps = r.sp.Machines.LinkMbps() // so a report made later judges the link as the run did
	r.ownMachine(ctx, r.srv.m, &info)
	r.man.Machine = &info
	return r.man.Write(r.dir)
}

// machineInfo reads what the server is: kernel, CPUs, memory, and (srvstat's
// CgroupProbe) whether it is a cgroup namespace of its own whose CPU its
// cgroup counts, its cpuset and its memory limit.
func machineInfo(ctx context.Context, h host.Host, f host.Facts) results.MachineInfo {
	mi := results.MachineInfo{Host: h.Name(), OS: strings.TrimSpace(f.OSID + " " + f.OSVersion), Platform: f.Platform, Arch: f.Arch}
	res, err := h.Run(ctx, host.Cmd{Label: "machine info", Timeout: time.Minute,
		Script: srvstat.CgroupProbe + "uname -r; nproc; awk '/^MemTotal:/{print $2}' /proc/meminfo; cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo; awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo"})
	if err != nil {
		return mi
	}
	var l []string
	limitKB := int64(0)
	for _, line := range strings.Split(strings.TrimSpace(string(res.Stdout)), "\n") {
		switch k, v, _ := strings.Cut(line, " "); k {
		case "wptest-cpu-from":
			mi.CPUFrom = v
		case "wptest-cpuset":
			mi.CPUSet = v
		case "wptest-mem-limit":
			n, _ := strconv.ParseInt(v, 10, 64) // "max": none
			limitKB = n >> 10
		default:
			l = append(l, line)
		}
	}
	if len(l) >= 3 {
		mi.Kernel = l[0]
		mi.CPUs, _ = strconv.Atoi(l[1])
		mi.MemKB, _ = strconv.ParseInt(l[2], 10, 64)
	}
	if limitKB > 0 && limitKB < mi.MemKB {
		mi.MemKB = limitKB // a machine's memory is its cgroup's limit
	}
	if len(l) >= 4 {
		mi.BootID = strings.TrimSpace(l[3])
	}
	if len(l) >= 5 {
		mi.CPUModel = l[4]
	}
	return mi
}
