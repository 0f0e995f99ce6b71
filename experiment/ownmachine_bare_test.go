package experiment

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/results"
)

// What the run records of netns machines: one with CPUs of its own is a
// machine of its own (its CPU its cgroup's, its memory its limit), and
// says what of the run may run on its CPUs; one without shares this
// machine's kernel and CPUs, as before.
func TestOwnMachineOnSharedKernel(t *testing.T) {
	srvCPUs, loadCPUs := testenv.SplitCPUs(t)
	const mem = 256 << 20
	hs := testenv.BareHostsLimited(t, testenv.BareSpec{Name: "server", CPUs: srvCPUs, Memory: mem},
		testenv.BareSpec{Name: "loadgen", CPUs: loadCPUs, Memory: mem}, testenv.BareSpec{Name: "plain"})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	infos := make([]results.MachineInfo, len(hs))
	for i, bh := range hs {
		h := openBare(t, bh)
		f, err := h.Facts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		infos[i] = machineInfo(ctx, h, f)
		infos[i].Host = bh.Name
	}
	r := &runner{lg: inProcessLoad{}, man: &results.Manifest{LoadMachine: &infos[1]}}
	srv, plain := infos[0], infos[2]
	r.ownMachine(ctx, cloud.Machine{}, &srv)
	r.ownMachine(ctx, cloud.Machine{}, &plain)
	t.Logf("server %+v", srv)
	t.Logf("without CPUs of its own %+v", plain)
	// This test's process runs on every CPU: it shares the server's; the
	// load generator does not.
	if !srv.OwnMachine || srv.CPUFrom != "cgroup" || srv.CPUSet != testenv.CPUList(srvCPUs) || srv.MemKB != mem>>10 || srv.SharedWith != "" ||
		srv.CPUsSharedWith != "the machine running wptest and its load generator" || srv.CPUs != len(srvCPUs) {
		t.Errorf("server with CPUs %s and %d MiB: recorded %+v", testenv.CPUList(srvCPUs), mem>>20, srv)
	}
	if plain.OwnMachine || plain.CPUFrom != "" || !strings.Contains(plain.SharedWith, "the machine running wptest") || plain.MemKB <= mem>>10 {
		t.Errorf("a machine without CPUs of its own: recorded %+v", plain)
	}
	if s := results.CPUScopeOf(&srv); !s.Machine || !strings.Contains(s.Why, "CPUs "+srv.CPUSet) {
		t.Errorf("the report's CPU figure for it: %+v", s)
	}
}
