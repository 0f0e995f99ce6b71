package netns

import (
	"strings"
	"testing"

	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/cloud/netns/machine"
)

// What a machines block gets on hosts of 1, 2, 4 and 8 cores (16G): the
// default split, what one given side leaves the other, and what the plan
// says of it.
func TestLayout(t *testing.T) {
	two := 2
	for _, c := range []struct {
		name                    string
		cpus                    string
		m                       cloud.Machines
		server, load, srvM, lgM string
		note                    string
	}{
		{"1 core", "0", cloud.Machines{}, "0", "0", "8G", "8G", "the server shares CPUs 0 with the load generators"},
		{"2 cores", "0-1", cloud.Machines{}, "1", "0", "8G", "8G", "each machine runs on its own CPUs of this host's 0-1, and wptest's own work runs on the load generators' (0)"},
		{"4 cores", "0-3", cloud.Machines{}, "2-3", "0-1", "8G", "8G", "own CPUs"},
		{"8 cores, 2 load generators", "0-7", cloud.Machines{LoadGenerators: &two}, "4-7", "0-3", "8G", "4G", "own CPUs"},
		{"server given", "0-7", cloud.Machines{}.With("server_cpus", "0-5").With("server_memory", "12G"), "0-5", "6-7", "12G", "4G", "own CPUs"},
		{"load given", "0-3", cloud.Machines{}.With("load_generator_cpus", "3").With("load_generator_memory", "1G"), "0-2", "3", "12G", "1G", "own CPUs"},
		{"all to the server", "0-1", cloud.Machines{}.With("server_cpus", "0-1"), "0-1", "0-1", "8G", "8G", "shares CPUs 0-1"},
		{"both given, overlapping", "0-3", cloud.Machines{}.With("server_cpus", "1-2").With("load_generator_cpus", "2-3"), "1-2", "2-3", "8G", "8G", "shares CPUs 2 with"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cpus, _ := machine.ParseCPUs(c.cpus)
			l, err := layoutOf(c.m, hostSize{cpus: cpus, memory: 16 << 30})
			if err != nil {
				t.Fatal(err)
			}
			got := []string{machine.FormatCPUs(l.server.CPUs), machine.FormatCPUs(l.load.CPUs), machine.FormatSize(l.server.Memory), machine.FormatSize(l.load.Memory)}
			want := []string{c.server, c.load, c.srvM, c.lgM}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("server CPUs, load CPUs, server memory, load memory: %v, want %v", got, want)
			}
			res, notes := l.describe(c.m.LoadGens())
			if !strings.Contains(strings.Join(notes, "\n"), c.note) || !strings.Contains(res[0], "server: CPUs "+c.server) {
				t.Errorf("plan says %q, %q; want %q", res, notes, c.note)
			}
		})
	}
}
