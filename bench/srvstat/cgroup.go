package srvstat

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A machine that is a cgroup namespace of its own on a shared kernel (a
// netns machine with CPUs of its own, a container) sees the host's
// /proc/stat: every CPU of the host, every process of it. Its own CPU
// time, everything on the machine as the cPanel vs corehttpd post counted
// it (its processes' user and kernel time, exited ones included), is its
// cgroup's counter, which it sees at the root of its /sys/fs/cgroup.

// InitCgroupNS is the initial cgroup namespace as /proc/PID/ns/cgroup
// names it (the kernel's fixed inode number): a process in any other is
// in a container or a netns machine.
const InitCgroupNS = "cgroup:[4026531835]"

// MachineCPU is the machine's own CPU time, from its cgroup: cumulative
// seconds since it started.
type MachineCPU struct {
	From    string  `json:"from"` // "cgroup v1" (cpuacct) or "cgroup v2" (cpu.stat)
	UsageS  float64 `json:"usage_s"`
	UserS   float64 `json:"user_s"`
	SystemS float64 `json:"system_s"`
}

// ownCgroupNS says whether this process is in a cgroup namespace of its
// own (not the initial one).
func ownCgroupNS() bool {
	l, err := os.Readlink("/proc/self/ns/cgroup")
	return err == nil && l != InitCgroupNS
}

// readCgroupCPU reads the CPU counter at the root of the cgroup
// filesystem fs (v1 cpuacct, else cgroup2's cpu.stat); nil if none.
func readCgroupCPU(fs string) *MachineCPU {
	for _, d := range []string{"cpuacct", "cpu,cpuacct"} {
		dir := filepath.Join(fs, d)
		usage, err := os.ReadFile(filepath.Join(dir, "cpuacct.usage"))
		if err != nil {
			continue
		}
		ns, err := strconv.ParseUint(strings.TrimSpace(string(usage)), 10, 64)
		if err != nil {
			return nil
		}
		m := &MachineCPU{From: "cgroup v1", UsageS: float64(ns) / 1e9}
		stat, _ := os.ReadFile(filepath.Join(dir, "cpuacct.stat"))
		kv := keyValues(stat)
		m.UserS, m.SystemS = float64(kv["user"])/clkTck, float64(kv["system"])/clkTck
		return m
	}
	for _, d := range []string{"", "unified"} {
		stat, err := os.ReadFile(filepath.Join(fs, d, "cpu.stat"))
		if err != nil {
			continue
		}
		kv := keyValues(stat)
		if _, ok := kv["usage_usec"]; !ok {
			return nil
		}
		return &MachineCPU{From: "cgroup v2", UsageS: float64(kv["usage_usec"]) / 1e6,
			UserS: float64(kv["user_usec"]) / 1e6, SystemS: float64(kv["system_usec"]) / 1e6}
	}
	return nil
}

// keyValues reads "key number" lines.
func keyValues(b []byte) map[string]uint64 {
	kv := map[string]uint64{}
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, " ")
		if n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64); ok && err == nil {
			kv[k] = n
		}
	}
	return kv
}

// CgroupProbe is a shell script that says, on a server, what New decides
// there: it prints "wptest-cpu-from cgroup" when srvstat would count the
// machine's CPU from its cgroup (a cgroup namespace of its own with a
// CPU counter at /sys/fs/cgroup), then "wptest-cpuset LIST" (the CPUs
// its processes may run on) and "wptest-mem-limit BYTES" (its cgroup's
// memory limit, when it has one).
const CgroupProbe = `if [ "$(readlink /proc/self/ns/cgroup)" != "` + InitCgroupNS + `" ]; then
  for f in /sys/fs/cgroup/cpuacct/cpuacct.usage /sys/fs/cgroup/cpu,cpuacct/cpuacct.usage /sys/fs/cgroup/cpu.stat /sys/fs/cgroup/unified/cpu.stat; do
    if [ -r "$f" ]; then echo "wptest-cpu-from cgroup"; break; fi
  done
  for f in /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/memory.max; do
    if [ -r "$f" ]; then echo "wptest-mem-limit $(cat "$f")"; break; fi
  done
fi
echo "wptest-cpuset $(awk '/^Cpus_allowed_list:/{print $2}' /proc/self/status)"
`
