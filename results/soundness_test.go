package results

import (
	"math"
	"strings"
	"testing"

	"github.com/wptest/wptest/bench/result"
)

func runRec(ok, failed5xx, attempts int64, cpuMs, waitMs, elapsedMs float64, cpus int) Record {
	r := &result.Run{Attempts: attempts, ElapsedMs: elapsedMs, ClientCPUMs: cpuMs, ClientWaitMs: waitMs, ClientCPUs: cpus,
		RPS: float64(ok) / (elapsedMs / 1000), Latency: result.Latency{Count: uint64(ok + failed5xx), Max: 41600}}
	r.Outcomes.OK, r.Outcomes.HTTP5xx = ok, failed5xx
	r.Outcomes.ReadTimeout = attempts - ok - failed5xx
	r.ErrorRatePct = 100 * float64(attempts-ok) / float64(attempts)
	return Record{Point: Point{Column: "a", Scenario: "static", Step: "c=10"}, Set: result.Set{Run: r}}
}

func TestBenchLimit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rec      Record
		want     string
		failures bool
	}{
		{"the server measured", runRec(1000, 0, 1000, 500, 100, 10000, 1), "", false},
		{"every request 5xx", runRec(0, 300, 300, 50, 0, 10000, 1), "100% of requests failed (HTTP 5xx)", true},
		{"55% timed out", runRec(45, 0, 100, 50, 0, 10000, 1), "55% of requests failed (read timeout)", true},
		{"10% failed is the limit, not over it", runRec(90, 10, 100, 50, 0, 10000, 1), "", false},
		{"load generator busy", runRec(1000, 0, 1000, 9000, 700, 10000, 1), "the load generator was the bottleneck (97% of its CPUs)", false},
		{"load generator starved: it waited for its CPU", runRec(1000, 0, 1000, 4000, 5500, 10000, 1), "the load generator was the bottleneck (95% of its CPUs)", false},
		{"starved, with idle time besides", runRec(1000, 0, 1000, 3500, 5000, 10000, 1), "the load generator was the bottleneck: it waited for its CPUs, with work ready, 50% of the window (something else ran on them)", false},
		{"a short wait is no starvation", runRec(1000, 0, 1000, 3500, 1500, 10000, 1), "", false},
		{"two CPUs, one busy", runRec(1000, 0, 1000, 10000, 0, 10000, 2), "", false},
		{"load not recorded", runRec(1000, 0, 1000, 9900, 0, 10000, 0), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, f := BenchLimit(tc.rec, &MachineInfo{OwnMachine: true})
			if got != tc.want || f != tc.failures {
				t.Errorf("BenchLimit = %q, %v; want %q, %v", got, f, tc.want, tc.failures)
			}
		})
	}
	// Where the run did not record the server's machine, waits may be the
	// server's use of shared CPUs: only the load generator's own CPU counts.
	if got, _ := BenchLimit(runRec(1000, 0, 1000, 4000, 5500, 10000, 1), nil); got != "" {
		t.Errorf("waits on a machine the run did not record: %q", got)
	}
	// On the server's own machine, waiting for a CPU is the server's use of
	// it: only the load generator's own CPU counts there.
	starved := runRec(1000, 0, 1000, 4000, 5500, 10000, 1)
	if got, _ := BenchLimit(starved, &MachineInfo{LoadLocal: true}); got != "" {
		t.Errorf("a load generator on the server's machine, waiting on the server: %q", got)
	}
	if got, _ := BenchLimit(runRec(1000, 0, 1000, 9500, 0, 10000, 1), &MachineInfo{LoadLocal: true}); got == "" {
		t.Error("a load generator on the server's machine using 95% of its CPUs is not marked")
	}
	// A browse point's load generator, likewise.
	browse := Record{Set: result.Set{Browse: &result.Browse{PageViews: 10, PageViewsOK: 10, ElapsedMs: 10000, ClientCPUMs: 9500, ClientCPUs: 1}}}
	if got, _ := BenchLimit(browse, nil); got != "the load generator was the bottleneck (95% of its CPUs)" {
		t.Errorf("a browse point at 95%% of its load generator's CPU: %q", got)
	}
	// One of several load generators is enough.
	rec := runRec(1000, 0, 1000, 100, 0, 10000, 1)
	busy := runRec(1000, 0, 1000, 9800, 0, 10000, 1)
	rec.Generators = []GeneratorResult{{Host: "lg1", Set: rec.Set}, {Host: "lg2", Set: busy.Set}}
	if got, _ := BenchLimit(rec, nil); got != "the load generator lg2 was the bottleneck (98% of its CPUs)" {
		t.Errorf("two load generators, lg2 busy: %q", got)
	}
}

// A claim on a point that measured the bench reads "not measured" with the
// reason; a claim on the failures themselves is still judged there; a
// claim on the machine's CPU is not measured where the server shared it.
func TestClaimsOnPointsThatMeasuredTheBench(t *testing.T) {
	m := &Manifest{Columns: []Column{{ID: "a", Enabled: true}, {ID: "b", Enabled: true}},
		Scenarios: []Scenario{{Name: "static", Kind: "static"}},
		Machine:   &MachineInfo{OwnMachine: true},
		Claims: []Claim{
			{ID: "rate", Scenario: "static", Visitors: 10, Metric: "rps", Order: []string{"a", "b"}},
			{ID: "errors", Scenario: "static", Visitors: 10, Metric: "error_pct", Columns: []string{"a"}, AtMost: &Figure{Text: "1 %", Value: 1}},
			{ID: "slowest", Scenario: "static", Visitors: 10, Metric: "max_ms", Columns: []string{"b"}, AtLeast: &Figure{Text: "10.4 s", Value: 10400}},
			{ID: "cpu", Scenario: "static", Visitors: 10, Metric: "server_cpu_ms", Columns: []string{"b"}, AtMost: &Figure{Text: "1 ms", Value: 1}},
		}}
	a := runRec(0, 300, 300, 50, 0, 10000, 1)
	b := runRec(1000, 0, 1000, 50, 0, 10000, 1)
	b.Point.Column = "b"
	b.Server = &result.Server{CPUMsPerRequest: 0.5}
	got := EvaluateClaims(m, []Record{a, b})
	want := map[string]string{
		"rate":    NotMeasured + ": Apache at static c=10: 100% of requests failed (HTTP 5xx)",
		"errors":  Differs,
		"slowest": Holds,
		"cpu":     Holds,
	}
	for _, r := range got {
		v := r.Verdict
		if r.Verdict == NotMeasured {
			v += ": " + r.How
		}
		if w := strings.Replace(want[r.ID], "Apache", "a", 1); v != w {
			t.Errorf("%s: %q, want %q", r.ID, v, w)
		}
	}
	m.Machine = &MachineInfo{SharedWith: "the load generator"}
	for _, r := range EvaluateClaims(m, []Record{a, b}) {
		if r.ID == "cpu" && (r.Verdict != NotMeasured || !strings.Contains(r.How, "shared its machine with the load generator")) {
			t.Errorf("a claim on the machine's CPU on a shared machine: %s (%s)", r.Verdict, r.How)
		}
	}
}

// A crowd measures a full server: its newcomers and clicks timing out is
// its figure, not the bench's; a server that answered nothing, or
// connections failing on the load generator's side, is.
func TestCrowdBenchLimit(t *testing.T) {
	crowd := func(probeOK, probeTimeout, bgOK, bgTimeout, bgConnErr int64) Record {
		c := &result.Crowd{GaveUp: probeTimeout}
		c.ProbeOutcomes.OK, c.ProbeOutcomes.ReadTimeout = probeOK, probeTimeout
		c.Probes = make([]result.Probe, probeOK+probeTimeout)
		c.Background.Outcomes.OK, c.Background.Outcomes.ReadTimeout, c.Background.Outcomes.ConnectError = bgOK, bgTimeout, bgConnErr
		c.Background.Attempts = bgOK + bgTimeout + bgConnErr
		return Record{Set: result.Set{Crowd: c}}
	}
	for _, tc := range []struct {
		name string
		rec  Record
		want string
	}{
		{"Apache full: 12 of 60 gave up, half the clicks timed out", crowd(48, 12, 500, 500, 0), ""},
		{"nothing answered", crowd(0, 60, 0, 1000, 0), "the server answered no newcomer and no click (read timeout)"},
		{"out of ports", crowd(60, 0, 800, 0, 200), "18.9% of the crowd's connections failed on the load generator's side (connect error)"},
	} {
		if got, _ := BenchLimit(tc.rec, nil); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// linkRec is a 10 s point whose load generator's sockets read in and
// wrote out Mbit/s over the window.
func linkRec(in, out float64) Record {
	rec := runRec(1000, 0, 1000, 500, 0, 10000, 1)
	rec.Run.Bytes.WireIn, rec.Run.Bytes.WireOut = int64(in*1e6/8*10), int64(out*1e6/8*10)
	return rec
}

// kitRec is a kit point whose runs are light but for the one busy sets.
func kitRec(busy func(k *result.Kit)) Record {
	light := func(name string) result.Run {
		return result.Run{Name: name, ElapsedMs: 10000, ClientCPUMs: 500, ClientCPUs: 1, Bytes: result.Bytes{WireIn: 1e6, WireOut: 1e5}}
	}
	k := &result.Kit{Throughput: light("throughput"), Scaling: []result.Run{light("c=1"), light("c=400")},
		KeepAliveOff: light("keepalive-off"), Errors: light("errors")}
	tr := light("transfer")
	k.Transfer = &tr
	k.KeepAliveOn = k.Throughput
	busy(k)
	return Record{Set: result.Set{Kit: k}}
}

// A load generator's link that carried more than MaxLinkPct of the
// bandwidth its machines block states marks the point, per load
// generator, in whichever run; without a stated bandwidth, or on the
// server's own machine (no link), nothing is judged on it. A kit point is
// judged on its load generator's CPU in each of its runs.
func TestLinkLimit(t *testing.T) {
	gig := &MachineInfo{OwnMachine: true, LoadGenLinkMbps: 1000}
	twoGens := func(a, b Record) Record {
		rec := runRec(1000, 0, 1000, 100, 0, 10000, 1)
		rec.Generators = []GeneratorResult{{Host: "lg1", Set: a.Set}, {Host: "lg2", Set: b.Set}}
		return rec
	}
	crowd := func(mbps float64) Record {
		c := &result.Crowd{}
		c.Background = *linkRec(mbps, 0).Run
		return Record{Set: result.Set{Crowd: c}}
	}
	browse := Record{Set: result.Set{Browse: &result.Browse{PageViews: 10, PageViewsOK: 10, ElapsedMs: 10000, ClientCPUMs: 100, ClientCPUs: 1,
		Bytes: result.Bytes{WireIn: 1220e6, WireOut: 20e6}}}}
	for _, tc := range []struct {
		name string
		rec  Record
		mi   *MachineInfo
		want string
	}{
		{"950 Mbit/s of a stated gigabit", linkRec(950, 50), gig, "the load generator's link carried 950 Mbit/s, 95% of its stated 1,000 Mbit/s"},
		{"900 Mbit/s is the limit, not over it", linkRec(900, 50), gig, ""},
		{"just over the limit", linkRec(901, 50), gig, "the load generator's link carried 901 Mbit/s, 90.1% of its stated 1,000 Mbit/s"},
		{"a light link", linkRec(300, 10), gig, ""},
		{"600 Mbit/s each way: a full-duplex link is not full", linkRec(600, 600), gig, ""},
		{"no bandwidth stated: the link is not judged", linkRec(900, 50), &MachineInfo{OwnMachine: true}, ""},
		{"no machine recorded", linkRec(900, 50), nil, ""},
		{"the load generator on the server's machine crosses no link", linkRec(900, 50), &MachineInfo{LoadLocal: true, LoadGenLinkMbps: 1000}, ""},
		{"a stated 10 Gbit/s", linkRec(900, 50), &MachineInfo{OwnMachine: true, LoadGenLinkMbps: 10000}, ""},
		{"lg2's link full, lg1's not", twoGens(linkRec(400, 10), linkRec(970, 10)), gig, "the load generator lg2's link carried 970 Mbit/s, 97% of its stated 1,000 Mbit/s"},
		{"two half-full links", twoGens(linkRec(480, 10), linkRec(480, 10)), gig, ""},
		{"a crowd's clicks", crowd(990), gig, "the load generator's link carried 990 Mbit/s, 99% of its stated 1,000 Mbit/s"},
		{"a browse's page views", browse, gig, "the load generator's link carried 976 Mbit/s, 97.6% of its stated 1,000 Mbit/s"},
		{"a light kit", kitRec(func(*result.Kit) {}), gig, ""},
		{"the kit's transfer filled the link", kitRec(func(k *result.Kit) { k.Transfer.Bytes.WireIn = 1201e6 }), gig,
			"the load generator's link carried 961 Mbit/s, 96.1% of its stated 1,000 Mbit/s in the kit's transfer run"},
		{"the kit's throughput run at the load generator's CPU", kitRec(func(k *result.Kit) { k.Throughput.ClientCPUMs = 9500 }), gig,
			"the load generator was the bottleneck (95% of its CPUs)"},
		{"the kit's c=400 run at the load generator's CPU", kitRec(func(k *result.Kit) { k.Scaling[1].ClientCPUMs = 9800 }), nil,
			"the load generator was the bottleneck (98% of its CPUs) in the kit's c=400 run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, f := BenchLimit(tc.rec, tc.mi)
			if got != tc.want || f {
				t.Errorf("BenchLimit = %q, %v; want %q, false", got, f, tc.want)
			}
		})
	}
}

// A claim on a point whose load generator's link was full reads "not
// measured" with the reason; with no bandwidth stated, it is judged.
func TestClaimOnALinkLimitedPoint(t *testing.T) {
	m := &Manifest{Columns: []Column{{ID: "a", Enabled: true}, {ID: "b", Enabled: true}},
		Scenarios: []Scenario{{Name: "static", Kind: "static"}},
		Machine:   &MachineInfo{OwnMachine: true, LoadGenLinkMbps: 1000},
		Claims:    []Claim{{ID: "rate", Scenario: "static", Visitors: 10, Metric: "rps", Order: []string{"a", "b"}}}}
	a, b := linkRec(300, 10), linkRec(960, 20)
	b.Point.Column = "b"
	b.Run.RPS = 2 * a.Run.RPS
	verdict := func() (string, string) {
		got := EvaluateClaims(m, []Record{a, b})
		if len(got) != 1 {
			t.Fatalf("verdicts: %+v", got)
		}
		return got[0].Verdict, got[0].How
	}
	if v, how := verdict(); v != NotMeasured || how != "b at static c=10: the load generator's link carried 960 Mbit/s, 96% of its stated 1,000 Mbit/s" {
		t.Errorf("a claim on a link-limited point: %s (%s)", v, how)
	}
	m.Machine.LoadGenLinkMbps = 0
	if v, how := verdict(); v != Holds {
		t.Errorf("no bandwidth stated: %s (%s), want %s", v, how, Holds)
	}
}

// A point after which the server was found broken (its PHP pages'
// database not running) is a failure whatever share of its requests
// failed: a claim on its rate is not measured, one on its errors judged;
// where its figures already say why, that reason stands.
func TestBrokenPointIsAFailure(t *testing.T) {
	rec := runRec(1000, 0, 1000, 100, 0, 10000, 1) // every request answered
	if why, _ := BenchLimit(rec, &MachineInfo{OwnMachine: true}); why != "" {
		t.Fatalf("the point before: %q", why)
	}
	rec.Broken = "the database was not running at the point's end"
	why, failures := BenchLimit(rec, &MachineInfo{OwnMachine: true})
	if why != rec.Broken || !failures {
		t.Errorf("BenchLimit = %q, %v; want the broken reason as a failure", why, failures)
	}
	rate, _ := MetricOf("page", "rps")
	errs, _ := MetricOf("page", "error_pct")
	if Unsound(rec, rate, nil) == "" || Unsound(rec, errs, nil) != "" {
		t.Errorf("rate unsound %q, errors unsound %q", Unsound(rec, rate, nil), Unsound(rec, errs, nil))
	}
	rec.Run.Outcomes = result.Outcomes{OK: 500, HTTP5xx: 500}
	if why, _ := BenchLimit(rec, &MachineInfo{OwnMachine: true}); why != "50% of requests failed (HTTP 5xx)" {
		t.Errorf("a broken point whose requests failed: %q, want the failed share", why)
	}
}

// LinkPct is the busiest load generator's link as a share of the stated
// bandwidth, where one is stated and crossed, in every run of the point.
func TestLinkPct(t *testing.T) {
	gig := &MachineInfo{OwnMachine: true, LoadGenLinkMbps: 1000}
	split := runRec(1000, 0, 1000, 100, 0, 10000, 1)
	split.Generators = []GeneratorResult{{Host: "lg1", Set: linkRec(400, 10).Set}, {Host: "lg2", Set: linkRec(970, 10).Set}}
	for _, tc := range []struct {
		name string
		rec  Record
		mi   *MachineInfo
		want float64
		ok   bool
	}{
		{"950 of a stated 1,000 Mbit/s", linkRec(950, 50), gig, 95, true},
		{"the busier way: responses in", linkRec(300, 600), gig, 60, true},
		{"the busiest of two load generators", split, gig, 97, true},
		{"no bandwidth stated", linkRec(950, 50), &MachineInfo{OwnMachine: true}, 0, false},
		{"no machine recorded", linkRec(950, 50), nil, 0, false},
		{"the load on the server's own machine crosses no link", linkRec(950, 50), &MachineInfo{LoadLocal: true, LoadGenLinkMbps: 1000}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := LinkPct(tc.rec, tc.mi)
			if ok != tc.ok || math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("LinkPct = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// A claim on a figure of the bench's own link (Metric.Bench: the link's
// share) is judged on the point whose link set the pace, since it says
// how; not where the load generator's CPUs or failed requests set it
// first (its link's share then says nothing of the network), nor where
// the sockets carried more than the stated bandwidth (the statement is
// not the link's). A claim on the server's figure is judged on none.
func TestBenchFigureJudgedWhereTheLinkSetThePace(t *testing.T) {
	mi := &MachineInfo{OwnMachine: true, LoadGenLinkMbps: 1000}
	link := Metric{Name: "link_pct", Bench: true}
	full := linkRec(960, 20)
	cpu := linkRec(700, 20)
	cpu.Run.ClientCPUMs, cpu.Run.ClientCPUs = 9700, 1
	failing := linkRec(960, 20)
	failing.Run.Outcomes.OK, failing.Run.Outcomes.HTTP5xx = 300, 700
	for _, tc := range []struct {
		name     string
		rec      Record
		mt       Metric
		unsound  string // "": judged
		measured bool   // the point measured the bench at all
	}{
		{"the link full: its share is judged", full, link, "", true},
		{"the link full: the server's rate is not", full, Metric{Name: "rps"}, "the load generator's link carried 960 Mbit/s", true},
		{"the load generator's CPUs set the pace", cpu, link, "the load generator was the bottleneck (97% of its CPUs)", true},
		{"most requests failed", failing, link, "70% of requests failed", true},
		{"more than the stated bandwidth", linkRec(1400, 20), link, "carried more than all of the 1,000 Mbit/s stated for its link: the stated bandwidth is below what the link carried", true},
		{"a light link: judged", linkRec(300, 20), link, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if why, _ := BenchLimit(tc.rec, mi); (why != "") != tc.measured {
				t.Fatalf("BenchLimit %q: the test says nothing", why)
			}
			got := Unsound(tc.rec, tc.mt, mi)
			if (tc.unsound == "") != (got == "") || !strings.Contains(got, tc.unsound) {
				t.Errorf("Unsound = %q, want %q", got, tc.unsound)
			}
		})
	}
}
