package transfer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/internal/testenv/baked"
	"github.com/wptest/wptest/report"
	"github.com/wptest/wptest/results"
)

// bareHCL is a run on two bare hosts: the first the server (Caddy, the
// minimal fixture), the second the load generator, whose link the test
// limits to 100 Mbit/s and the machines block states at 98 Mbit/s: above
// what its sockets can carry (TCP/IP's and Ethernet's headers take 4%),
// so a share over all of it, which says the statement is wrong, cannot
// come of the headers.
const bareHCL = `
experiment "transfer" {
  repetitions = 1
  warmup      = "300ms"
  http_port   = 80
  https_port  = 443
}

machines "static" {
  targets                  = [%q, %q]
  load_generator_link_mbps = 98
}

fixture "minimal" {
  seed = 1
}

profile "caddy" {}

scenario "download" {
  kind     = "transfer"
  visitors = [1, 2]
  duration = "3s"
  warmup   = "500ms"
}

scenario "image" {
  kind     = "transfer"
  path     = "/wptest-105k.bin"
  visitors = [2]
  duration = "3s"
  warmup   = "500ms"
}

claim "link-full" {
  source   = "this test"
  quote    = "from 2 visitors on, the numbers describe the link rather than the server"
  scenario = "download"
  visitors = 2
  metric   = "link_pct"
  columns  = ["caddy"]
  at_least = "90 %%"
  contradiction "the link carried half of it" {
    metric   = "link_pct"
    measured = { caddy = "50 %%" }
  }
}
`

// `wptest run` of transfer scenarios, as a user runs one, on two Debian
// hosts made from the shipped servers' image (the server, Caddy applied
// and the site seeded by the run; the load from the second host) whose
// link carries 100 Mbit/s (a token bucket on the server's side): each
// probe got the site's file whole (1,048,576 and 107,520 bytes), each
// point's rate is its bodies over its window, the link's share is its
// wire over the stated 98 Mbit/s, over 90% and under all of it: every
// point measured the
// link, `run` exits 6 and says so, its claim on the link holds. Had the
// link been stated at 10 Tbit/s, the same records judge it not full: the
// claim differs and the rates are figures of the server.
func TestTransferOnBareHosts(t *testing.T) {
	t.Parallel()
	testenv.Integration(t) // two bare hosts, an apply and a seed: about a minute
	hs := baked.Hosts(t, baked.Servers, "server", "loadgen")
	if err := hs[0].LimitSendTo(hs[1], 100); err != nil {
		t.Fatal(err)
	}
	exe := testenv.WptestBinary(t)
	work := t.TempDir()
	file := filepath.Join(work, "transfer.hcl")
	if err := os.WriteFile(file, fmt.Appendf(nil, bareHCL, hs[0].Target, hs[1].Target), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	runs := filepath.Join(work, "runs")
	cmd := exec.CommandContext(ctx, exe, "run", file, "--runs", runs, "--known-hosts", hs[0].KnownHosts, "--identity", hs[0].Identity)
	cmd.Dir = work
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	es, _ := os.ReadDir(runs)
	if len(es) != 1 {
		t.Fatalf("%d run directories; wptest run: %v\n%s", len(es), err, stderr.String())
	}
	dir := filepath.Join(runs, es[0].Name())
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitcode.Load {
		t.Fatalf("wptest run: %v, want exit %d (every point measured the link)\n%s", err, exitcode.Load, stderr.String())
	}
	if !strings.Contains(stderr.String(), "transfer rate (MB/s) ") || !strings.Contains(stderr.String(), "measured the bench, not the server: the load generator's link carried ") {
		t.Errorf("stderr shows no point's rate and why it measured the link:\n%s", stderr.String())
	}
	recs, err := results.ReadResults(dir)
	if err != nil || len(recs) != 3 {
		t.Fatalf("%d records, %v; want 3 (download at 1 and 2 visitors, the image at 2)", len(recs), err)
	}
	man, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if man.Machine == nil || man.Machine.LoadGenLinkMbps != 98 || man.Machine.LoadLocal {
		t.Fatalf("manifest machine %+v: want the load generator's link stated at 98 Mbit/s", man.Machine)
	}
	size := map[string]int64{"download": 1 << 20, "image": 105 << 10}
	for _, rec := range recs {
		checkPoint(t, rec, size[rec.Scenario], man.Machine)
	}
	verdict(t, dir, results.Holds)

	// The same records, had the machines block stated 10 Tbit/s.
	man.Machine.LoadGenLinkMbps = 10_000_000
	if err := man.Write(dir); err != nil {
		t.Fatal(err)
	}
	verdict(t, dir, results.Differs)
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(md), "| c=2: transfer rate (MB/s) | bench |") || !strings.Contains(string(md), "| c=2: transfer rate (MB/s) | ") {
		t.Errorf("with a link it did not fill, the rate at 2 visitors is not the server's figure:\n%s", md)
	}
}

// checkPoint: the probe got the file whole; the rate is the bodies over
// the window; the link's share is the wire over the stated bandwidth, and
// over 90%.
func checkPoint(t *testing.T, rec results.Record, size int64, mi *results.MachineInfo) {
	t.Helper()
	r := rec.Run
	if r == nil || rec.Probe == nil || rec.LoadHost != "loadgen-1" {
		t.Fatalf("%s: run %v, probe %v, from %q", rec.Key, r, rec.Probe, rec.LoadHost)
	}
	if rec.Probe.BodyBytes != size || rec.Probe.Status != 200 {
		t.Errorf("%s: the probe got %d bytes (status %d), want the file's %d", rec.Key, rec.Probe.BodyBytes, rec.Probe.Status, size)
	}
	if r.Outcomes.OK == 0 || r.Outcomes.OK != r.Attempts || r.Bytes.Body < r.Outcomes.OK*size {
		t.Errorf("%s: %d answered of %d, %d body bytes: want every answer the file's %d bytes", rec.Key, r.Outcomes.OK, r.Attempts, r.Bytes.Body, size)
	}
	fig := func(key string) float64 {
		m, _ := results.MetricOf(rec.Kind, key)
		v, ok := m.Of(mi)(rec)
		if !ok {
			t.Errorf("%s: no %s", rec.Key, key)
		}
		return v
	}
	if got, want := fig("mb_s"), float64(r.Bytes.Body)/(r.ElapsedMs/1000)/1e6; got != want || got <= 0 {
		t.Errorf("%s: mb_s %v, want %v", rec.Key, got, want)
	}
	if got, want := fig("link_pct"), 100*(float64(max(r.Bytes.WireIn, r.Bytes.WireOut))*8/(r.ElapsedMs*1000))/98; got != want || got <= results.MaxLinkPct || got > 100 {
		t.Errorf("%s: link_pct %v, want %v, over %v and under 100", rec.Key, got, want, results.MaxLinkPct)
	}
	t.Logf("%s: %.1f MB/s, the link %.1f%% of its stated 98 Mbit/s", rec.Key, fig("mb_s"), fig("link_pct"))
	if why, _ := results.BenchLimit(rec, mi); !strings.Contains(why, "the load generator's link carried ") {
		t.Errorf("%s: bench limit %q, want the link's", rec.Key, why)
	}
}

// verdict writes dir's report and checks its one claim's verdict.
func verdict(t *testing.T, dir, want string) {
	t.Helper()
	out, err := report.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out.Claims)
	if err != nil {
		t.Fatal(err)
	}
	var tab report.ClaimsTable
	if err := json.Unmarshal(b, &tab); err != nil || len(tab.Claims) != 1 || tab.Claims[0].Verdict != want {
		t.Errorf("claims.json: %s, %v; want the link claim to read %q", b, err, want)
	}
}
