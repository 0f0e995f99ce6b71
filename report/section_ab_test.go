package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/internal/golden"
	"github.com/wptest/wptest/results"
)

// rasmusRun is Rasmus's ab test as his message published it, as if wptest
// had run it: Apache 2 prefork and Apache 1.3, his static 1,024-byte file
// and its PHP twin, ab -c 5 -n 50000 -k. His numbers (complete requests,
// keep-alive requests, total and HTML transferred, requests per second,
// time taken); the CPU figures are the test's own (he published none).
func rasmusRun(machine *results.MachineInfo) (*results.Manifest, []results.Record) {
	scs := []results.Scenario{
		{Name: "static", Kind: "ab", Path: "/wptest-1k.html", Proto: "h1", Visitors: []int{5}, Requests: 50000, KeepAlive: true},
		{Name: "php", Kind: "ab", Path: "/wptest-1k.php", Proto: "h1", Visitors: []int{5}, Requests: 50000, KeepAlive: true},
	}
	profs := []results.Column{{ID: "apache2", Profile: "apache2", Label: "Apache 2 prefork", Enabled: true}, {ID: "apache13", Profile: "apache13", Label: "Apache 1.3", Enabled: true}}
	sp := &testSpec{Name: "ab-1k", Repetitions: 1, Scenarios: scs, Columns: profs}
	m := &results.Manifest{Format: results.ManifestFormat, ID: "rasmus", Experiment: "ab-1k", PlanHash: sp.PlanHash(),
		Columns: profs, Scenarios: scs, Repetitions: 1, Points: len(sp.Plan()), Complete: true, Machine: machine}
	type ab struct {
		ka, total, html int64
		rps, secs       float64
		machineMs       float64
	}
	his := map[string]ab{
		"apache2/static":  {49511, 66681859, 51203072, 2101.43, 23.793270, 0.40},
		"apache2/php":     {0, 63250000, 51200000, 397.36, 125.831896, 2.0},
		"apache13/static": {49507, 66127818, 51200000, 2533.47, 19.735772, 0.30},
		"apache13/php":    {49508, 62777865, 51200000, 615.46, 81.240240, 1.5},
	}
	var recs []results.Record
	for _, p := range sp.Plan() {
		a := his[p.Column+"/"+p.Scenario]
		run := &result.Run{Name: p.Step, Proto: "h1", HTTP10: true, Visitors: 5, KeepAlive: true, Requests: 50000,
			Attempts: 50000, Outcomes: result.Outcomes{OK: 50000}, KeepAliveReqs: a.ka, RPS: a.rps, ElapsedMs: a.secs * 1000,
			Bytes: result.Bytes{WireIn: a.total, Body: a.html}, Latency: result.Latency{Count: 50000, Mean: a.secs * 1000 * 5 / 50000}}
		groups := a.machineMs * 3 / 4
		recs = append(recs, results.Record{Point: p, Set: result.Set{Run: run},
			Probe:             &results.Probe{URL: "http://203.0.113.7" + scs[0].Path, Status: 200, Proto: "HTTP/1.1", BodyBytes: 1024},
			Server:            &result.Server{WindowMs: a.secs * 1000, CPUMsPerRequest: a.machineMs, Groups: map[string]result.GroupUse{}},
			ServerCPUMsPerReq: groups, WebPHPCPUMsPerReq: groups, LoadHost: "loadgen-1"})
	}
	return m, recs
}

// Rasmus's check is in the ab section: HTML transferred per column, and
// what it is beyond complete requests × the document's 1,024 bytes, 3,072
// for his Apache 2's static file and 0 elsewhere. On a machine of its own
// the server CPU is the whole machine's, the process groups' beside it.
func TestABSectionShowsRasmusBytes(t *testing.T) {
	m, recs := rasmusRun(&results.MachineInfo{Host: "server", OwnMachine: true})
	md, _, err := newReport("", m, recs).render()
	if err != nil {
		t.Fatal(err)
	}
	s := string(md)
	for _, w := range []string{
		"| HTML transferred (bytes) | 51,203,072 | 51,200,000 |",
		"| HTML transferred − complete requests × document length (bytes) | 3,072 | 0 |",
		"| Document length (bytes) | 1,024 | 1,024 |",
		"| server CPU per request, whole machine (ms) | 0.400 | 0.300 |",
		"|   of which web server + PHP + database processes (ms) | 0.300 | 0.225 |",
		"The server had a machine of its own",
	} {
		if !strings.Contains(s, w) {
			t.Errorf("report.md lacks %q", w)
		}
	}
	golden.File(t, filepath.Join("testdata", "ab.md"), md)
}

// Where the server shares its machine, the report shows the process
// groups' CPU and says why: the machine-wide figure would count the
// others' CPU.
func TestCPUFigureOnASharedMachine(t *testing.T) {
	for _, c := range []struct {
		name    string
		machine *results.MachineInfo
		why     string
	}{
		{"shared", &results.MachineInfo{SharedWith: "the machine running wptest and its load generator (the server is that machine)"},
			"The server shared its machine with the machine running wptest and its load generator (the server is that machine), whose CPU the machine-wide figure would count"},
		{"not recorded", nil, "The run did not record whether the server had a machine of its own"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, recs := rasmusRun(c.machine)
			md, _, err := newReport("", m, recs).render()
			if err != nil {
				t.Fatal(err)
			}
			s := string(md)
			for _, w := range []string{c.why, "| server CPU per request, web server + PHP + database processes (ms) | 0.300 | 0.225 |",
				"| static c=5 | 0.300 | 0.225 |"} {
				if !strings.Contains(s, w) {
					t.Errorf("report.md lacks %q", w)
				}
			}
			if strings.Contains(s, "whole machine") || strings.Contains(s, "0.400") {
				t.Errorf("a shared machine's report shows the machine-wide figure")
			}
		})
	}
}
