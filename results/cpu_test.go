package results

import (
	"strings"
	"testing"

	"github.com/wptest/wptest/bench/result"
)

// The one definition: the machine-wide figure only when the server's
// kernel was its own; the groups' sum otherwise, saying why; no figure
// without samples or answers.
func TestCPUPerRequest(t *testing.T) {
	rec := Record{Server: &result.Server{CPUMsPerRequest: 0.8}, ServerCPUMsPerReq: 0.5, WebPHPCPUMsPerReq: 0.4, DBCPUMsPerReq: 0.1}
	for _, c := range []struct {
		name    string
		rec     Record
		m       *MachineInfo
		ms      float64
		ok      bool
		machine bool
		why     string
	}{
		{"own machine", rec, &MachineInfo{OwnMachine: true}, 0.8, true, true, "machine of its own"},
		{"a netns machine with CPUs of its own", rec, &MachineInfo{OwnMachine: true, CPUFrom: "cgroup", CPUSet: "1"}, 0.8, true, true, "machine of its own on a shared kernel (CPUs 1 and a cgroup of its own)"},
		{"shared", rec, &MachineInfo{SharedWith: "load generator loadgen-1 (the same boot ID)"}, 0.5, true, false, "shared its machine with load generator loadgen-1"},
		{"not recorded", rec, nil, 0.5, true, false, "did not record"},
		{"no samples", Record{ServerCPUMsPerReq: 0.5}, &MachineInfo{OwnMachine: true}, 0, false, true, "machine of its own"},
		{"no machine figure", Record{Server: &result.Server{}, ServerCPUMsPerReq: 0.5}, &MachineInfo{OwnMachine: true}, 0, false, true, "machine of its own"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, ok := CPUPerRequest(c.rec, c.m)
			if ok != c.ok || f.Ms != c.ms || f.Machine != c.machine || !strings.Contains(f.Why, c.why) {
				t.Errorf("got %v ms (ok %v, machine %v, %q); want %v (ok %v, machine %v, %q)", f.Ms, ok, f.Machine, f.Why, c.ms, c.ok, c.machine, c.why)
			}
			if ok && (f.GroupsMs != 0.5 || f.WebPHPMs != 0.4 || f.DBMs != 0.1 || f.MachineMs != 0.8) {
				t.Errorf("split %+v: want the groups' 0.5 (0.4 + 0.1) and the machine's 0.8", f)
			}
		})
	}
}
