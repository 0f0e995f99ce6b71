package results

import (
	"reflect"
	"testing"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// A verdict carries what the run knows could explain it besides the
// servers; a difference with none of it is about the servers.
func TestCauses(t *testing.T) {
	rec := func(col string, rps float64, body int64) Record {
		return Record{Point: Point{Column: col, Scenario: "page", Step: "c=4"},
			Set: result.Set{Run: &result.Run{RPS: rps, Attempts: 10, Outcomes: result.Outcomes{OK: 10}, Bytes: result.Bytes{WireIn: body * 10}}}}
	}
	base := func() *Manifest {
		return &Manifest{Columns: []Column{{ID: "a", Label: "A", Enabled: true}, {ID: "b", Label: "B", Enabled: true}},
			Scenarios: []Scenario{{Name: "page", Kind: "page"}}, Machine: &MachineInfo{OwnMachine: true},
			Claims: []Claim{
				{ID: "rate", Scenario: "page", Visitors: 4, Metric: "rps", Unit: "req/s", Order: []string{"b", "a"}},
				{ID: "bytes", Scenario: "page", Visitors: 4, Metric: "wire_bytes", Unit: "B", Order: []string{"b", "a"}},
			}}
	}
	recs := []Record{rec("a", 1, 100), rec("b", 2, 200)} // both claims differ
	for _, tc := range []struct {
		name  string
		edit  func(*Manifest)
		rate  []string
		bytes []string
	}{
		{"nothing known: about the servers", func(*Manifest) {}, nil, nil},
		{"the file's deviation, on its scenarios only", func(m *Manifest) {
			m.SourceDeviations = []SourceDeviation{{ID: "site", Says: "no Elementor here", Scenarios: []string{"page"}}, {ID: "css", Says: "a smaller file", Scenarios: []string{"compression"}}}
		}, []string{"no Elementor here"}, []string{"no Elementor here"}},
		{"a measured column's deviation", func(m *Manifest) {
			m.Hosts = map[string]*hostmanifest.Manifest{"a": {Deviations: []string{"PHP 8.2 instead of the post's PHP 8.4"}}, "c": {Deviations: []string{"not measured"}}}
		}, []string{"A: PHP 8.2 instead of the post's PHP 8.4"}, []string{"A: PHP 8.2 instead of the post's PHP 8.4"}},
		{"shared CPUs explain a rate, not bytes", func(m *Manifest) {
			m.Machine = &MachineInfo{SharedWith: "the load generator"}
		}, []string{"the server shared its CPUs with the load generator"}, nil},
		{"a machine of its own whose CPUs another machine may use", func(m *Manifest) {
			m.Machine = &MachineInfo{OwnMachine: true, CPUFrom: "cgroup", CPUSet: "0", CPUsSharedWith: "lg1"}
		}, []string{"the server shared its CPUs with lg1"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := base()
			tc.edit(m)
			got := EvaluateClaims(m, recs)
			if got[0].Verdict != Differs || got[1].Verdict != Differs {
				t.Fatalf("verdicts %s, %s: the test wants two differences", got[0].Verdict, got[1].Verdict)
			}
			if !reflect.DeepEqual(got[0].Causes, tc.rate) || !reflect.DeepEqual(got[1].Causes, tc.bytes) {
				t.Errorf("causes: rate %q, bytes %q; want %q, %q", got[0].Causes, got[1].Causes, tc.rate, tc.bytes)
			}
			if got[0].Unexplained() != (len(tc.rate) == 0) {
				t.Errorf("Unexplained %v with causes %q", got[0].Unexplained(), got[0].Causes)
			}
		})
	}
}

// A share of all the server's CPUs on a server with another number of
// them than the source's may be explained by that; a rate is not.
func TestCausesMachineSize(t *testing.T) {
	rec := Record{Point: Point{Column: "a", Scenario: "crowd", Step: "c=1000"},
		Server: &result.Server{WindowMs: 1000, CPUBusyPct: 34.9}}
	m := &Manifest{Columns: []Column{{ID: "a", Label: "A", Enabled: true}},
		Scenarios: []Scenario{{Name: "crowd", Kind: "crowd"}}, Machine: &MachineInfo{OwnMachine: true, CPUs: 1},
		Sources: []Source{{Name: "the post", ServerCPUs: 4}},
		Claims: []Claim{{ID: "cpu", Source: "the post", Scenario: "crowd", Visitors: 1000, Metric: "server_cpu_pct", Unit: "%",
			Columns: []string{"a"}, AtMost: &Figure{Text: "10 %", Value: 10}}}}
	got := EvaluateClaims(m, []Record{rec})[0]
	want := []string{"the server had 1 CPU where the source's had 4: a share of all its CPUs scales with their number"}
	if got.Verdict != Differs || !reflect.DeepEqual(got.Causes, want) {
		t.Fatalf("%s, causes %q; want differs, %q", got.Verdict, got.Causes, want)
	}
	m.Machine.CPUs = 4
	if got := EvaluateClaims(m, []Record{rec})[0]; len(got.Causes) != 0 {
		t.Fatalf("same number of CPUs: causes %q", got.Causes)
	}
}
