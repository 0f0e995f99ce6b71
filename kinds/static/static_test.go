package static_test

import (
	"os"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/runtest"
	_ "github.com/wptest/wptest/kinds/static"
	"github.com/wptest/wptest/report"
	"github.com/wptest/wptest/results"
)

// A static scenario's section: requests per second and p99 per step and
// column, and its two charts by visitors, p99 on a log scale where it
// spans 10x.
func TestSection(t *testing.T) {
	dir := runtest.Run{ID: "static", Reps: 2, Jitter: []float64{0, 10},
		Scenarios: []results.Scenario{{Name: "files", Kind: "static", Path: "/wptest-probe.js", Visitors: []int{10, 1000}, Proto: "h1", KeepAlive: true, Duration: 15e9, Warmup: 3e9}},
		Edit: func(rec *results.Record) {
			if rec.Visitors == 1000 {
				rec.Run.Latency.P99 *= 40
			}
		}}.Write(t, t.TempDir())
	out, err := report.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(out.Markdown)
	html, _ := os.ReadFile(out.HTML)
	for _, want := range []string{"## Static files (files: /wptest-probe.js, h1)", "| c=10: requests per second | ", "| c=1000: latency p99 (ms) | 378 (360–396) |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	for _, want := range []string{`<figure id="chart-rps-files"`, `<figure id="chart-p99-files"`} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
}
