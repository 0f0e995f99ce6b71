package netns

import (
	"fmt"
	"slices"

	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/cloud/netns/machine"
)

// The machines' sizes: what each may use of this host, as a cloud VM's
// size says, so that each one's CPU time is its own and a load generator
// does not take the server's CPUs.
var sizeAttributes = []cloud.Attribute{
	{Name: "server_cpus", Check: checkCPUs, Example: "2-3",
		Doc: "the server's own CPUs, as Linux lists them (\"1\", \"2-3\", \"0,4-7\"); default: the upper half of this host's CPUs " +
			"(rounded down, at least one: on 2 cores CPU 1; on 1 core all machines share it)"},
	{Name: "server_memory", Check: checkSize, Example: "4G",
		Doc: "the server's memory limit (\"512M\", \"4G\"; powers of 1024); default: this host's memory in proportion to the server's share of its CPUs"},
	{Name: "load_generator_cpus", Check: checkCPUs, Example: "0-1",
		Doc: "the CPUs the load generators share (wptest's own work runs there too); default: the CPUs the server does not have"},
	{Name: "load_generator_memory", Check: checkSize, Example: "2G",
		Doc: "each load generator's memory limit; default: the rest of this host's memory, divided between them"},
}

func checkCPUs(v string) error { _, err := machine.ParseCPUs(v); return err }
func checkSize(v string) error { _, err := machine.ParseSize(v); return err }

// layout is what the server and the load generators may use of this host.
type layout struct {
	server, load machine.Limits
	host         []int
}

// hostSize is this host's CPUs and memory, as layoutOf reads them.
type hostSize struct {
	cpus   []int
	memory int64
}

func thisHost() (hostSize, error) {
	cpus, err := machine.HostCPUs()
	if err != nil {
		return hostSize{}, err
	}
	mem, err := machine.HostMemory()
	return hostSize{cpus, mem}, err
}

// layoutOf reads m's sizes against this host: given CPUs must be this
// host's; what is not given is the default split (machine.Split,
// machine.SplitMemory), or what the given side leaves.
func layoutOf(m cloud.Machines, h hostSize) (layout, error) {
	l := layout{host: h.cpus}
	var err error
	if l.server.CPUs, err = cpusOf("server_cpus", m.Attr("server_cpus"), h.cpus); err != nil {
		return l, err
	}
	if l.load.CPUs, err = cpusOf("load_generator_cpus", m.Attr("load_generator_cpus"), h.cpus); err != nil {
		return l, err
	}
	srv, load, _ := machine.Split(h.cpus)
	rest := func(of []int) []int {
		r := slices.DeleteFunc(slices.Clone(h.cpus), func(c int) bool { return slices.Contains(of, c) })
		if len(r) == 0 {
			return h.cpus // nothing left: they share them all
		}
		return r
	}
	switch {
	case l.server.CPUs == nil && l.load.CPUs == nil:
		l.server.CPUs, l.load.CPUs = srv, load
	case l.server.CPUs == nil:
		l.server.CPUs = rest(l.load.CPUs)
	case l.load.CPUs == nil:
		l.load.CPUs = rest(l.server.CPUs)
	}
	srvMem, eachMem := machine.SplitMemory(h.memory, l.server.CPUs, l.load.CPUs, max(1, m.LoadGens()))
	if l.server.Memory, err = sizeOr(m.Attr("server_memory"), srvMem); err != nil {
		return l, fmt.Errorf("server_memory = %w", err)
	}
	if l.load.Memory, err = sizeOr(m.Attr("load_generator_memory"), eachMem); err != nil {
		return l, fmt.Errorf("load_generator_memory = %w", err)
	}
	return l, nil
}

// cpusOf parses attribute name's value v; nil if not given. Every CPU
// must be one of this host's (those wptest may use).
func cpusOf(name, v string, host []int) ([]int, error) {
	if v == "" {
		return nil, nil
	}
	cpus, err := machine.ParseCPUs(v)
	if err != nil {
		return nil, fmt.Errorf("%s = %w", name, err)
	}
	for _, c := range cpus {
		if !slices.Contains(host, c) {
			return nil, fmt.Errorf("%s = %q: CPU %d is not one of this host's (wptest may use %s)", name, v, c, machine.FormatCPUs(host))
		}
	}
	return cpus, nil
}

func sizeOr(v string, def int64) (int64, error) {
	if v == "" {
		return max(def, machine.MinMemory), nil
	}
	return machine.ParseSize(v)
}

// shared are the CPUs the server shares with the load generators.
func (l layout) shared() []int {
	return slices.DeleteFunc(slices.Clone(l.server.CPUs), func(c int) bool { return !slices.Contains(l.load.CPUs, c) })
}

// describe says the layout for the plan.
func (l layout) describe(loadgens int) (resources, notes []string) {
	resources = append(resources, fmt.Sprintf("server: CPUs %s (a cpuset of its own), memory limit %s", machine.FormatCPUs(l.server.CPUs), machine.FormatSize(l.server.Memory)))
	if loadgens > 0 {
		resources = append(resources, fmt.Sprintf("load generators: CPUs %s between them, memory limit %s each", machine.FormatCPUs(l.load.CPUs), machine.FormatSize(l.load.Memory)))
	}
	if sh := l.shared(); len(sh) > 0 {
		notes = append(notes, fmt.Sprintf("the server shares CPUs %s with the load generators (this host has %s): each machine's CPU time is still its own (its cgroup's), but they slow each other; compare CPU per request, not requests per second",
			machine.FormatCPUs(sh), machine.FormatCPUs(l.host)))
	} else {
		notes = append(notes, fmt.Sprintf("each machine runs on its own CPUs of this host's %s, and wptest's own work runs on the load generators' (%s); the server's CPU time is its cgroup's: every process on it, kernel time spent for them included",
			machine.FormatCPUs(l.host), machine.FormatCPUs(l.load.CPUs)))
	}
	return resources, notes
}
