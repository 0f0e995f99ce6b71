package experiment_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/wptest/wptest/results"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/hdr"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/internal/testenv/baked"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/cloud/static"
	"github.com/wptest/wptest/report"
)

// The scale issue's must-show for several load generators: on three
// Debian hosts (made from the shipped servers' image, baked.Servers, which
// has Debian's nginx: a server running it, two load generators, all
// from the static driver with pinned host keys), a page run and a crowd are
// split across both generators, each running `wptest bench-job`. Merged
// attempts are the sum of the generators'; the merged percentiles are those
// of one histogram of all their samples (their raw histograms, read back
// from results.jsonl); nginx's log shows each generator's requests from its
// own address; the report shows each generator's line and the merged one.
func TestSplitLoadOverTwoBareLoadGenerators(t *testing.T) {
	t.Parallel()           // hosts from the servers' image: runs after the package's other tests, which run while it bakes
	testenv.Integration(t) // three bare hosts and nginx: about a minute
	hs := baked.Hosts(t, baked.Servers, "srv", "lg1", "lg2")
	exe := buildWptest(t)
	startNginx(t, hs[0])
	runDir := t.TempDir()
	plan, err := static.Static{}.Plan(context.Background(), cloud.Spec{Run: cloud.Run{Dir: runDir},
		Machines: cloud.Machines{Targets: []string{hs[0].Target, hs[1].Target, hs[2].Target}, KnownHosts: hs[0].KnownHosts, IdentityFile: hs[0].Identity}})
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
	lo, err := experiment.NewLoadOnly(ctx, runDir, exe, log, splitSpec(), ms, hs[0].IP)
	if err != nil {
		t.Fatal(err)
	}
	defer lo.Close()

	page, err := lo.Measure(ctx, results.Point{Key: "r1/nginx/page/c=5", Rep: 1, Column: "nginx", Profile: "nginx", Scenario: "page", Kind: "page", Step: "c=5", Visitors: 5})
	if err != nil {
		t.Fatalf("page: %v\n%s", err, log.String())
	}
	crowd, err := lo.Measure(ctx, results.Point{Key: "r1/nginx/crowd/c=7", Rep: 1, Column: "nginx", Profile: "nginx", Scenario: "crowd", Kind: "crowd", Step: "c=7", Visitors: 7})
	if err != nil {
		t.Fatalf("crowd: %v\n%s", err, log.String())
	}
	if err := lo.Write([]results.Record{page, crowd}); err != nil {
		t.Fatal(err)
	}
	recs, err := results.ReadResults(runDir) // what a reader of the run gets, raw histograms through JSON
	if err != nil || len(recs) != 2 {
		t.Fatalf("%d records: %v", len(recs), err)
	}
	checkSplitPage(t, recs[0])
	checkSplitCrowd(t, recs[1])
	checkNginxSawBoth(t, hs, recs[0])
	checkSplitReport(t, runDir, recs[0], recs[1], "Debian's nginx")
	if t.Failed() {
		t.Logf("log:\n%s", log.String())
	}
}

func splitSpec() *experiment.Spec {
	return &experiment.Spec{Name: "split", Repetitions: 1, HTTPPort: 80, HTTPSPort: 443,
		Columns: []results.Column{{ID: "nginx", Profile: "nginx", Label: "Debian's nginx", Enabled: true}},
		Scenarios: []results.Scenario{
			{Name: "page", Kind: "page", Path: "/page.html", Visitors: []int{5}, Duration: 1500 * time.Millisecond, Warmup: 300 * time.Millisecond, KeepAlive: true, Proto: "h1"},
			{Name: "crowd", Kind: "crowd", Path: "/page.html", Visitors: []int{7}, Duration: time.Second, Warmup: 300 * time.Millisecond, Proto: "h1",
				Own: json.RawMessage(`{"click_every":300000000,"probe_every":100000000,"give_up":5000000000}`)},
		}}
}

// startNginx installs Debian's nginx on h (through the apt proxy) unless
// its image has it, with a page to load, and starts it.
func startNginx(t *testing.T, bh *testenv.BareHost) {
	t.Helper()
	h := openBare(t, bh)
	defer h.Close()
	script := `set -e
printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d
dpkg-query -W -f='${db:Status-Status}' nginx 2>/dev/null | grep -qx installed || {
  apt-get -q update >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends nginx >/dev/null
}
head -c 3000 /dev/zero | tr '\0' x > /var/www/html/page.html
nginx`
	if _, err := h.Run(context.Background(), host.Cmd{Script: script, Label: "install nginx", Timeout: 10 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, time.Minute, "nginx on "+bh.Name, func() bool {
		resp, err := http.Get("http://" + bh.IP + "/page.html")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
}

func openBare(t *testing.T, bh *testenv.BareHost) host.Host {
	t.Helper()
	tg, err := host.ParseTarget(bh.Target)
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Open(context.Background(), tg, host.Options{KnownHostsFile: bh.KnownHosts, IdentityFile: bh.Identity})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// merged is one histogram of every generator's samples.
func merged(t *testing.T, hs ...*hdr.Histogram) result.Latency {
	t.Helper()
	all := hdr.New()
	for _, h := range hs {
		if h == nil {
			t.Fatal("a generator's raw histogram did not come back")
		}
		all.Merge(h)
	}
	return benchgen.Summary(all, true)
}

func checkSplitPage(t *testing.T, rec results.Record) {
	t.Helper()
	if rec.Split != "5 visitors over 2 load generators: 3 + 2" || len(rec.Generators) != 2 || rec.LoadHost != "loadgen-1+loadgen-2" {
		t.Fatalf("page: split %q, %d generators, load host %q", rec.Split, len(rec.Generators), rec.LoadHost)
	}
	var attempts, ok int64
	var raws []*hdr.Histogram
	for i, g := range rec.Generators {
		if g.Host != fmt.Sprintf("loadgen-%d", i+1) || g.Run == nil || g.Run.Raw == nil || g.Run.Visitors != []int{3, 2}[i] || g.Run.Outcomes.OK == 0 {
			t.Fatalf("page generator %d: %+v", i+1, g)
		}
		attempts += g.Run.Attempts
		ok += g.Run.Outcomes.OK
		raws = append(raws, g.Run.Raw.Latency)
	}
	m := rec.Run
	want := merged(t, raws...)
	if m.Attempts != attempts || m.Outcomes.OK != ok || m.Outcomes.Sum() != m.Attempts || m.Visitors != 5 {
		t.Errorf("page merged: attempts %d (generators %d), ok %d (%d), visitors %d", m.Attempts, attempts, m.Outcomes.OK, ok, m.Visitors)
	}
	if m.Latency.Count != want.Count || m.Latency.P50 != want.P50 || m.Latency.P99 != want.P99 || m.Latency.Max != want.Max {
		t.Errorf("page merged latency %+v, one histogram of all samples %+v", m.Latency, want)
	}
	if m.Raw != nil {
		t.Errorf("the merged run stores its histograms again")
	}
	t.Logf("page: %s; attempts %d = %d + %d; p50 %.3f ms, p99 %.3f ms; starts %s, %s (merged %s)", rec.Split, m.Attempts,
		rec.Generators[0].Run.Attempts, rec.Generators[1].Run.Attempts, m.Latency.P50, m.Latency.P99,
		rec.Generators[0].Run.Start, rec.Generators[1].Run.Start, m.Start)
}

func checkSplitCrowd(t *testing.T, rec results.Record) {
	t.Helper()
	if rec.Split != "7 visitors over 2 load generators: 4 + 3" || len(rec.Generators) != 2 {
		t.Fatalf("crowd: split %q, %d generators", rec.Split, len(rec.Generators))
	}
	var attempts int64
	var bg, waits []*hdr.Histogram
	for i, g := range rec.Generators {
		c := g.Crowd
		if c == nil || c.Raw == nil || c.Background.Raw == nil || c.Visitors != []int{4, 3}[i] || len(c.Probes) != 5 {
			t.Fatalf("crowd generator %d: %+v", i+1, g)
		}
		attempts += c.Background.Attempts
		bg, waits = append(bg, c.Background.Raw.Latency), append(waits, c.Raw.Wait)
	}
	m := rec.Crowd
	if m.Background.Attempts != attempts || m.Visitors != 7 || len(m.Probes) != 10 || m.ProbeOutcomes.OK != 10 {
		t.Errorf("crowd merged: background attempts %d (generators %d), visitors %d, %d probes, %d answered", m.Background.Attempts, attempts, m.Visitors, len(m.Probes), m.ProbeOutcomes.OK)
	}
	for k, p := range m.Probes {
		if p.At != float64(100*k) {
			t.Errorf("newcomer %d at %v ms, want %d: the generators did not take turns", k, p.At, 100*k)
		}
	}
	// The generators waited for each other: the whole crowd, both shares,
	// on the site from before the first newcomer to after the last.
	if w := m.Window; w == nil || !(w.CompleteMs <= w.FirstProbeMs && w.FirstProbeMs < w.LastProbeEndMs && w.LastProbeEndMs <= w.StoppedMs) {
		t.Errorf("crowd merged: window out of order: %+v", w)
	}
	wb, ww := merged(t, bg...), merged(t, waits...)
	if m.Background.Latency.P50 != wb.P50 || m.Background.Latency.P99 != wb.P99 || m.Wait.P50 != ww.P50 || m.Wait.P99 != ww.P99 || m.Wait.Count != 10 {
		t.Errorf("crowd merged: background %+v want %+v; wait %+v want %+v", m.Background.Latency, wb, m.Wait, ww)
	}
	t.Logf("crowd: %s; background attempts %d; wait p50 %.3f ms, p99 %.3f ms", rec.Split, m.Background.Attempts, m.Wait.P50, m.Wait.P99)
}

// checkNginxSawBoth counts nginx's log lines for the page per client
// address: each generator's share came from its own machine.
func checkNginxSawBoth(t *testing.T, hs []*testenv.BareHost, page results.Record) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(hs[0].Root, "var/log/nginx/access.log"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int64{}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 6 && f[6] == "/page.html" {
			seen[f[0]]++
		}
	}
	for i, g := range page.Generators {
		if seen[hs[i+1].IP] == 0 {
			t.Errorf("nginx saw no request from %s (%s), which made %d attempts", g.Host, hs[i+1].IP, g.Run.Attempts)
		}
	}
}

func checkSplitReport(t *testing.T, dir string, p, c results.Record, label string) {
	t.Helper()
	if _, err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"Each load run was split between these 2 load generators",
		"Load generator loadgen-1 (its own machine)", "Load generator loadgen-2 (its own machine)",
		fmt.Sprintf("| %s, c=5, rep 1 | loadgen-1 | 3 | %s |", label, commaInt(p.Generators[0].Run.Attempts)),
		fmt.Sprintf("| %s, c=5, rep 1 | loadgen-2 | 2 | %s |", label, commaInt(p.Generators[1].Run.Attempts)),
		fmt.Sprintf("| %s, c=5, rep 1 | merged | 5 | %s |", label, commaInt(p.Run.Attempts)),
		fmt.Sprintf("| %s, c=7, rep 1 | loadgen-1 | 4 | %s | 5 |", label, commaInt(c.Generators[0].Crowd.Background.Attempts)),
		fmt.Sprintf("| %s, c=7, rep 1 | merged | 7 | %s | 10 |", label, commaInt(c.Crowd.Background.Attempts)),
	} {
		if !bytes.Contains(md, []byte(w)) {
			t.Errorf("report.md lacks %q", w)
		}
	}
	if t.Failed() {
		t.Logf("report.md:\n%s", md)
		return
	}
	var rows []string
	for _, l := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(l, "| "+label+", c=") || strings.HasPrefix(l, "| point | load generator |") {
			rows = append(rows, l)
		}
	}
	t.Logf("the report's load generator tables:\n%s", strings.Join(rows, "\n"))
}

func commaInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
