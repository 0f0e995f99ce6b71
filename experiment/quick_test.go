package experiment_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"github.com/wptest/wptest/results"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/report"
)

// buildWptest is the real binary (built once for the package's tests):
// the run is tested as users run it.
func buildWptest(t *testing.T) string {
	t.Helper()
	return testenv.WptestBinary(t)
}

// pinnedRoot is the fixture's pinned root for "minimal" seed 1
// (fixture/testdata/golden.txt: profile seed root pixels).
func pinnedRoot(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../fixture/testdata/golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 3 && f[0] == "minimal" && f[1] == "1" {
			return f[2]
		}
	}
	t.Fatal("golden.txt has no minimal 1 line")
	return ""
}

func needLocalStack(t *testing.T) {
	testenv.NeedRoot(t)
	for _, b := range []string{"apache2ctl", "php-fpm8.2", "php-cgi8.2", "caddy", "mariadb", "php", "go"} {
		testenv.NeedBinary(t, b)
	}
	_, err := os.Stat("/usr/share/wordpress/wp-includes/version.php")
	testenv.Need(t, err == nil, "Debian's wordpress package")
}

// TestQuickLocalKillResume is the main proof, for real on this
// machine: `wptest run experiments/quick.hcl --target local`, killed with
// SIGKILL right after a point was written, then `--resume`; the report is
// complete, no point was measured twice, cPanel's CGI costs more CPU per
// page than tuned Apache, CSS is gzipped by the others and not by
// cPanel's Apache, the fixture root is the pinned one, and the HTML opens
// in headless Chromium. Its output is what the README shows: quiet stderr,
// the detail in log.txt, no password (checkQuietStderr: the one run of
// the main job in the suite, as cmd/wptest/cli's in-process run was).
func TestQuickLocalKillResume(t *testing.T) {
	t.Parallel()           // beside the package's bare-host tests: it holds this machine's server, they their own hosts
	testenv.Integration(t) // a real run of several minutes
	needLocalStack(t)
	testenv.LockLocalServer(t)
	exe := buildWptest(t)
	quick, _ := filepath.Abs("../experiments/quick.hcl")
	work := t.TempDir()
	runs := filepath.Join(work, "runs")

	src, _ := os.ReadFile(quick)
	sp, err := experiment.Load(quick, src, experiment.LoadOptions{Target: "local"})
	if err != nil {
		t.Fatal(err)
	}
	if want := pinnedRoot(t); sp.Fixture.Root != want {
		t.Fatalf("quick.hcl pins root %s, fixture/testdata/golden.txt says %s: update quick.hcl", sp.Fixture.Root, want)
	}
	plan := sp.Plan()

	// First session: killed once 4 points are in results.jsonl.
	const killAfter = 4
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	// No internet here: cPanel's Apache gets mod_ruid2.c from the copy
	// beside the checkout (as the README's main job says).
	ruid2 := "ruid2_source_url=file://" + testenv.Ruid2Source(t)
	cmd := exec.CommandContext(ctx, exe, "run", quick, "--target", "local", "--runs", runs, "-var", ruid2)
	cmd.Dir = work
	var stderr1 bytes.Buffer
	cmd.Stderr = &stderr1
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t0 := time.Now()
	var id string
wait:
	for {
		if id == "" {
			if es, _ := os.ReadDir(runs); len(es) == 1 {
				id = es[0].Name()
			}
		}
		if id != "" {
			if recs, _ := results.ReadResults(filepath.Join(runs, id)); len(recs) >= killAfter {
				break wait
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("wptest run ended (%v) before %d points:\n%s", err, killAfter, lastLines(stderr1.String(), 40))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Since(t0) > 15*time.Minute {
			t.Fatalf("no %d points after 15 minutes:\n%s", killAfter, lastLines(stderr1.String(), 40))
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	dir := filepath.Join(runs, id)
	t.Cleanup(func() {
		if t.Failed() {
			dumpResults(t, dir)
		}
	})
	before, _ := results.ReadResults(dir)
	t.Logf("killed after %d point(s), %.0fs; progress seen:\n%s", len(before), time.Since(t0).Seconds(), lastLines(stderr1.String(), 6))
	if !strings.Contains(stderr1.String(), "ETA") || !strings.Contains(stderr1.String(), "cpanel-apache · page c=2") {
		t.Errorf("no live progress (profile, scenario, point, ETA) on stderr:\n%s", lastLines(stderr1.String(), 20))
	}
	if len(before) >= len(plan) {
		t.Fatalf("kill came too late: %d of %d points", len(before), len(plan))
	}

	// Second session: resume.
	t1 := time.Now()
	cmd = exec.CommandContext(ctx, exe, "run", quick, "--target", "local", "--runs", runs, "--resume", id, "-var", ruid2)
	cmd.Dir = work
	var stdout2, stderr2 bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout2, &stderr2
	if err := cmd.Run(); err != nil {
		t.Fatalf("resume: %v\n%s", err, lastLines(stderr2.String(), 40))
	}
	t.Logf("resume took %.0fs; stdout %q", time.Since(t1).Seconds(), stdout2.String())
	// The run reads the site's database credentials on the host; its
	// progress never shows them.
	for _, out := range []string{stderr1.String(), stderr2.String(), stdout2.String()} {
		if strings.Contains(out, "DB_PASSWORD") {
			t.Errorf("the run's output shows the site database's password:\n%s", lastLines(out[max(0, strings.Index(out, "DB_PASSWORD")-200):], 5))
		}
	}
	// A subtest: the main job's output was cmd/wptest/cli's own test
	// (a second run of the whole job); its checks keep a name of their own.
	t.Run("QuietStderrLogInRun", func(t *testing.T) {
		checkQuietStderr(t, filepath.Join(runs, id), stderr1.String(), stderr2.String(), stdout2.String())
	})
	reportPath := strings.TrimSpace(stdout2.String())
	if !strings.HasSuffix(reportPath, "report.html") {
		t.Fatalf("run did not end with the report's path: %q", reportPath)
	}
	if !filepath.IsAbs(reportPath) {
		reportPath = filepath.Join(work, reportPath)
	}

	// No point twice, none missing, and the first session's points were
	// not measured again.
	recs, err := results.ReadResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range recs {
		seen[r.Key]++
	}
	for _, p := range plan {
		if seen[p.Key] != 1 {
			t.Errorf("point %s measured %d times", p.Key, seen[p.Key])
		}
	}
	if len(recs) != len(plan) {
		t.Errorf("%d records for %d points", len(recs), len(plan))
	}
	for i, r := range before {
		if recs[i].Key != r.Key || recs[i].Start != r.Start {
			t.Errorf("record %d changed by the resume: %s %s -> %s %s", i, r.Key, r.Start, recs[i].Key, recs[i].Start)
		}
	}
	man, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !man.Complete || len(man.Sessions) != 2 || !man.Sessions[1].Resumed {
		t.Errorf("manifest: complete %v, %d session(s)", man.Complete, len(man.Sessions))
	}
	// The machines stage recorded the run for `wptest down` (its driver).
	if ri, err := stage.ReadRunInfo(dir); err != nil || ri.ID != id || ri.Driver != "local" {
		t.Errorf("%s: %+v, %v; want run %s, driver local", stage.RunInfoFile, ri, err, id)
	}
	for _, k := range man.Sessions[1].Measured {
		for _, b := range before {
			if b.Key == k {
				t.Errorf("resume measured %s again", k)
			}
		}
	}

	// The numbers come from this run.
	rep, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Web server + PHP: the database is shared with every other test on
	// the machine, the profile's own processes are not.
	cp := rep.Metric("cpanel-apache", "page", "c=2", results.WebPHPCPU)
	tu := rep.Metric("tuned-apache", "page", "c=2", results.WebPHPCPU)
	ca := rep.Metric("caddy", "page", "c=2", results.WebPHPCPU)
	t.Logf("web server + PHP CPU per page (ms): cpanel %v, tuned %v, caddy %v", cp.Values, tu.Values, ca.Values)
	if cp.N != 2 || tu.N != 2 || ca.N != 2 {
		t.Fatalf("CPU per page missing: %d %d %d values", cp.N, tu.N, ca.N)
	}
	// The behaviour: PHP as CGI without OPcache costs more per page than
	// FPM with it. How much more is the report's to say (a loaded 2-core
	// machine moves the ratio).
	if cp.Med <= tu.Med {
		t.Errorf("cpanel-apache CPU per page %.1f ms is no more than tuned-apache's %.1f ms", cp.Med, tu.Med)
	}
	t.Logf("cpanel-apache / tuned-apache CPU per page: %.2fx", cp.Med/tu.Med)
	for prof, want := range map[string]string{"cpanel-apache": "identity", "tuned-apache": "gzip", "caddy": "gzip"} {
		if got := rep.Encoding(prof, "compression", "c=10"); got != want {
			t.Errorf("%s answers the CSS with Content-Encoding %q, want %q", prof, got, want)
		}
		w := rep.Metric(prof, "compression", "c=10", results.WireBytes)
		t.Logf("%s: CSS %.0f bytes on the wire per response", prof, w.Med)
	}
	if man.Fixture.Root != pinnedRoot(t) || man.Fixture.Verified != man.Fixture.Root {
		t.Errorf("fixture root %s verified %s, pinned %s", man.Fixture.Root, man.Fixture.Verified, pinnedRoot(t))
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	// The main job ends with a verdict: its report opens with the post's
	// claims quick.hcl checks.
	if i := bytes.Index(md, []byte("\n## ")); i < 0 || !bytes.HasPrefix(md[i+1:], []byte("## Does it reproduce?")) {
		t.Errorf("report.md does not open with Does it reproduce?:\n%s", lastLines(string(md[:min(len(md), 2000)]), 30))
	}
	for _, want := range []string{"root `" + pinnedRoot(t) + "` (equals the pinned root; verified on the server",
		"Run manifest", "The Apache kit's ten metrics", "min / median / max", man.PlanHash} {
		if !bytes.Contains(bytes.ToLower(md), bytes.ToLower([]byte(want))) {
			t.Errorf("report.md lacks %q", want)
		}
	}

	// The kit's worker usage: both Apache profiles' status pages were read
	// during the throughput run (a failed read leaves no limit), against
	// MaxRequestWorkers 150, the profiles' default, not the scoreboard's
	// 256 slots; Caddy has none.
	kits := 0
	for _, rec := range recs {
		if rec.Kit == nil {
			continue
		}
		kits++
		srv := rec.Kit.Server
		if srv == nil {
			t.Errorf("%s: kit without a server summary", rec.Key)
			continue
		}
		t.Logf("%s: worker usage %.1f%% (peak %d busy of %d)", rec.Key, srv.WorkerUsagePct, srv.MaxBusyWorkers, srv.WorkerLimit)
		switch rec.Column {
		case "cpanel-apache", "tuned-apache":
			if srv.WorkerLimit != 150 || srv.MaxBusyWorkers < 1 || srv.WorkerUsagePct <= 0 {
				t.Errorf("%s: worker usage %.1f%%, peak %d busy of %d: want mod_status read, of MaxRequestWorkers 150", rec.Key, srv.WorkerUsagePct, srv.MaxBusyWorkers, srv.WorkerLimit)
			}
		case "caddy":
			if srv.WorkerLimit != 0 || srv.MaxBusyWorkers != 0 {
				t.Errorf("%s: Caddy has worker usage %d of %d", rec.Key, srv.MaxBusyWorkers, srv.WorkerLimit)
			}
		}
	}
	if kits != 6 {
		t.Errorf("%d kit records, want 6 (3 profiles, 2 repetitions)", kits)
	}
	if !bytes.Contains(md, []byte("busy of 150)")) || !bytes.Contains(md, []byte("n/a: caddy declares no status page")) {
		t.Errorf("report.md's worker usage row lacks the Apache numbers or Caddy's reason:\n%s", lineWith(string(md), "| 10 | Worker usage"))
	}

	// Same seed, same fixture root and plan: --plan of two invocations
	// agree with each other and with this run; another seed differs.
	p1 := runPlan(t, exe, quick, "-var", ruid2)
	p2 := runPlan(t, exe, quick, "-var", ruid2)
	if p1 != p2 {
		t.Errorf("two plans of the same file and seed differ:\n%s\n---\n%s", p1, p2)
	}
	if !strings.Contains(p1, "plan_sha256 "+man.PlanHash) || !strings.Contains(p1, "root "+man.Fixture.Root+" (= pinned)") {
		t.Errorf("plan output does not match the run (plan %s, root %s):\n%s", man.PlanHash, man.Fixture.Root, lastLines(p1, 50))
	}
	if p3 := runPlan(t, exe, quick, "-var", ruid2, "-var", "seed=2"); p3 == p1 || strings.Contains(p3, man.Fixture.Root) {
		t.Errorf("seed 2 gives the same plan or root")
	}

	screenshot(t, reportPath)
	// For a person to read: WPTEST_KEEP_REPORT=DIR keeps report.md and report.html.
	if keep := os.Getenv("WPTEST_KEEP_REPORT"); keep != "" {
		for _, f := range []string{"report.md", "report.html", results.ResultsFile, results.ManifestFile} {
			if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
				os.WriteFile(filepath.Join(keep, f), b, 0o644)
			}
		}
	}
}

// checkQuietStderr: the README's main job as its user reads it. Each
// session's stderr fits on a screen: the stages and a line per point (the
// resumed one, its 32 points, in under 56 lines: the 60 of a whole run's
// 36), no host command; log.txt in the run's directory has the host
// commands and their output; neither has the site database's password,
// which the run read on the host.
func checkQuietStderr(t *testing.T, dir, stderr1, stderr2, stdout2 string) {
	t.Helper()
	progress, _, _ := strings.Cut(stderr2, "summary of run ") // the summary's lines are counted on their own (checkRunSummary)
	if n := len(strings.Split(strings.TrimSpace(progress), "\n")); n >= 56 {
		t.Errorf("the resumed session's stderr has %d lines for 32 points before its summary, want under 56:\n%s", n, stderr2)
	}
	checkRunSummary(t, filepath.Base(dir), stderr2)
	for _, c := range []struct{ out, want string }{
		{stderr1, "log " + filepath.Join(dir, results.LogFile)},
		{stderr1, "preflight on local"},
		{stderr1, "[1/36] rep 1/2 · cpanel-apache · page c=2"},
		// Each point's line carries its own figure when it ends, the last
		// point's too.
		{stderr2, "[36/36] rep 2/2 · caddy · kit c=10: "},
		{stderr2, "· caddy · crowd c=100: newcomer wait p50 "},
		{stderr2, "report: "},
	} {
		if !strings.Contains(c.out, c.want) {
			t.Errorf("stderr lacks %q:\n%s", c.want, c.out)
		}
	}
	for _, out := range []string{stderr1, stderr2} {
		if strings.Contains(out, "[local] $ ") {
			t.Errorf("stderr has host commands:\n%s", out)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, results.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	logTxt := string(b)
	for _, w := range []string{"[local] $ facts", "[local] facts: WPTEST_ARCH=", "[local] $ host manifest", "[local] package.server: ", "[1/36] rep 1/2", "[36/36] rep 2/2"} {
		if !strings.Contains(logTxt, w) {
			t.Errorf("log.txt lacks %q", w)
		}
	}
	site, _, err := stage.HostSite(context.Background(), host.NewLocal(nil))
	if err != nil || len(site.DB.Password) < 8 {
		t.Fatalf("the site's database credentials: %v (password of %d bytes)", err, len(site.DB.Password))
	}
	for _, out := range []string{logTxt, stderr1, stderr2, stdout2} {
		if strings.Contains(out, site.DB.Password) {
			t.Error("the site's database password reached log.txt, stderr or stdout")
		}
	}
}

// checkRunSummary: the run's stderr ends with its summary, as k6's end
// summary: the claims' verdicts (quick.hcl's every claim counted once),
// the largest differences between columns, the points that measured the
// bench, and the report's paths last.
func checkRunSummary(t *testing.T, id, stderr string) {
	t.Helper()
	_, sum, ok := strings.Cut(stderr, "summary of run "+id+" (")
	if !ok {
		t.Fatalf("stderr has no summary of run %s:\n%s", id, lastLines(stderr, 20))
	}
	lines := strings.Split(strings.TrimRight(sum, "\n"), "\n")
	t.Logf("the summary:\nsummary of run %s (%s", id, sum)
	if len(lines) > 20 {
		t.Errorf("the summary has %d lines, want a screen's part:\n%s", len(lines), sum)
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "  report: ") || !strings.HasSuffix(last, "report.html") {
		t.Errorf("stderr does not end with the summary's report line: %q", last)
	}
	var hold, differ, none int
	if _, err := fmt.Sscanf(lineWith(sum, "  claims: "), "  claims: %d %s %d %s %d not measured", &hold, new(string), &differ, new(string), &none); err != nil {
		t.Errorf("no claims count (%v): %q", err, lineWith(sum, "  claims: "))
	}
	if n, want := hold+differ+none, quickClaims(t); n != want {
		t.Errorf("the summary counts %d claims, quick.hcl has %d:\n%s", n, want, sum)
	}
	if strings.Count(sum, "    ✗ ") != differ {
		t.Errorf("%d claims differ, but the summary names %d:\n%s", differ, strings.Count(sum, "    ✗ "), sum)
	}
	for _, w := range []string{"largest differences between columns", "measured the bench, not the server"} {
		if !strings.Contains(sum, w) {
			t.Errorf("the summary lacks %q:\n%s", w, sum)
		}
	}
}

func runPlan(t *testing.T, exe, file string, args ...string) string {
	t.Helper()
	out, err := exec.Command(exe, append([]string{"run", file, "--plan"}, args...)...).Output()
	if err != nil {
		t.Fatalf("wptest run --plan: %v", err)
	}
	return string(out)
}

// screenshot opens the report in headless Chromium: the DOM must hold the
// report (title, tables, SVG charts) and the screenshot must be a real
// 1280x2000 PNG with content.
func screenshot(t *testing.T, html string) {
	t.Helper()
	chromium := "/usr/bin/chromium"
	_, err := os.Stat(chromium)
	testenv.Need(t, err == nil, "Debian's chromium package (/usr/bin/chromium)")
	flags := func() []string {
		return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir=" + t.TempDir(), "--window-size=1280,2000"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dom, err := exec.CommandContext(ctx, chromium, append(flags(), "--dump-dom", "file://"+html)...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	for _, want := range []string{"<h1>wptest: quick</h1>", "<svg", "Run manifest", "Apache as cPanel ships it"} {
		if !strings.Contains(string(dom), want) {
			t.Errorf("chromium's DOM lacks %q", want)
		}
	}
	shot := filepath.Join(t.TempDir(), "report.png")
	out, err := exec.CommandContext(ctx, chromium, append(flags(), "--screenshot="+shot, "file://"+html)...).CombinedOutput()
	if err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, out)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	b := img.Bounds()
	t.Logf("screenshot %s: %dx%d, %d bytes", shot, b.Dx(), b.Dy(), st.Size())
	if b.Dx() != 1280 || b.Dy() != 2000 || st.Size() < 50_000 {
		t.Errorf("screenshot %dx%d %d bytes: want 1280x2000 and more than 50 kB", b.Dx(), b.Dy(), st.Size())
	}
	// Not a blank page: count distinct colours in a sample.
	colours := map[uint32]bool{}
	for y := 0; y < b.Dy(); y += 7 {
		for x := 0; x < b.Dx(); x += 7 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[r>>8<<16|g>>8<<8|bl>>8] = true
		}
	}
	if len(colours) < 20 {
		t.Errorf("screenshot has %d colours: blank?", len(colours))
	}
	if keep := os.Getenv("WPTEST_KEEP_SCREENSHOT"); keep != "" {
		in, _ := os.Open(shot)
		defer in.Close()
		o, err := os.Create(keep)
		if err == nil {
			io.Copy(o, in)
			o.Close()
		}
	}
}

func lastLines(s string, n int) string {
	var l []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		l = append(l, sc.Text())
	}
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// lineWith is the first line of s containing sub.
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return "(no line with " + sub + ")"
}

// dumpResults logs one line per point: what a failure needs to be read.
func dumpResults(t *testing.T, dir string) {
	recs, _ := results.ReadResults(dir)
	for _, r := range recs {
		line := r.Key
		if r.Run != nil {
			line += fmt.Sprintf(" rps %.1f ok %d failed %d", r.Run.RPS, r.Run.Outcomes.OK, r.Run.Outcomes.Failed())
		}
		line += fmt.Sprintf(" server-cpu/req %.3f ms", r.ServerCPUMsPerReq)
		if r.Probe != nil {
			line += fmt.Sprintf(" probe %d %q %dB %s", r.Probe.Status, r.Probe.ContentEncoding, r.Probe.BodyBytes, r.Probe.Error)
		}
		t.Log(line)
	}
	if m, err := results.ReadManifest(dir); err == nil {
		for _, s := range m.Sessions {
			if s.Error != "" {
				t.Logf("session %s stopped: %s", s.Start, s.Error)
			}
		}
	}
}

// quickClaims is how many claims quick.hcl carries.
func quickClaims(t *testing.T) int {
	t.Helper()
	file := filepath.Join("..", "experiments", "quick.hcl")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := experiment.Load(file, src, experiment.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return len(sp.Claims)
}
