package transfer_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/internal/golden"
	"github.com/wptest/wptest/internal/runtest"
	"github.com/wptest/wptest/kinds/transfer"
	_ "github.com/wptest/wptest/provision/cloud/drivers" // an experiment file without a machines block runs on the default driver
	"github.com/wptest/wptest/report"
	"github.com/wptest/wptest/results"
)

const block = `experiment "e" {}
fixture "minimal" { seed = 1 }
profile "caddy" {}
scenario "s" {
  kind     = "transfer"
  visitors = [1, 50]
%s}
`

// A transfer block downloads the site's 1 MB file unless it names a file,
// and refuses, where it is written, what another kind's block means or a
// request count it does not make.
func TestBlock(t *testing.T) {
	for _, c := range []struct{ name, attrs, path, err string }{
		{"the 1 MB file by default", "", transfer.DefaultPath, ""},
		{"the post's image", "  path = \"/wptest-105k.bin\"\n", "/wptest-105k.bin", ""},
		{"the home page, when asked", "  path = \"/\"\n", "/", ""},
		{"the kit's levels", "  levels = [1, 10]\n", "", "exp.hcl:7:3: Unsupported argument"},
		{"the kit's transfer path", "  transfer_path = \"/x\"\n", "", "exp.hcl:7:3: Unsupported argument"},
		{"the crowd's give_up", "  give_up = \"5s\"\n", "", "exp.hcl:7:3: Unsupported argument"},
		{"a request count", "  requests = 100\n", "", "a transfer measures a window (duration)"},
		{"compressed", "  gzip = true\n", "", "exp.hcl:7:10: Not an attribute of a transfer"},
		{"browse's conns", "  conns = 6\n", "", "exp.hcl:7:3: Unsupported argument"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(block, "%s", c.attrs, 1)
			sp, err := experiment.Load("exp.hcl", []byte(src), experiment.LoadOptions{})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sc := sp.Scenarios[0]; sc.Path != c.path || sc.Kind != transfer.Name || !sc.KeepAlive {
				t.Errorf("scenario %+v, want path %s, keep-alive", sc, c.path)
			}
			if n := len(sp.Plan()); n != 2 {
				t.Errorf("%d points, want one per visitor count", n)
			}
		})
	}
}

// transferRun is a run of the file: n answers of size bytes in 10 s, and
// the wire's bytes with their headers.
func transferRun(n, size int64) *result.Run {
	return &result.Run{Name: "c=1", Proto: "h1", KeepAlive: true, ElapsedMs: 10000, Attempts: n, Outcomes: result.Outcomes{OK: n}, RPS: float64(n) / 10,
		Bytes: result.Bytes{Body: n * size, WireIn: n * (size + 250), WireOut: n * 90}, ClientCPUMs: 100, ClientCPUs: 2,
		Latency: result.Latency{Count: uint64(n), P50: 2, P99: 5, Max: 9, Mean: 2.5}}
}

// The kind's figures, read from a record: the bodies' MB (10^6 bytes) per
// second, and the busiest load generator's link (its wire, headers
// included) as a share of the bandwidth stated for it.
func TestFigures(t *testing.T) {
	rec := results.Record{Point: results.Point{Kind: transfer.Name}, Set: result.Set{Run: transferRun(1000, 1<<20)}}
	mi := &results.MachineInfo{OwnMachine: true, LoadGenLinkMbps: 1000}
	fig := func(key string) results.Metric {
		m, ok := results.MetricOf(transfer.Name, key)
		if !ok {
			t.Fatalf("no figure %s", key)
		}
		return m
	}
	if v, ok := fig("mb_s").Of(mi)(rec); !ok || math.Abs(v-104.8576) > 1e-9 {
		t.Errorf("mb_s = %v, %v; want 104.8576 (1,000 MiB in 10 s)", v, ok)
	}
	// (2^20+250) bytes × 1,000 × 8 bits over 10 s: 839.0608 Mbit/s of 1,000.
	if v, ok := fig("link_pct").Of(mi)(rec); !ok || math.Abs(v-83.90608) > 1e-9 {
		t.Errorf("link_pct = %v, %v; want 83.90608", v, ok)
	}
	if _, ok := fig("link_pct").Of(&results.MachineInfo{OwnMachine: true})(rec); ok {
		t.Errorf("a link share with no bandwidth stated")
	}
	if _, ok := fig("mb_s").Of(mi)(results.Record{}); ok {
		t.Errorf("a rate of a point that made no run")
	}
	for _, key := range []string{"rps", "p99_ms", "error_pct", "server_cpu_ms"} {
		fig(key) // a run's figures, under the kind's words
	}
}

// The kind's section, from a run directory as the runner writes it: the
// rate and the link's share per step and column; the point whose link
// carried more than 90% of its stated bandwidth reads "bench" for every
// figure of the server, while its link's share is shown, since it says
// why; its chart; its figures in the repetitions section and the cost
// section (report.md, golden).
func TestReport(t *testing.T) {
	parent := t.TempDir()
	dir := runtest.Run{ID: "transfer", Reps: 2, Jitter: []float64{0, 4},
		Columns:   []string{"cpanel-apache", "caddy"},
		Scenarios: []results.Scenario{{Name: "image", Kind: transfer.Name, Path: "/wptest-105k.bin", Visitors: []int{10, 50}, Proto: "h1", KeepAlive: true, Duration: 15e9, Warmup: 3e9}},
		Machine:   &results.MachineInfo{Host: "server", OwnMachine: true, LoadGenLinkMbps: 1000},
		Edit: func(rec *results.Record) {
			// The wire carries ten times the bodies (as if each answer were
			// 1 MB on it): at 10 visitors 86% of the stated gigabit, at
			// 50 visitors 95%, over the 90% where the link sets the pace.
			n := int64(1000)
			if rec.Visitors == 50 {
				n = 1100
			}
			if rec.Column == "caddy" {
				n += 20
			}
			rec.Run = transferRun(n+int64(rec.Rep), 105<<10)
			rec.Run.Bytes.WireIn = rec.Run.Bytes.Body * 10
		}}.Write(t, parent)
	out, err := report.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(out.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	golden.File(t, filepath.Join("testdata", "report.md"), md)
	html, err := os.ReadFile(out.HTML)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `<figure id="chart-mb-s-image"`) || !strings.Contains(string(html), "transfer rate (MB/s)</text>") && strings.Contains(string(html), ": higher is better</text>") {
		t.Errorf("report.html has no chart of the transfer rate by visitors")
	}
	for _, want := range []string{
		"Large files (image: /wptest-105k.bin, h1)",
		"| c=10: transfer rate (MB/s) |",
		"| c=50: load generator's link, share of its stated bandwidth (%) | 9",
		"| c=50: transfer rate (MB/s) | bench | bench |",
		"or on the bench itself (load generator's link, share of its stated bandwidth (%)), which the tables show there too",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}
