package experiment_test

import (
	"bytes"
	"context"
	"fmt"
	"github.com/wptest/wptest/results"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/internal/testenv/baked"
)

const remoteLoadHCL = `
experiment "remote-load" {
  description = "the static driver's second target makes the load"
  repetitions = 1
  warmup      = "500ms"
  http_port   = 80
  https_port  = 443
}

machines "static" {
  targets = [%q, %q, %q]
}

variable "ruid2_source_url" {
  default = ""
}

fixture "minimal" {
  seed = 1
}

profile "cpanel-apache" {
  vars = { ruid2_source_url = var.ruid2_source_url }
}

profile "tuned-apache" {}

profile "caddy" {}

profile "nginx" {
  label = "nginx (added by its folder only)"
}

scenario "page" {
  kind     = "page"
  path     = "/"
  gzip     = true
  visitors = [2]
  requests = 10
  duration = "0s"
  warmup   = "500ms"
}

scenario "static" {
  kind     = "static"
  path     = "/wptest-probe.js"
  visitors = [4]
  duration = "1s"
  warmup   = "200ms"
}

# HTTP/2 over TLS: cPanel's Apache declares h1 only, so its point is n/a.
scenario "static-h2" {
  kind     = "static"
  path     = "/wptest-probe.js"
  proto    = "h2"
  visitors = [2]
  duration = "500ms"
  warmup   = "100ms"
}

scenario "crowd" {
  kind        = "crowd"
  path        = "/wptest-probe.js"
  visitors    = [10]
  click_every = "500ms"
  probe_every = "250ms"
  give_up     = "5s"
  duration    = "1s"
  warmup      = "500ms"
}

# Split between the two load generators in shares the test knows (3 + 2
# visitors; 4 + 3, newcomers in turns), on one column.
scenario "split-page" {
  kind     = "page"
  path     = "/wptest-probe.js"
  visitors = [5]
  duration = "1s"
  warmup   = "300ms"
  columns  = ["tuned-apache"]
}

scenario "split-crowd" {
  kind        = "crowd"
  path        = "/wptest-probe.js"
  visitors    = [7]
  click_every = "300ms"
  probe_every = "100ms"
  give_up     = "5s"
  duration    = "1s"
  warmup      = "300ms"
  columns     = ["tuned-apache"]
}

scenario "kit" {
  kind          = "kit"
  path          = "/wptest-probe.js"
  visitors      = [4]
  levels        = [1, 4]
  error_clients = 8
  duration      = "500ms"
  warmup        = "100ms"
}
`

// `wptest run` of an experiment with a machines "static" block on three
// Debian hosts (no systemd; made from the shipped servers' image,
// baked.Servers: their packages there, nothing configured; what `up`
// installs is proved from the bare rootfs in cmd/wptest/cli's
// TestBareHostUpSeedSwap), as a user runs it, with nothing done by hand: the
// first is the server (each profile but corehttpd, PHP, MariaDB, WordPress,
// the fixture, srvstat), the second the load generator. Every point's load
// ran as `wptest bench-job` on the load generator (its progress relayed
// under its name), every record and the manifest name it, and the kit's
// startup was measured on the server by its agent binary. The time of each
// stage is logged.
func TestRunOnBareHostsLoadsFromTheStaticLoadGenerator(t *testing.T) {
	t.Parallel()           // hosts from the servers' image: runs after the package's other tests, which run while it bakes
	testenv.Integration(t) // a real run of several minutes
	hs := baked.Hosts(t, baked.Servers, "server", "loadgen", "loadgen2")
	exe := buildWptest(t)
	work := t.TempDir()
	putOnHost(t, hs[0], testenv.Ruid2Source(t), "/root/mod_ruid2.c")
	file := filepath.Join(work, "remote-load.hcl")
	src := fmt.Sprintf(remoteLoadHCL, hs[0].Target, hs[1].Target, hs[2].Target)
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	runs := filepath.Join(work, "runs")
	cmd := exec.CommandContext(ctx, exe, "run", file, "--runs", runs, "--known-hosts", hs[0].KnownHosts, "--identity", hs[0].Identity,
		"-var", "ruid2_source_url=file:///root/mod_ruid2.c")
	cmd.Dir = work
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	err := cmd.Run()
	es, _ := os.ReadDir(runs)
	if len(es) != 1 {
		t.Fatalf("%d run directories; wptest run: %v\n%s", len(es), err, lastLines(stderr.String(), 60))
	}
	dir := filepath.Join(runs, es[0].Name())
	if err != nil {
		dumpResults(t, dir)
		t.Fatalf("wptest run: %v\n%s", err, lastLines(stderr.String(), 60))
	}
	t.Logf("run took %.0fs", time.Since(t0).Seconds())
	// The host commands and the load generators' lines are the run's
	// detail: in its log.txt, not on stderr.
	logTxt, err := os.ReadFile(filepath.Join(dir, results.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	log := string(logTxt)

	recs, err := results.ReadResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 22 {
		t.Fatalf("%d records, want 22 (4 profiles x 5 scenarios, and 2 split scenarios on one)", len(recs))
	}
	byScenario := map[string]results.Record{}
	for _, r := range recs {
		// The one point whose protocol the profile does not declare.
		if na := r.Column == "cpanel-apache" && r.Scenario == "static-h2"; na != (r.NotApplicable != "") {
			t.Errorf("%s: not applicable %q", r.Key, r.NotApplicable)
		}
		if r.NotApplicable != "" {
			if r.Run != nil || r.Server != nil || !strings.Contains(r.NotApplicable, "cpanel-apache does not serve h2: asked over h2, the server ") {
				t.Errorf("%s: n/a point %+v", r.Key, r)
			}
			continue
		}
		byScenario[r.Scenario] = r
		// The kit runs on the first load generator; everything else is
		// split between both.
		if want := map[bool]string{true: "loadgen-1", false: "loadgen-1+loadgen-2"}[r.Kit != nil]; r.LoadHost != want {
			t.Errorf("%s: load_host %q, want %s", r.Key, r.LoadHost, want)
		}
		if r.Server == nil || r.ServerCPUMsPerReq <= 0 {
			t.Errorf("%s: no server-side samples joined (server %v, cpu/req %v)", r.Key, r.Server, r.ServerCPUMsPerReq)
		}
		switch {
		case r.Run != nil:
			if r.Run.Outcomes.Sum() != r.Run.Attempts || r.Run.Outcomes.OK == 0 {
				t.Errorf("%s: outcomes %+v, attempts %d", r.Key, r.Run.Outcomes, r.Run.Attempts)
			}
		case r.Crowd != nil:
			b := r.Crowd.Background
			if b.Outcomes.Sum() != b.Attempts || b.Outcomes.OK == 0 || r.Scenario == "crowd" && (len(r.Crowd.Probes) != 4 || r.Crowd.ProbeOutcomes.OK != 4) {
				t.Errorf("%s: crowd %+v", r.Key, r.Crowd)
			}
		case r.Kit != nil:
			k := r.Kit
			if k.Startup == nil || len(k.Startup.Rounds) != 3 || !reflect.DeepEqual(k.Server, r.Server) || k.Throughput.Outcomes.OK == 0 ||
				k.Throughput.Outcomes.Sum() != k.Throughput.Attempts || len(k.Scaling) != 2 {
				t.Errorf("%s: kit startup %+v, server %+v / %+v, throughput %+v", r.Key, k.Startup, k.Server, r.Server, k.Throughput.Outcomes)
			}
		default:
			t.Errorf("%s: no result", r.Key)
		}
	}
	man, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if man.Machine == nil || man.Machine.LoadHost != "loadgen-1+loadgen-2" || man.Machine.LoadLocal ||
		man.LoadMachine == nil || man.LoadMachine.Host != "loadgen-1" || man.LoadMachine.CPUs == 0 ||
		len(man.LoadMachines) != 2 || man.LoadMachines[1].Host != "loadgen-2" || man.LoadMachines[1].CPUs == 0 {
		t.Errorf("manifest: machine %+v, load machine %+v, load machines %+v", man.Machine, man.LoadMachine, man.LoadMachines)
	}
	// The must-show of several load generators, through wptest run: merged
	// attempts are the sum, merged percentiles those of one histogram of
	// all samples, the server's samples joined with the merged window.
	checkSplitPage(t, byScenario["split-page"])
	checkSplitCrowd(t, byScenario["split-crowd"])
	// Both other machines' clocks were measured (bare hosts read this
	// machine's clock: offset 0 within the uncertainty and a bound).
	if len(man.Clocks) != 3 || man.Clocks[0].Host != "server" || man.Clocks[1].Host != "loadgen-1" || man.Clocks[2].Host != "loadgen-2" {
		t.Errorf("manifest clocks %+v, want the server's, loadgen-1's and loadgen-2's", man.Clocks)
	}
	for _, c := range man.Clocks {
		if math.Abs(c.OffsetMs) > c.UncertaintyMs+250 || c.RoundTrips != experiment.ClockRounds {
			t.Errorf("[%s] clock %s (%d round trips) on a host with this machine's clock", c.Host, c, c.RoundTrips)
		}
	}
	for _, w := range []string{
		"[server] clock ",
		"[loadgen-1] clock ",
		"[loadgen-1] wptest load generator (" + experiment.AgentPath + "): ",
		"[loadgen-1] bench-job run c=4: http://" + hs[0].IP + ":80/wptest-probe.js on ",
		"[loadgen-1] bench-job crowd c=10: done after",
		"[loadgen-1] bench-job kit c=4: done after",
		"load c=5: 5 visitors over 2 load generators: 3 + 2; all start at ",
		"[loadgen-2] bench-job run c=5: ", "[loadgen-2] bench-job crowd c=7: done after",
		"[server] bench-job startup c=4! bench-job startup c=4: done after", // on the server, in its host log
	} {
		if !strings.Contains(log, w) {
			t.Errorf("run log lacks %q", w)
		}
	}
	if t.Failed() {
		var l []string
		for _, line := range strings.Split(log, "\n") {
			if !strings.Contains(line, "] host manifest: ") {
				l = append(l, line)
			}
		}
		t.Logf("run log:\n%s", strings.Join(l, "\n"))
	}
	if strings.Contains(log, "wptest down") {
		t.Errorf("the run tells the user to remove machines it was given (wptest down)")
	}
	t.Logf("stages:\n%s", stageLines(log))
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !bytes.Contains(md, []byte(`"load_host": "loadgen-1+loadgen-2"`)) || !bytes.Contains(md, []byte("Load generator loadgen-1 (its own machine)")) {
		t.Errorf("report.md does not name the load host in its manifest and its setup")
	}
	checkSplitReport(t, dir, byScenario["split-page"], byScenario["split-crowd"], "tuned-apache")
	// nginx, named in the file and nothing else, has its column: in the
	// setup (what its server block shows), in the kit's metrics, and n/a
	// only where cPanel's Apache has it.
	for _, w := range []string{"| nginx (added by its folder only) | nginx | nginx version: nginx/", "cpanel-apache does not serve h2: asked over h2, the server "} {
		if !bytes.Contains(md, []byte(w)) {
			t.Errorf("report.md lacks %q", w)
		}
	}
	// The columns' deviations say exactly what differs from the post: the
	// PHP the server runs, when it is not the post's (Debian 12's), and
	// nothing else.
	for _, p := range []string{"cpanel-apache", "tuned-apache", "caddy", "nginx"} {
		cells := columnsRow(string(md), p)
		if len(cells) != 4 {
			t.Errorf("report.md: no Columns row for %s", p)
			continue
		}
		devs := cells[3]
		switch hs[0].Platform {
		case "debian-13":
			if devs != "" {
				t.Errorf("report.md: %s on Debian 13 (the post's PHP) has deviations %q, want none", p, devs)
			}
		default:
			if !regexp.MustCompile(`^PHP 8\.2\.[0-9]+ instead of the post's PHP 8\.4$`).MatchString(devs) {
				t.Errorf("report.md: %s on %s: deviations %q, want the PHP it runs and nothing else", p, hs[0].Platform, devs)
			}
		}
		t.Logf("report.md, %s on %s: deviations %q", p, hs[0].Platform, devs)
	}
	if row := lineWith(string(md), "| 1 | Startup time"); strings.Count(row, "|") != 8 || strings.Contains(row, "–") {
		t.Errorf("the kit's startup row has no number for every column (4 profiles):\n%s", row)
	}
	t.Logf("report.md:\n%s\n%s\n%s\n%s", lineWith(string(md), "| nginx (added"), lineWith(string(md), "| 1 | Startup time"),
		lineWith(string(md), "| 3 | Latency"), lineWith(string(md), "n/a in the tables"))
}

// columnsRow is the cells of the report's Columns table row for profile
// (label, profile, server, deviations).
func columnsRow(md, profile string) []string {
	for _, l := range strings.Split(md, "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(l), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		// The profile cell names the variables the file sets after it
		// ("cpanel-apache, ruid2_source_url = ...").
		if len(cells) == 4 && (cells[1] == profile || strings.HasPrefix(cells[1], profile+", ")) {
			return cells
		}
	}
	return nil
}

// putOnHost copies a local file to a bare host.
func putOnHost(t *testing.T, bh *testenv.BareHost, local, remote string) {
	t.Helper()
	h := openBare(t, bh)
	defer h.Close()
	f, err := os.Open(local)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := h.Put(context.Background(), remote, f, host.PutOptions{Mode: 0o644}); err != nil {
		t.Fatal(err)
	}
}

// stageLines picks the run log's lines that say how long a stage took.
func stageLines(log string) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, " live after ") || strings.Contains(l, " seeded in ") || strings.Contains(l, "fixture verified") ||
			strings.Contains(l, "wptest load generator") || strings.Contains(l, "wptest agent:") || strings.Contains(l, " took ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
