package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/wptest/wptest/results"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/srvstat"
	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// clockShift is how far ahead the server's clock reads in the clock test.
const clockShift = 5 * time.Second

// The scale issue's must-show: on two bare hosts, the server's clock reads
// a known 5 s ahead (libfaketime preloaded for every program there: its
// sshd, shell and date, and the srvstat agent built to read the clock
// through libc), the load generator's is ours. The run measures both
// offsets and records them in the manifest; a burst of CPU on the server
// inside a known window of our clock is all in the corrected join and
// none of it in the join on the uncorrected window; a warm-up shorter
// than the offset fails the run, naming the server.
func TestClockOffsetCorrectsTheJoin(t *testing.T) {
	lib := testenv.LibFaketime(t)
	testenv.NeedBinary(t, "gcc") // the libcclock agent is built with cgo
	hs := testenv.BareHosts(t, "server", "loadgen")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	shiftClock(t, hs[0], lib, clockShift)
	srv, lg := openBare(t, hs[0]), openBare(t, hs[1])
	exe := buildLibcClockAgent(t)
	if _, err := stage.InstallAgent(ctx, srv, exe); err != nil {
		t.Fatal(err)
	}
	err := hostmanifest.Write(ctx, srv, &hostmanifest.Manifest{Schema: hostmanifest.Schema, Profile: "clock-test",
		Groups: []provision.ProcessGroup{{Name: "burn", Exe: []string{"yes"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var log testenv.SyncBuffer
	sp := clockSpec(clockShift + time.Second)
	r := &runner{sp: sp, opt: Options{Exe: exe, Log: &log}, dir: t.TempDir(),
		man: &results.Manifest{Format: results.ManifestFormat, PlanHash: sp.PlanHash(), Sessions: []results.Session{{}}}, srv: &server{h: srv}, lg: &remoteLoad{h: lg, name: "loadgen"}, plan: planOf(sp)}

	if err := r.measureClocks(ctx); err != nil {
		t.Fatalf("measure clocks: %v\n%s", err, log.String())
	}
	t.Logf("run log:\n%s", log.String())
	checkRecordedClocks(t, r, map[string]time.Duration{"server": clockShift, "loadgen": 0})
	if !strings.Contains(log.String(), "[server] clock +5.0") {
		t.Errorf("the run log does not show the server's clock:\n%s", log.String())
	}
	checkJoin(ctx, t, r)

	// A second session (--resume) whose scenario warm-up is shorter than
	// the server's offset: measured again, recorded, and the run stops.
	r.sp = clockSpec(clockShift - 2*time.Second)
	r.plan = planOf(r.sp)
	r.man.Sessions, r.si = append(r.man.Sessions, results.Session{Resumed: true}), 1
	err = r.measureClocks(ctx)
	if exitcode.Of(err) != exitcode.Provision || !strings.Contains(err.Error(), "[server] its clock is +5.0") ||
		!strings.Contains(err.Error(), `warm-up of scenario "page", 3s`) || strings.Contains(err.Error(), "[loadgen]") {
		t.Errorf("warm-up 3s, server +5s: error %v (exit %d), want one for the server only (exit %d)", err, exitcode.Of(err), exitcode.Provision)
	}
	if m, err := results.ReadManifest(r.dir); err != nil || len(m.Clocks) != 2 || len(m.Sessions) != 2 ||
		len(m.Sessions[0].Clocks) != 2 || !reflect.DeepEqual(m.Sessions[1].Clocks, m.Clocks) {
		t.Errorf("each session's clocks, the last one's as the run's, are not in the manifest: %v %+v", err, m)
	}
}

// checkRecordedClocks: each machine's measured offset is its known shift
// within its uncertainty plus 250 ms (a bound on correctness, not a
// timing), and the manifest on disk has them.
func checkRecordedClocks(t *testing.T, r *runner, want map[string]time.Duration) {
	t.Helper()
	m, err := results.ReadManifest(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Clocks) != len(want) {
		t.Fatalf("manifest clocks %+v, want %d machines", m.Clocks, len(want))
	}
	for _, c := range m.Clocks {
		shift, ok := want[c.Host]
		if !ok {
			t.Errorf("clock of unknown machine %q", c.Host)
			continue
		}
		t.Logf("[%s] measured %s (known shift %s, %d round trips)", c.Host, c, shift, c.RoundTrips)
		if off := math.Abs(c.OffsetMs - float64(shift.Milliseconds())); off > c.UncertaintyMs+250 || c.RoundTrips != ClockRounds {
			t.Errorf("[%s] offset %s: %.1f ms from the known %s (round trips %d)", c.Host, c, off, shift, c.RoundTrips)
		}
	}
}

// checkJoin burns CPU on the server (yes, the "burn" group) only inside
// [t0, t1] of our clock, with 300 ms of quiet at both ends (more than
// the offset's uncertainty), and joins the samples with that window.
func checkJoin(ctx context.Context, t *testing.T, r *runner) {
	t.Helper()
	smp, err := r.startSampler(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer smp.stop()
	if err := smp.ready(ctx, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	// The uncorrected window lies clockShift before the true one: wait
	// until samples cover it.
	first := samplesOf(smp)[0].Unix
	waitSample(ctx, t, smp, first+clockShift.Seconds()+1)

	t0 := time.Now()
	// The quiet ends are part of the load's shape, not a wait.
	if _, err := r.srv.h.Run(ctx, host.Cmd{Script: "sleep 0.3; timeout 1 yes >/dev/null; sleep 0.3", Label: "burn"}); err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	corrected, err := smp.summarize(ctx, t0, t1, 1)
	if err != nil {
		t.Fatalf("corrected join: %v", err)
	}
	ss := samplesOf(smp)
	uncorrected, err := srvstat.Summarize(ss, t0, t1, 1, 0)
	if err != nil {
		t.Fatalf("uncorrected join: %v", err)
	}
	total := ss[len(ss)-1].Groups["burn"].CPUSec * 1000
	got, wrong := corrected.Groups["burn"].CPUMs, uncorrected.Groups["burn"].CPUMs
	t.Logf("burn CPU: %.0f ms in all; corrected join %.0f ms (window %.0f ms), uncorrected %.0f ms", total, got, corrected.WindowMs, wrong)
	if total <= 0 || math.Abs(got-total) > 1e-6 {
		t.Errorf("corrected join has %.3f ms of the burn's %.3f ms", got, total)
	}
	if wrong != 0 {
		t.Errorf("the uncorrected window has %.3f ms of burn CPU: the shift did not move it off the burst", wrong)
	}
}

// samplesOf is a copy of the sampler's samples so far.
func samplesOf(s *sampler) []srvstat.Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]srvstat.Sample(nil), s.ss...)
}

// waitSample waits for a sample at or after unix (the server's clock).
func waitSample(ctx context.Context, t *testing.T, s *sampler, unix float64) {
	t.Helper()
	err := testenv.Poll(time.Minute, func() bool {
		ss := samplesOf(s)
		return ctx.Err() != nil || ss[len(ss)-1].Unix >= unix
	})
	if err != nil {
		t.Fatalf("no sample at %.1f: %v", unix, err)
	}
}

// clockSpec is a one-scenario experiment whose warm-up is warm.
func clockSpec(warm time.Duration) *Spec {
	return &Spec{Repetitions: 1, Columns: []results.Column{{ID: "clock-test", Profile: "clock-test", Enabled: true}},
		Scenarios: []results.Scenario{{Name: "page", Kind: "page", Visitors: []int{2}, Warmup: warm}}}
}

// shiftClock makes every dynamically linked program that runs in an SSH
// session on bh (all wptest runs there) read a clock shift ahead:
// libfaketime (this machine's: the same Debian 12) preloaded by the
// sessions' environment (/etc/environment, read by sshd's pam_env), the
// shift in /etc/faketimerc. Not sshd itself: in its seccomp sandbox
// libfaketime's calls are fatal.
func shiftClock(t *testing.T, bh *testenv.BareHost, lib string, shift time.Duration) {
	t.Helper()
	b, err := os.ReadFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		lib:                string(b),
		"/etc/environment": "LD_PRELOAD=" + lib + "\n",
		"/etc/faketimerc":  "+" + shift.String() + "\n",
	}
	for p, body := range files {
		full := filepath.Join(bh.Root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// openBare connects to a bare host under its name.
func openBare(t *testing.T, bh *testenv.BareHost) host.Host {
	t.Helper()
	tg, err := host.ParseTarget(bh.Target)
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Open(context.Background(), tg, host.Options{Name: bh.Name, KnownHostsFile: bh.KnownHosts, IdentityFile: bh.Identity})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// buildLibcClockAgent is wptest built with srvstat's libc clock (cgo),
// the one libfaketime can shift (once for the package's tests).
func buildLibcClockAgent(t *testing.T) string {
	t.Helper()
	return testenv.WptestBinary(t, "libcclock")
}

const clockRunHCL = `
experiment "clock-off" {
  repetitions = 1
  http_port   = 80
  https_port  = 443
}

machines "static" {
  targets = [%q, %q]
}

fixture "minimal" {
  seed = 1
}

profile "caddy" {}

scenario "page" {
  kind     = "page"
  path     = "/"
  visitors = [2]
  duration = "1s"
  warmup   = "3s"
}
`

// `wptest run` with the server's clock 5 s ahead and a 3 s warm-up stops
// before it changes anything on the server, with exit code 4 and an error
// that names the server, its offset, the warm-up and NTP; the manifest
// records the offsets it measured.
func TestRunStopsOnAClockOffByMoreThanTheWarmup(t *testing.T) {
	lib := testenv.LibFaketime(t)
	testenv.NeedBinary(t, "gcc")
	hs := testenv.BareHosts(t, "server", "loadgen")
	shiftClock(t, hs[0], lib, clockShift)
	exe := buildLibcClockAgent(t)
	work := t.TempDir()
	file := filepath.Join(work, "clock-off.hcl")
	src := fmt.Sprintf(clockRunHCL, hs[0].Target, hs[1].Target)
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	runs := filepath.Join(work, "runs")
	cmd := exec.CommandContext(ctx, exe, "run", file, "--runs", runs, "--known-hosts", hs[0].KnownHosts, "--identity", hs[0].Identity)
	var stderr bytes.Buffer
	cmd.Dir, cmd.Stderr = work, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitcode.Provision {
		t.Fatalf("wptest run: %v, want exit code %d\n%s", err, exitcode.Provision, stderr.String())
	}
	t.Logf("wptest run ended with:\n%s", host.Tail(stderr.Bytes(), 8))
	for _, w := range []string{"[server] clock +5.0", "[loadgen-1] clock ", "[server] its clock is +5.0",
		`the warm-up of scenario "page", 3s`, "NTP"} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, stderr.String())
		}
	}
	es, _ := os.ReadDir(runs)
	if len(es) != 1 {
		t.Fatalf("%d run directories", len(es))
	}
	r := &runner{dir: filepath.Join(runs, es[0].Name())}
	checkRecordedClocks(t, r, map[string]time.Duration{"server": clockShift, "loadgen-1": 0})
	if m, _ := results.ReadManifest(r.dir); m != nil && m.Fixture != nil && m.Fixture.Verified != "" {
		t.Errorf("the run seeded the server before it checked the clocks")
	}
}
