package report

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"github.com/wptest/wptest/results"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// testServers are two real HTTP servers standing in for two profiles: one
// sends the CSS as is, the other gzips it.
func testServers(t *testing.T) map[string]string {
	css := strings.Repeat("body { color: #123456; margin: 0 auto; }\n", 2000)
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		io.WriteString(w, css)
	}))
	gz := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			z := gzip.NewWriter(w)
			io.WriteString(z, css)
			z.Close()
			return
		}
		io.WriteString(w, css)
	}))
	t.Cleanup(plain.Close)
	t.Cleanup(gz.Close)
	return map[string]string{"plain": plain.URL, "gzip": gz.URL}
}

// writeRun measures with the real load generator and writes a run
// directory the way experiment does (manifest + results.jsonl).
func writeRun(t *testing.T, reps int) string {
	t.Helper()
	srv := testServers(t)
	dir := t.TempDir()
	sc := results.Scenario{Name: "compression", Kind: "compression", Path: "/style.css", Visitors: []int{2, 8},
		Duration: 300 * time.Millisecond, Warmup: 50 * time.Millisecond, Gzip: true, KeepAlive: true, Proto: "h1"}
	sp := &testSpec{Name: "synthetic", Repetitions: reps, Scenarios: []results.Scenario{sc},
		Columns: []results.Column{{ID: "plain", Profile: "plain", Label: "Plain server", Enabled: true}, {ID: "gzip", Profile: "gzip", Label: "Gzip server", Enabled: true}},
		Fixture: results.FixtureSpec{Profile: "minimal", Seed: 1}}
	man := results.Manifest{Format: results.ManifestFormat, ID: "test-run", Experiment: "synthetic", PlanHash: sp.PlanHash(),
		Columns: sp.Columns, Scenarios: sp.Scenarios, Repetitions: reps, Points: len(sp.Plan()), Complete: true,
		Fixture: &results.FixtureRecord{Profile: "minimal", Seed: 1, Root: strings.Repeat("ab", 32), Pinned: strings.Repeat("ab", 32)}}
	f, err := os.Create(filepath.Join(dir, results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	for _, p := range sp.Plan() {
		cfg := benchgen.Config{URL: srv[p.Column] + sc.Path, Visitors: p.Visitors, KeepAlive: true, Duration: sc.Duration,
			Warmup: sc.Warmup, Header: []string{benchgen.AcceptGzip}}
		run, err := benchgen.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		// The servers run in this process, whose CPU the load generator
		// reads as its own: that is not a load generator's, so none is kept.
		run.ClientCPUs, run.ClientWaitMs = 0, 0

		ce := ""
		if p.Column == "gzip" {
			ce = "gzip"
		}
		rec := results.Record{Point: p, Set: result.Set{Run: &run}, Probe: &results.Probe{Status: 200, ContentEncoding: ce, BodyBytes: run.Bytes.Body / max(run.Outcomes.OK, 1)}}
		if err := enc.Encode(rec); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := json.Marshal(man)
	if err := os.WriteFile(filepath.Join(dir, results.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReportFromRealLoad(t *testing.T) {
	dir := writeRun(t, 3)
	out, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Medians over three repetitions, and the wire bytes show who compresses.
	for _, p := range []string{"plain", "gzip"} {
		s := r.Metric(p, "compression", "c=2", results.RPS)
		if s.N != 3 || !(s.Min <= s.Med && s.Med <= s.Max) || s.Min <= 0 {
			t.Errorf("%s rps stat %+v", p, s)
		}
	}
	plain := r.Metric("plain", "compression", "c=2", results.WireBytes).Med
	gz := r.Metric("gzip", "compression", "c=2", results.WireBytes).Med
	if !(plain > 10*gz) {
		t.Errorf("wire bytes per response: plain %.0f, gzip %.0f", plain, gz)
	}
	if r.Encoding("plain", "compression", "c=8") != "identity" || r.Encoding("gzip", "compression", "c=8") != "gzip" {
		t.Errorf("encodings %q %q", r.Encoding("plain", "compression", "c=8"), r.Encoding("gzip", "compression", "c=8"))
	}

	md, _ := os.ReadFile(out.Markdown)
	// The table shows the median with (min–max) of this run's numbers.
	s := r.Metric("plain", "compression", "c=8", results.RPS)
	want := cell(s)
	if !strings.Contains(string(md), want) || !strings.Contains(want, "–") {
		t.Errorf("report.md lacks the c=8 rps cell %q", want)
	}
	for _, w := range []string{"| c=2: Content-Encoding | identity | gzip |", "Ratios between profiles", "Repetitions: how much the numbers move",
		"equals the pinned root", "Run manifest", "Plain server", "Gzip server"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("report.md lacks %q", w)
		}
	}
	// One load generator: no table of generators' shares.
	if strings.Contains(string(md), "Load generators: each one's share") || strings.Contains(string(md), "split between these") {
		t.Errorf("report.md shows load generators' shares for a run from one")
	}

	// The HTML is one file: no external references, and every inline SVG is well-formed XML.
	h, _ := os.ReadFile(out.HTML)
	if regexp.MustCompile(`(?i)(src|href)="(https?:|//|[a-z0-9_./-]+\.(css|js|svg|png))`).Match(h) {
		t.Error("report.html references an external file")
	}
	svgs := regexp.MustCompile(`(?s)<svg.*?</svg>`).FindAll(h, -1)
	if len(svgs) < 1 {
		t.Fatalf("no SVG chart in report.html")
	}
	for i, s := range svgs {
		d := xml.NewDecoder(strings.NewReader(string(s)))
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("svg %d is not well-formed: %v", i, err)
			}
		}
	}
}

func TestStatAndCell(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want string
	}{
		{nil, "–"},
		{[]float64{3}, "3.00"},
		{[]float64{3, 1, 2}, "2.00 (1.00–3.00) ⚠"},
		{[]float64{1500, 1000, 1200, 1100}, "1,150 (1,000–1,500) ⚠"}, // 43%: marked
		{[]float64{95, 100, 105}, "100 (95.0–105)"},                  // 10%: not
		{[]float64{90, 100, 110}, "100 (90.0–110)"},                  // 20%: the mark is above it
		{[]float64{0.135, 0.135}, "0.135"},
	} {
		if got := cell(stat(tc.in)); got != tc.want {
			t.Errorf("cell(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if sp := stat([]float64{90, 100, 110}).Spread(); sp != 20 {
		t.Errorf("spread %v", sp)
	}
}

// The kit's worker usage: peak busy workers of MaxRequestWorkers with the
// kit's ≤ 90% target for a server whose profile declares a status page and
// a worker limit, and n/a with the reason for one that declares none. The
// columns table shows the facts each profile's server block names.
func TestKitWorkerUsage(t *testing.T) {
	dir := t.TempDir()
	sc := results.Scenario{Name: "kit", Kind: "kit", Path: "/probe.js", Visitors: []int{10}, Duration: 700 * time.Millisecond,
		Own: json.RawMessage(`{"levels":[1,10],"error_clients":40}`)}
	sp := &testSpec{Name: "workers", Repetitions: 2, Scenarios: []results.Scenario{sc},
		Columns: []results.Column{{ID: "cpanel-apache", Profile: "cpanel-apache", Label: "cPanel", Enabled: true}, {ID: "tuned-apache", Profile: "tuned-apache", Label: "Tuned", Enabled: true},
			{ID: "caddy", Profile: "caddy", Label: "Caddy", Enabled: true}},
		Fixture: results.FixtureSpec{Profile: "minimal", Seed: 1}}
	apache := &hostmanifest.Manifest{Profile: "cpanel-apache", Server: &provision.Server{Status: &provision.Status{URL: "http://127.0.0.1:8080/whm-server-status?auto", Format: "apache"}, WorkerLimit: 150, Shows: []string{"apache_mpm", "apache_version", "php_fpm_version"}},
		Facts: map[string]string{"apache_mpm": "prefork"}, Versions: map[string]string{"apache": "Apache/2.4.66", "php_fpm": "not installed", "caddy": "v2.6.2"}}
	man := results.Manifest{Format: results.ManifestFormat, ID: "test-run", Experiment: "workers", PlanHash: sp.PlanHash(),
		Columns: sp.Columns, Scenarios: sp.Scenarios, Repetitions: 2, Points: len(sp.Plan()), Complete: true,
		Hosts:   map[string]*hostmanifest.Manifest{"cpanel-apache": apache, "tuned-apache": apache, "caddy": {Profile: "caddy"}},
		Fixture: &results.FixtureRecord{Profile: "minimal", Seed: 1, Root: strings.Repeat("ab", 32), Pinned: strings.Repeat("ab", 32)}}
	busy := map[string][]int{"cpanel-apache": {11, 13}, "tuned-apache": {140, 140}}
	var recs []results.Record
	for _, p := range sp.Plan() {
		srv := &result.Server{Groups: map[string]result.GroupUse{}}
		if b := busy[p.Column]; b != nil {
			srv.MaxBusyWorkers, srv.WorkerLimit = b[p.Rep-1], 150
			srv.WorkerUsagePct = 100 * float64(srv.MaxBusyWorkers) / 150
		}
		k := &result.Kit{Throughput: result.Run{RPS: 1000}, Server: srv}
		recs = append(recs, results.Record{Point: p, Set: result.Set{Kit: k}, Server: srv})
	}
	md := []byte(writeReport(t, dir, man, recs))
	var row string
	for _, l := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(l, "| 10 | Worker usage") {
			row = l
		}
	}
	for _, want := range []string{"| 8.00 (7.33–8.67) PASS (peak 12 (11–13) busy of 150) |", "| 93.3 FAIL (peak 140 busy of 150) |",
		"| n/a: caddy declares no status page with worker counts |"} {
		if !strings.Contains(row, want) {
			t.Errorf("worker usage row lacks %q:\n%s", want, row)
		}
	}
	if !strings.Contains(string(md), "| cpanel-apache | prefork; Apache/2.4.66 |") {
		t.Errorf("columns table lacks what cpanel-apache's server block shows (and only that):\n%s", md)
	}
	if strings.Contains(string(md), "the profiles do not enable") {
		t.Error("report.md still says the profiles do not enable mod_status")
	}
}

// A point the runner left out because the profile's server does not serve
// the scenario's protocol shows "n/a" in its column, and the setup says why.
func TestNotApplicableProtocol(t *testing.T) {
	dir := t.TempDir()
	sc := results.Scenario{Name: "ab-h2", Kind: "ab", Path: "/", Visitors: []int{4}, Requests: 100, Proto: "h2"}
	sp := &testSpec{Name: "protocols", Repetitions: 1, Scenarios: []results.Scenario{sc},
		Columns: []results.Column{{ID: "tuned-apache", Profile: "tuned-apache", Label: "Tuned", Enabled: true}, {ID: "cpanel-apache", Profile: "cpanel-apache", Label: "cPanel", Enabled: true}},
		Fixture: results.FixtureSpec{Profile: "minimal", Seed: 1}}
	man := results.Manifest{Format: results.ManifestFormat, ID: "test-run", Experiment: "protocols", PlanHash: sp.PlanHash(),
		Columns: sp.Columns, Scenarios: sp.Scenarios, Repetitions: 1, Points: len(sp.Plan()), Complete: true,
		Hosts: map[string]*hostmanifest.Manifest{"tuned-apache": {Profile: "tuned-apache"}, "cpanel-apache": {Profile: "cpanel-apache"}}}
	why := "cpanel-apache serves h1, not h2"
	var recs []results.Record
	for _, p := range sp.Plan() {
		rec := results.Record{Point: p, Set: result.Set{Run: &result.Run{RPS: 500, ElapsedMs: 200, Outcomes: result.Outcomes{OK: 100}}}}
		if p.Column == "cpanel-apache" {
			rec = results.Record{Point: p, NotApplicable: why}
		}
		recs = append(recs, rec)
	}
	md := writeReport(t, dir, man, recs)
	if !strings.Contains(string(md), "| Requests per second | 500 | n/a |") {
		t.Errorf("the row of a point not served lacks n/a:\n%s", md)
	}
	if !strings.Contains(string(md), why) {
		t.Errorf("the report does not say why a point is n/a:\n%s", md)
	}
}

// writeReport writes a run directory (man, recs) the way experiment does and
// returns its report.md.
func writeReport(t *testing.T, dir string, man results.Manifest, recs []results.Record) string {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	b, _ := json.Marshal(man)
	if err := os.WriteFile(filepath.Join(dir, results.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(out.Markdown)
	return string(md)
}

// testSpec is the part of an experiment a run's manifest records, to write
// runs as the runner does.
type testSpec struct {
	Name        string
	Repetitions int
	Scenarios   []results.Scenario
	Columns     []results.Column
	Fixture     results.FixtureSpec
}

func (s *testSpec) Plan() []results.Point {
	return results.Plan(s.Repetitions, s.Columns, s.Scenarios)
}

// PlanHash is a hash of the plan (the runner's also covers the spec; the
// report only shows it).
func (s *testSpec) PlanHash() string {
	b, _ := json.Marshal(s.Plan())
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
