package experiment

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/results"
)

// ownMachine records whether the server's kernel is its own
// (results.MachineInfo.OwnMachine): the machine-wide CPU figure counts
// everything on the kernel, so it is the server's only when neither the
// machine running wptest nor a load generator runs there. Boot IDs tell,
// whatever the driver: a cloud server or a host of the user's has its own;
// the local target is this machine, and the netns driver's bare hosts (or
// static targets that are namespaces or containers here) share its kernel.
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
	var with []string
	if bootID(ctx, host.NewLocal(io.Discard)) == info.BootID {
		with = append(with, "the machine running wptest"+load+" (one kernel: the same boot ID)")
	}
	for _, lm := range r.loadInfos() {
		if lm.BootID == info.BootID {
			with = append(with, "load generator "+lm.Host+" (the same boot ID)")
		}
	}
	info.SharedWith = strings.Join(with, " and ")
	info.OwnMachine = len(with) == 0
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
