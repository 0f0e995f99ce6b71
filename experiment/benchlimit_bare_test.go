package experiment_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/cloud/static"
	"github.com/wptest/wptest/results"
)

// A point that measured the bench is marked and no claim is judged on it,
// on a load generator as the netns driver makes one (a CPU of its own):
//   - a light load is not marked;
//   - the same load generator flooding a fast server while four busy loops
//     share its CPU is: it used under 90% of its CPU itself, but it waited
//     for the rest, which is what "the load generator was the bottleneck"
//     means.
//
// The claim on it reads "not measured" with the reason. (A point whose
// requests failed, WordPress's database stopped mid-point, is shown by a
// real run: TestRunOnBareHostsWithTheDatabaseStoppedMidPoint.)
func TestPointsThatMeasuredTheBenchOnBareHosts(t *testing.T) {
	testenv.Integration(t)
	server, load := testenv.SplitCPUs(t)
	// The first is the server's place in the machines (the static driver's
	// first target); the Go server in this process answers for it.
	hs := testenv.BareHostsLimited(t, testenv.BareSpec{Name: "srv", CPUs: server}, testenv.BareSpec{Name: "lg", CPUs: load[:1]})
	exe := buildWptest(t)
	mux := http.NewServeMux()
	page := strings.Repeat("x", 3000)
	mux.HandleFunc("/light", func(w http.ResponseWriter, r *http.Request) { time.Sleep(20 * time.Millisecond); fmt.Fprint(w, page) })
	mux.HandleFunc("/fast", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, page) })
	ln, err := net.Listen("tcp", net.JoinHostPort(hs[1].Gateway, "0")) // this machine on the load generator's link
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	port := ln.Addr().(*net.TCPAddr).Port

	sc := func(name, path string, visitors int) results.Scenario {
		return results.Scenario{Name: name, Kind: "static", Path: path, Visitors: []int{visitors}, Duration: 2 * time.Second,
			Warmup: 300 * time.Millisecond, KeepAlive: true, Proto: "h1", Timeout: 5 * time.Second}
	}
	sp := &experiment.Spec{Name: "bench-limit", Repetitions: 1, HTTPPort: port, HTTPSPort: 443,
		Columns:   []results.Column{{ID: "go", Profile: "go", Label: "a Go server", Enabled: true}},
		Scenarios: []results.Scenario{sc("light", "/light", 2), sc("flood", "/fast", 20)}}
	runDir := t.TempDir()
	plan, err := static.Static{}.Plan(context.Background(), cloud.Spec{Run: cloud.Run{Dir: runDir},
		Machines: cloud.Machines{Targets: []string{hs[0].Target, hs[1].Target}, KnownHosts: hs[0].KnownHosts, IdentityFile: hs[0].Identity}})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := static.Static{}.Create(context.Background(), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	log := &testenv.SyncBuffer{}
	lo, err := experiment.NewLoadOnly(ctx, runDir, exe, log, sp, ms, hs[1].Gateway)
	if err != nil {
		t.Fatal(err)
	}
	defer lo.Close()
	measure := func(name string, visitors int) results.Record {
		t.Helper()
		step := fmt.Sprintf("c=%d", visitors)
		rec, err := lo.Measure(ctx, results.Point{Key: "r1/go/" + name + "/" + step, Rep: 1, Column: "go", Profile: "go", Scenario: name, Kind: "static", Step: step, Visitors: visitors})
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, log.String())
		}
		return rec
	}
	mi := &results.MachineInfo{OwnMachine: true} // the load generator has its CPU to itself: its waits count
	// A light load reads unmarked. Its CPU is its own among the machines,
	// not among the other tests' processes on this machine: a window in
	// which they ran on it is rightly marked (it waited), so the test
	// measures again, up to five times, for a window of its own.
	var marks []string
	var light results.Record
	for len(marks) < 5 {
		light = measure("light", 2)
		why, _ := results.BenchLimit(light, mi)
		if why == "" && light.Run.ClientCPUs == 1 {
			break
		}
		marks = append(marks, fmt.Sprintf("marked %q (%d CPUs, %.0f ms CPU, %.0f ms waited, %.0f ms, %d attempts %+v %+v %s)", why, light.Run.ClientCPUs, light.Run.ClientCPUMs, light.Run.ClientWaitMs, light.Run.ElapsedMs, light.Run.Attempts, light.Run.Outcomes, light.Run.Errors, light.Run.URL))
		if light.Run.ClientCPUs != 1 || strings.Contains(why, "% of its CPUs") {
			break // not the neighbours' doing: its own CPU use, or not its CPU
		}
	}
	if len(marks) == 5 || len(marks) > 0 && !strings.Contains(marks[len(marks)-1], "waited for its CPUs") {
		t.Fatalf("a light load on a CPU of its own:\n%s", strings.Join(marks, "\n"))
	}
	if len(marks) > 0 {
		t.Logf("a light load read unmarked after %d window(s) in which other processes ran on its CPU:\n%s", len(marks), strings.Join(marks, "\n"))
	}

	lg := openBare(t, hs[1])
	if _, err := lg.Run(ctx, host.Cmd{Label: "busy loops", Timeout: time.Minute,
		Script: `for i in 1 2 3 4; do timeout 120 sh -c 'while :; do :; done' </dev/null >/dev/null 2>&1 & echo $! >> /tmp/busy.pids; done`}); err != nil {
		t.Fatal(err)
	}
	flood := measure("flood", 20)
	if _, err := lg.Run(ctx, host.Cmd{Label: "stop the busy loops", Timeout: time.Minute, Script: `kill $(cat /tmp/busy.pids) && rm /tmp/busy.pids`}); err != nil {
		t.Fatal(err)
	}
	why, _ := results.BenchLimit(flood, mi)
	own := 100 * flood.Run.ClientCPUMs / (flood.Run.ElapsedMs * float64(flood.Run.ClientCPUs))
	t.Logf("starved: own CPU %.0f%%, waited %.0f ms of %.0f ms: %q", own, flood.Run.ClientWaitMs, flood.Run.ElapsedMs, why)
	if !strings.HasPrefix(why, "the load generator was the bottleneck") {
		t.Errorf("a load generator sharing its CPU with four busy loops is not marked: %q", why)
	}
	if own >= results.MaxLoadPct {
		t.Errorf("its own CPU (%.0f%%) marked it, not its waits: the test does not show starvation", own)
	}

	m := &results.Manifest{Columns: sp.Columns, Scenarios: sp.Scenarios, Machine: mi, Claims: []results.Claim{
		{ID: "flood-rate", Scenario: "flood", Visitors: 20, Metric: "rps", Unit: "req/s", Columns: []string{"go"}, AtLeast: &results.Figure{Text: "1 req/s", Value: 1}},
	}}
	got := results.EvaluateClaims(m, []results.Record{light, flood})
	for i, want := range []string{results.NotMeasured + ": a Go server at flood c=20: " + why} {
		v := got[i].Verdict
		if v == results.NotMeasured {
			v += ": " + got[i].How
		}
		if v != want {
			t.Errorf("claim %s: %q, want %q", got[i].ID, v, want)
		}
	}
	if t.Failed() {
		t.Logf("log:\n%s", log.String())
	}
}
