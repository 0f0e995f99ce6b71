package srvstat

import (
	"fmt"
	"time"

	"github.com/wptest/wptest/bench/result"
)

// Summarize returns the server's share of the window [from, to]: the last
// sample at or before from and the first at or after to bound it (so the
// window is at most one interval wider than the run), and ok is the requests
// answered in the run. The machine's CPU is /proc/stat's busy time, or its
// cgroup's where the samples have it (Sample.Machine), over its CPUs.
// maxWorkers is Apache's MaxRequestWorkers (0: use the
// scoreboard's length).
func Summarize(ss []Sample, from, to time.Time, ok int64, maxWorkers int) (*result.Server, error) {
	if len(ss) < 2 {
		return nil, fmt.Errorf("srvstat: %d samples, need two around the window", len(ss))
	}
	f, t := float64(from.UnixNano())/1e9, float64(to.UnixNano())/1e9
	i0, i1 := 0, len(ss)-1
	for i, s := range ss {
		if s.Unix <= f {
			i0 = i
		}
	}
	for i := len(ss) - 1; i >= 0; i-- {
		if ss[i].Unix >= t {
			i1 = i
		}
	}
	if i1 <= i0 {
		return nil, fmt.Errorf("srvstat: no samples span the window %s..%s", from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	a, b := ss[i0], ss[i1]
	win := b.Unix - a.Unix
	busy := b.CPU.Busy() - a.CPU.Busy()
	total := b.CPU.Total() - a.CPU.Total()
	if a.Machine != nil && b.Machine != nil {
		// A machine on a shared kernel: its cgroup's CPU over its CPUs.
		busy, total = b.Machine.UsageS-a.Machine.UsageS, win*float64(b.CPUs)
	}
	srv := &result.Server{WindowMs: win * 1000, Groups: map[string]result.GroupUse{}}
	if total > 0 {
		srv.CPUBusyPct = 100 * busy / total
	}
	if ok > 0 {
		srv.CPUMsPerRequest = busy * 1000 / float64(ok)
	}
	for _, g := range GroupNames(ss[i0 : i1+1]) {
		cpu := b.Groups[g].CPUSec - a.Groups[g].CPUSec
		u := result.GroupUse{CPUMs: cpu * 1000}
		if win > 0 && b.CPUs > 0 {
			u.CPUPct = 100 * cpu / (win * float64(b.CPUs))
		}
		// A sample has a group's PSS only when every member has a reading:
		// the first such sample in the window, and the largest.
		for _, s := range ss[i0 : i1+1] {
			if u.PSSIdleKB == 0 {
				u.PSSIdleKB = s.Groups[g].PSSKB
			}
			u.PSSPeakKB = max(u.PSSPeakKB, s.Groups[g].PSSKB)
			u.ProcsPeak = max(u.ProcsPeak, s.Groups[g].Procs)
		}
		srv.Groups[g] = u
	}
	read := false // a status page answered in the window
	for _, s := range ss[i0 : i1+1] {
		if s.Apache != nil && s.Apache.Error == "" {
			read = true
			srv.MaxBusyWorkers = max(srv.MaxBusyWorkers, s.Apache.Busy)
			if maxWorkers == 0 {
				srv.WorkerLimit = max(srv.WorkerLimit, s.Apache.Slots)
			}
		}
	}
	// No reading is no worker usage, not 0% of MaxRequestWorkers.
	if maxWorkers > 0 && read {
		srv.WorkerLimit = maxWorkers
	}
	if srv.WorkerLimit > 0 {
		srv.WorkerUsagePct = 100 * float64(srv.MaxBusyWorkers) / float64(srv.WorkerLimit)
	}
	return srv, nil
}
