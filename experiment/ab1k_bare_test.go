package experiment_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/internal/testenv/baked"
	"github.com/wptest/wptest/results"
)

// abRequests is -n of the test's static run: fewer than the file's
// 50,000, the same check (HTML transferred = requests × 1,024). 1,000 over
// ab's 5 connections is still past MaxKeepAliveRequests (100) on each, so
// every connection is closed by the server and made anew along the way.
// abPHPRequests is the PHP document's (-var php_requests): its answers
// close the connection anyway (no keep-alive), and a request of the CGI
// column costs a php-cgi process, on a busy machine 0.15 s: 100
// show the same exact byte count as 1,000 did, at a tenth of the work.
const (
	abRequests    = 1000
	abPHPRequests = 100
)

// Rasmus's documents, for real: `wptest run experiments/ab-1k.hcl` on a
// Debian host (made from the shipped servers' image, baked.Servers: their
// packages and mod_ruid2 there, nothing configured; the server as an ssh:// target,
// the load from this process). Every profile of the file serves both
// documents as exactly the 1,024 bytes of his message, the PHP twin
// printing the static file's bytes: the run's probe before each point
// fetched them through the profile then live, and the test fetches them
// itself under each profile (the run leaves the last one; a swap brings
// back the first). Every point's HTML transferred is exactly requests ×
// 1,024, and the report shows it per column, with 0 bytes beyond. The
// server shares this machine's kernel, so the report shows the process
// groups' CPU and says why.
func TestAB1KServesRasmusDocuments(t *testing.T) {
	t.Parallel()           // hosts from the servers' image: runs after the package's other tests, which run while it bakes
	testenv.Integration(t) // a real run of several minutes
	hs := baked.Hosts(t, baked.Servers, "ab")
	exe := buildWptest(t)
	putOnHost(t, hs[0], testenv.Ruid2Source(t), "/root/mod_ruid2.c")
	want, err := os.ReadFile("../profiles/_parts/site/templates/shared/wptest-1k.html")
	if err != nil || len(want) != 1024 {
		t.Fatalf("wptest-1k.html: %d bytes, %v; want 1,024", len(want), err)
	}
	file, _ := filepath.Abs("../experiments/ab-1k.hcl")
	src, _ := os.ReadFile(file)
	sp, err := experiment.Load(file, src, experiment.LoadOptions{Target: "local"})
	if err != nil {
		t.Fatal(err)
	}
	conn := []string{"--target", hs[0].Target, "--known-hosts", hs[0].KnownHosts, "--identity", hs[0].Identity}
	vars := []string{"-var", fmt.Sprintf("requests=%d", abRequests), "-var", fmt.Sprintf("php_requests=%d", abPHPRequests),
		"-var", "ruid2_source_url=file:///root/mod_ruid2.c"}
	dir := runAB1K(t, exe, file, append(conn, vars...))
	recs, err := results.ReadResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(sp.Plan()) || len(recs) != 4 {
		t.Fatalf("%d records, plan %d: want 4 (2 profiles × static, php)", len(recs), len(sp.Plan()))
	}
	for _, rec := range recs {
		checkABBytes(t, rec)
	}
	checkABReport(t, dir, sp)
	// The run leaves its last profile live; the first comes back by a swap.
	cols := sp.Columns
	last := cols[len(cols)-1].Profile
	fetchDocuments(t, hs[0].IP, last, want)
	first := cols[0].Profile
	swap := append([]string{"swap", "--profile", first, "--agent", exe, "-var", "ruid2_source_url=file:///root/mod_ruid2.c",
		"-var", fmt.Sprintf("http_port=%d", sp.HTTPPort), "-var", fmt.Sprintf("https_port=%d", sp.HTTPSPort)}, conn...)
	sw := exec.Command(exe, swap...)
	sw.Dir = t.TempDir() // its log (runs/swap-*.log) goes there, not into the source tree
	if out, err := sw.CombinedOutput(); err != nil {
		t.Fatalf("wptest swap --profile %s: %v\n%s", first, err, lastLines(string(out), 40))
	}
	fetchDocuments(t, hs[0].IP, first, want)
}

// runAB1K runs the experiment and returns its run directory.
func runAB1K(t *testing.T, exe, file string, args []string) string {
	t.Helper()
	work := t.TempDir()
	runs := filepath.Join(work, "runs")
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, append([]string{"run", file, "--runs", runs}, args...)...)
	cmd.Dir = work
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
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
	return dir
}

// checkABBytes: the probe got the 1,024-byte document from the profile
// then live, and ab's counts hold: every request answered, HTML
// transferred exactly requests × 1,024 (the scenario's -n).
func checkABBytes(t *testing.T, rec results.Record) {
	t.Helper()
	if pr := rec.Probe; pr == nil || pr.Status != 200 || pr.BodyBytes != 1024 || pr.Error != "" {
		t.Errorf("%s: the probe through %s got %+v, want 200 and 1,024 bytes", rec.Key, rec.Column, rec.Probe)
	}
	r := rec.Run
	if r == nil {
		t.Fatalf("%s: no run (%s)", rec.Key, rec.Error)
	}
	t.Logf("%s: %d complete, %d ok, HTML transferred %d, total %d, %d keep-alive, %.0f requests/s", rec.Key, r.Attempts, r.Outcomes.OK, r.Bytes.Body, r.Bytes.WireIn, r.KeepAliveReqs, r.RPS)
	n := abRequestsOf(rec.Scenario)
	if r.Attempts != n || r.Outcomes.OK != n || r.Bytes.Body != n*1024 {
		t.Errorf("%s: %d complete requests, %d answered, HTML transferred %d bytes; want %d, %d and %d (requests × 1,024)",
			rec.Key, r.Attempts, r.Outcomes.OK, r.Bytes.Body, n, n, n*1024)
	}
	if !r.HTTP10 || !r.KeepAlive {
		t.Errorf("%s: HTTP/1.0 %v, keep-alive %v: want ab -k's requests", rec.Key, r.HTTP10, r.KeepAlive)
	}
}

// abRequestsOf is -n of the test's run of scenario sc.
func abRequestsOf(sc string) int64 {
	if sc == "php" {
		return abPHPRequests
	}
	return abRequests
}

// checkABReport: HTML transferred per column (each ab section its own
// requests × 1,024), 0 bytes beyond complete requests × 1,024 in each,
// and the CPU figure of a shared machine.
func checkABReport(t *testing.T, dir string, sp *experiment.Spec) {
	t.Helper()
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	s := string(md)
	zero := "| HTML transferred − complete requests × document length (bytes) |" + strings.Repeat(" 0 |", len(sp.Columns))
	for _, sc := range []string{"static", "php"} {
		html := fmt.Sprintf("| HTML transferred (bytes) |%s", strings.Repeat(" "+commas(abRequestsOf(sc)*1024)+" |", len(sp.Columns)))
		if strings.Count(s, html) != 1 {
			t.Errorf("report.md: want %q in the %s ab section:\n%s", html, sc, lineWith(s, "| HTML transferred (bytes)"))
		}
	}
	if strings.Count(s, zero) != 2 {
		t.Errorf("report.md: want %q in both ab sections:\n%s", zero, lineWith(s, "| HTML transferred −"))
	}
	man, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m := man.Machine; m == nil || m.OwnMachine || !strings.Contains(m.SharedWith, "the machine running wptest") || m.BootID == "" {
		t.Errorf("manifest machine %+v: want a bare host sharing this machine's kernel", man.Machine)
	}
	for _, w := range []string{"The server shared its machine with the machine running wptest", "server CPU per request, web server + PHP + database processes (ms)"} {
		if !strings.Contains(s, w) {
			t.Errorf("report.md lacks %q", w)
		}
	}
}

// fetchDocuments loads both documents from the live profile: each is
// exactly the static file's 1,024 bytes.
func fetchDocuments(t *testing.T, ip, profile string, want []byte) {
	t.Helper()
	for _, path := range []string{"/wptest-1k.html", "/wptest-1k.php"} {
		resp, err := http.Get("http://" + ip + ":8080" + path)
		if err != nil {
			t.Errorf("%s under %s: %v", path, profile, err)
			continue
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || !bytes.Equal(body, want) {
			t.Errorf("%s under %s: %d, %d bytes (%v), want 200 and the 1,024 bytes of wptest-1k.html:\n%s", path, profile, resp.StatusCode, len(body), err, body)
		}
	}
}

// commas writes n as the report does (1,234,567).
func commas(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
