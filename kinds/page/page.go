// Package page is the page scenario kind: a WordPress page over a sweep of
// visitors, each its own keep-alive connection (closed loop), its time,
// pages per second, CPU and memory per page. Its first scenario is the
// report's first paragraph ("In short").
//
//	scenario "page" {
//	  kind     = "page"
//	  path     = "/"
//	  gzip     = true
//	  visitors = [4, 150]
//	}
package page

import (
	"fmt"
	"strings"

	"github.com/wptest/wptest/bench/benchcmd"
	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/report"
	"github.com/wptest/wptest/results"
)

// Name is the kind's name in an experiment file (kind = "page").
const Name = "page"

func init() {
	results.Register(results.Kind{Name: Name, PHP: true, Order: 10}, figures)
	experiment.Register(Name, experiment.RunKind{})
	report.Register(Name, report.Kind{Section: section, Charts: charts, InShort: inShort, PerRequest: true, Order: 10})
	benchcmd.Register(Name, benchcmd.Kind{Order: 10, Visitors: "50", Load: benchcmd.Sweep,
		Help: "N visitors, each its own keep-alive connection, closed loop (default)"})
}

// figures are a page's: what the post measured of one.
var figures = []results.Metric{
	{Name: "rps", Label: "pages per second", Unit: "req/s", Better: results.Higher, Headline: true, Noise: true, Value: results.RPS},
	{Name: "mean_ms", Label: "page time, mean (ms)", Unit: "ms", Better: results.Lower, Value: results.MeanMs},
	{Name: "p50_ms", Label: "page time, p50 (ms)", Unit: "ms", Better: results.Lower, Headline: true, Value: results.P50Ms},
	{Name: "p99_ms", Label: "page time, p99 (ms)", Unit: "ms", Better: results.Lower, Headline: true, Value: results.P99Ms},
	{Name: "error_pct", Label: "failed (%)", Unit: "%", Better: results.Lower, Headline: true, Value: results.ErrPct, Failures: true},
	{Name: "server_cpu_ms", Label: "server CPU per page (ms)", Unit: "ms", Better: results.Lower, Headline: true, Noise: true, Value: results.ServerCPU, Scoped: results.ServerCPUIn, Whole: true},
	{Name: "web_php_cpu_ms", Label: "web server + PHP CPU per page (ms)", Unit: "ms", Better: results.Lower, Headline: true, Noise: true, Value: results.WebPHPCPU},
	{Name: "groups_cpu_ms", Label: results.GroupsCPULabel + " CPU per page (ms)", Unit: "ms", Better: results.Lower, Value: results.ServerCPU},
	{Name: "db_cpu_ms", Label: "database CPU per page (ms)", Unit: "ms", Better: results.Lower, Value: results.DBCPU},
	{Name: "machine_cpu_ms", Label: "machine CPU per page (ms)", Unit: "ms", Better: results.Lower, Value: results.MachineCPU, Whole: true},
	{Name: "pss_mb", Label: "memory: web server + PHP, peak PSS (MB)", Unit: "MB", Better: results.Lower, Headline: true, Value: results.PSSMB, State: true},
	{Name: "php_procs_peak", Label: "PHP processes at once, peak", Unit: "processes", Value: results.PHPProcsPeak, State: true},
	{Name: "wire_bytes", Label: "bytes on the wire per page", Unit: "B", Better: results.Lower, Value: results.WireBytes},
}

// fig is the page's figure key.
func fig(key string) results.Metric {
	m, ok := results.MetricOf(Name, key)
	if !ok {
		panic("page: no figure " + key) // every report of a page shows it: the tests
	}
	return m
}

func charts(r *report.Report, sc results.Scenario, add report.AddChart) error {
	p, err := r.Bars(sc, "web_php_cpu_ms")
	return add("cpu-"+sc.Name, "CPU per WordPress page in the web server and PHP, median over repetitions", p, err)
}

// inShort is the post's first paragraph: page time, pages/s and CPU per page.
func inShort(r *report.Report, pages []results.Scenario) (report.Section, bool) {
	if len(pages) == 0 || len(r.Columns) < 2 {
		return report.Section{}, false
	}
	sc := pages[0]
	step := sc.Steps()[0]
	var parts []string
	for _, p := range r.Columns {
		ms := r.Metric(p, sc.Name, step, fig("mean_ms").Value)
		ps := r.Metric(p, sc.Name, step, fig("rps").Value)
		cpu := r.Metric(p, sc.Name, step, fig("web_php_cpu_ms").Value)
		if ms.N == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("behind %s a WordPress page took %s ms, %s pages per second, %s ms of CPU per page in the web server and PHP",
			r.Labels[p], report.Num(ms.Med), report.Num(ps.Med), report.Num(cpu.Med)))
	}
	if len(parts) == 0 {
		return report.Section{}, false
	}
	return report.Section{ID: "in-short", Title: "In short", Text: []string{fmt.Sprintf("At %d visitors (%s): %s.", sc.Visitors[0], sc.Name, strings.Join(parts, "; "))}}, true
}

func section(r *report.Report, sc results.Scenario) report.Section {
	ps := r.ColumnsOf(sc)
	s := report.Section{ID: "page-" + sc.Name, Title: "A WordPress page (" + sc.Name + ")",
		Text: []string{fmt.Sprintf("%s, %s per step after a %s warm-up, each visitor its own keep-alive connection (closed loop)%s.", sc.Path, report.Amount(sc), sc.Warmup, report.GzipNote(sc))}}
	for _, st := range sc.Steps() {
		t := report.Table{Caption: fmt.Sprintf("%s at %s", sc.Name, st), Head: r.Head("", ps)}
		t.Rows = append(t.Rows, r.FigRows("", ps, sc, st, "mean_ms", "rps")...)
		t.Rows = append(t.Rows, r.CPURows("", "page", ps, sc.Name, st)...)
		t.Rows = append(t.Rows, r.FigRows("  of which ", ps, sc, st, "web_php_cpu_ms", "db_cpu_ms")...)
		t.Rows = append(t.Rows, r.FigRows("", ps, sc, st, "pss_mb", "wire_bytes", "error_pct")...)
		enc := []string{"Content-Encoding"}
		for _, p := range ps {
			enc = append(enc, r.Encoding(p, sc.Name, st))
		}
		t.Rows = append(t.Rows, enc)
		s.Tables = append(s.Tables, t)
	}
	if t, ok := r.GeneratorTable(sc); ok {
		s.Tables = append(s.Tables, t)
	}
	s.Charts = []string{"cpu-" + sc.Name}
	return s
}
