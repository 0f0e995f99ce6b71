package experiment_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/internal/testenv/baked"
	"github.com/wptest/wptest/report"
	"github.com/wptest/wptest/results"
)

// dbStopPath is the page the point loads: its own query string, so the
// server's access log tells its requests from the fixture's checks.
const dbStopPath = "/?wptest=db-stopped"

// No warm-up (neither the experiment's nor the scenario's): every request
// of the load generator to dbStopPath is in the point's measured window.
// A number of requests, not a duration: the window lasts until the
// database is gone and the pages after it have failed, however slow the
// machine. A page whose PHP was talking to MariaDB as it stopped may hang
// until the timeout: 5 s, not 30.
const dbStopHCL = `
experiment "db-stopped" {
  description = "WordPress whose database stops in the middle of a point"
  repetitions = 1
  warmup      = "0s"
  http_port   = 80
  https_port  = 443
}

machines "static" {
  targets = [%q, %q]
}

fixture "minimal" {
  seed = 1
}

profile "nginx" {
  label = "nginx, its database stopped"
}

scenario "page" {
  kind     = "page"
  path     = %q
  visitors = [2]
  requests = 400
  duration = "0s"
  warmup   = "0s"
  timeout  = "5s"
}

claim "page-rate" {
  source   = "the test"
  quote    = "nginx serves WordPress pages"
  scenario = "page"
  visitors = 2
  metric   = "rps"
  columns  = ["nginx"]
  at_least = "1 req/s"
}

claim "page-errors" {
  source   = "the test"
  quote    = "not one page failed"
  scenario = "page"
  visitors = 2
  metric   = "error_pct"
  columns  = ["nginx"]
  at_most  = "0 %%"
}
`

// Issue 33's must-show, as a user meets it: `wptest run` of a WordPress
// page on nginx and MariaDB (bare hosts from the servers' image, the
// static driver's two targets), and MariaDB stopped on the server, as its
// profile stops it, once the server's access log shows the point's load
// served. WordPress answers HTTP 500 ("Error establishing a database
// connection") from then on. The point's record is marked with the
// failed share, the report says why, the claim on its rate is not
// measured, the claim on its failures is judged (it differs), and the run
// exits 6.
func TestRunOnBareHostsWithTheDatabaseStoppedMidPoint(t *testing.T) {
	t.Parallel()           // hosts from the servers' image, as TestRunOnBareHostsLoadsFromTheStaticLoadGenerator
	testenv.Integration(t) // a real run
	hs := baked.Hosts(t, baked.Servers, "server", "loadgen")
	exe := buildWptest(t)
	work := t.TempDir()
	file := filepath.Join(work, "db-stopped.hcl")
	if err := os.WriteFile(file, []byte(fmt.Sprintf(dbStopHCL, hs[0].Target, hs[1].Target, dbStopPath)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	runs := filepath.Join(work, "runs")
	cmd := exec.CommandContext(ctx, exe, "run", file, "--runs", runs, "--known-hosts", hs[0].KnownHosts, "--identity", hs[0].Identity)
	cmd.Dir = work
	var stdout, stderr testenv.SyncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	srv := openBare(t, hs[0])
	served := stopDBWhenServed(t, ctx, srv, hs[1].IP, done, &stderr)
	err := <-done
	t.Logf("run took %.0fs; the database stopped after %d pages of the point served", time.Since(t0).Seconds(), served)
	es, _ := os.ReadDir(runs)
	if len(es) != 1 {
		t.Fatalf("%d run directories; wptest run: %v\n%s", len(es), err, lastLines(stderr.String(), 60))
	}
	dir := filepath.Join(runs, es[0].Name())
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitcode.Load {
		dumpResults(t, dir)
		t.Fatalf("wptest run: %v, want exit %d\n%s", err, exitcode.Load, lastLines(stderr.String(), 60))
	}
	checkDBStoppedAnswer(t, ctx, srv, hs[0].IP)
	if log, err := os.ReadFile(filepath.Join(dir, results.LogFile)); err == nil {
		t.Logf("stages:\n%s", stageLines(string(log)))
	}

	recs, err := results.ReadResults(dir)
	if err != nil || len(recs) != 1 || recs[0].Run == nil {
		t.Fatalf("records %+v: %v", recs, err)
	}
	rec := recs[0]
	o := rec.Run.Outcomes
	t.Logf("point %s: %d attempts, %+v; bench_limit %q", rec.Key, rec.Run.Attempts, o, rec.BenchLimit)
	// Pages served before the stop (the access log saw them), HTTP 500
	// after it: the record's reason names the failed share and the most
	// frequent failure. (A page caught mid-query as MariaDB went may time
	// out instead.)
	if o.OK < int64(served) || o.HTTP5xx == 0 || !strings.HasSuffix(rec.BenchLimit, " of requests failed (HTTP 5xx)") {
		t.Errorf("point %s: outcomes %+v, bench_limit %q: want the pages served before the stop ok, HTTP 500 after it, and the failed share named", rec.Key, o, rec.BenchLimit)
	}
	for _, w := range []string{
		"1 point measured the bench, not the server",
		rec.Key + ": " + rec.BenchLimit,
	} {
		if rec.BenchLimit == "" || !strings.Contains(stderr.String(), w) {
			t.Errorf("the run's stderr lacks %q", w)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Points that measured the bench, not the server", "| " + rec.Key + " | " + rec.BenchLimit + " |"} {
		if rec.BenchLimit == "" || !bytes.Contains(md, []byte(w)) {
			t.Errorf("report.md lacks %q", w)
		}
	}
	checkDBStoppedClaims(t, dir, "nginx, its database stopped at page c=2: "+rec.BenchLimit)
	if t.Failed() {
		t.Logf("stderr:\n%s", lastLines(stderr.String(), 40))
	}
}

// stopDBWhenServed waits until the server's access log (nginx's, in its
// default combined format) shows five pages of the point served to the
// load generator at lg, then stops MariaDB with the profile's own stop
// (wptest-svc: the bare hosts have no systemd). It returns the pages
// served by then: five (the wait ends at the fifth; more may follow before
// the stop, so the point's successes are at least that many). A run that ends first fails the test. One command
// on the server follows the log (tail -F: the log may not exist yet) and
// ends at the fifth page: the wait is for the log's lines, not a poll (it
// was one ssh command every 100 ms: 424 in a run, 22 s of the host's CPU).
func stopDBWhenServed(t *testing.T, ctx context.Context, srv host.Host, lg string, done chan error, stderr *testenv.SyncBuffer) int {
	t.Helper()
	const pages = 5
	follow := fmt.Sprintf(`set -e
d=$(mktemp -d)
mkfifo "$d/log"
tail -n +1 -F /var/log/nginx/access.log >"$d/log" 2>/dev/null &
awk -v ip=%s -v p=%s -v want=%d '$1 == ip && $7 == p && $9 == 200 { n++; if (n >= want) { print n; exit } }' <"$d/log"
kill $! 2>/dev/null || true
rm -rf "$d"`, host.Quote(lg), host.Quote(dbStopPath), pages)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ended := make(chan error, 1)
	go func() {
		select {
		case err := <-done:
			done <- err
			ended <- err
			cancel()
		case <-wctx.Done():
		}
	}()
	res, err := srv.Run(wctx, host.Cmd{Label: "pages served", Timeout: 15 * time.Minute, Script: follow})
	select {
	case rerr := <-ended:
		t.Fatalf("wptest run ended (%v) before the point's load reached nginx's access log\n%s", rerr, lastLines(stderr.String(), 60))
	default:
	}
	served, _ := strconv.Atoi(strings.TrimSpace(string(res.Stdout)))
	if err != nil || served < pages {
		t.Fatalf("following nginx's access log for the point's pages: %d pages, %v", served, err)
	}
	if _, err := srv.Run(ctx, host.Cmd{Label: "stop MariaDB", Timeout: 2 * time.Minute,
		Script: "/usr/local/lib/wptest/wptest-svc mariadb stop && ! pgrep -x mariadbd && ! pgrep -x mysqld"}); err != nil {
		t.Fatalf("stop MariaDB on the server: %v", err)
	}
	return served
}

// checkDBStoppedAnswer: what WordPress answers without its database (the
// run is over; nginx and PHP still run) is what the point's failures
// were: HTTP 500, "Error establishing a database connection".
func checkDBStoppedAnswer(t *testing.T, ctx context.Context, srv host.Host, ip string) {
	t.Helper()
	res, err := srv.Run(ctx, host.Cmd{Label: "the page without its database", Timeout: time.Minute,
		Script: "curl -sS -w '\\nstatus %{http_code}\\n' " + host.Quote("http://"+ip+":80"+dbStopPath)})
	if err != nil {
		t.Fatalf("curl the page on the server: %v", err)
	}
	out := string(res.Stdout)
	if !strings.Contains(out, "Error establishing a database connection") || !strings.HasSuffix(out, "\nstatus 500\n") {
		t.Errorf("WordPress without its database answered:\n%s", lastLines(out, 10))
	}
}

// checkDBStoppedClaims reads claims.json: the claim on the point's rate
// is not measured, with the point's reason; the one on its failures is
// judged on them (not one failed, it says: it differs).
func checkDBStoppedClaims(t *testing.T, dir, why string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, results.ClaimsFile))
	if err != nil {
		t.Fatal(err)
	}
	var ct report.ClaimsTable
	if err := json.Unmarshal(b, &ct); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range ct.Claims {
		got[c.ID] = c.Verdict
		if c.Verdict == results.NotMeasured {
			got[c.ID] += ": " + c.How
		}
	}
	want := map[string]string{"page-rate": results.NotMeasured + ": " + why, "page-errors": results.Differs}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("claims.json: %s reads %q, want %q", id, got[id], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("claims.json: %v", got)
	}
}
