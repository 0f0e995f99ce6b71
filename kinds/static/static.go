// Package static is the static scenario kind: a file over a sweep of
// visitors (the cPanel vs corehttpd post's static test, 10 to 1,000
// visitors), its requests per second and slowest visitors' wait (p99).
//
//	scenario "static" {
//	  kind     = "static"
//	  path     = "/wptest-probe.js"
//	  visitors = [10, 50, 100, 200, 500, 1000]
//	}
package static

import (
	"fmt"

	"github.com/wptest/wptest/bench/benchcmd"
	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/report"
	"github.com/wptest/wptest/results"
)

// Name is the kind's name in an experiment file (kind = "static").
const Name = "static"

func init() {
	results.Register(results.Kind{Name: Name, Order: 20}, results.RunMetrics("requests per second", "request", nil))
	experiment.Register(Name, experiment.RunKind{})
	report.Register(Name, report.Kind{Section: section, Charts: charts, PerRequest: true, Order: 30})
	benchcmd.Register(Name, benchcmd.Kind{Order: 20, Visitors: "10,50,100,200,500,1000", Load: benchcmd.Sweep,
		Help: "the same over a visitor sweep (default -c 10,50,100,200,500,1000)"})
}

func charts(r *report.Report, sc results.Scenario, add report.AddChart) error {
	p, err := r.Lines(sc, "rps", false)
	if err := add("rps-"+sc.Name, "Requests per second by visitors, median", p, err); err != nil {
		return err
	}
	p, err = r.Lines(sc, "p99_ms", true)
	return add("p99-"+sc.Name, "Slowest visitors' wait (p99) by visitors, median", p, err)
}

func section(r *report.Report, sc results.Scenario) report.Section {
	ps := r.ColumnsOf(sc)
	s := report.Section{ID: "static-" + sc.Name, Title: fmt.Sprintf("%s (%s: %s, %s)", "Static files", sc.Name, sc.Path, sc.Proto),
		Text: []string{"Requests per second and the slowest visitors' wait (p99) as visitors grow." + fmt.Sprintf(" %s per step after %s of warm-up.", report.Amount(sc), sc.Warmup)}}
	t := report.Table{Caption: "By visitors", Head: r.Head("", ps)}
	for _, st := range sc.Steps() {
		t.Rows = append(t.Rows, r.FigRows(st+": ", ps, sc, st, "rps", "p99_ms")...)
		t.Rows = append(t.Rows, r.CPURows(st+": ", "request", ps, sc.Name, st)...)
		t.Rows = append(t.Rows, r.FigRows(st+": ", ps, sc, st, "error_pct")...)
	}
	s.Tables = append(s.Tables, t)
	if t, ok := r.GeneratorTable(sc); ok {
		s.Tables = append(s.Tables, t)
	}
	s.Charts = []string{"rps-" + sc.Name, "p99-" + sc.Name}
	return s
}
