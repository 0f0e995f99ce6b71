package report

import (
	"fmt"
	"github.com/wptest/wptest/results"
)

// The static kind: a file over a sweep of visitors.
var staticReport = reportKind{Section: staticSection, perRequest: true,
	charts: func(r *Report, sc results.Scenario, add AddChart) error {
		rps, p99 := fig(sc.Kind, "rps"), fig(sc.Kind, "p99_ms")
		p, err := r.lines(sc, yAxis{label: rps.Label}, rps.Value)
		if err := add("rps-"+sc.Name, "Requests per second by visitors, median", p, err); err != nil {
			return err
		}
		p, err = r.lines(sc, yAxis{label: p99.Label, logOK: true}, p99.Value)
		return add("p99-"+sc.Name, "Slowest visitors' wait (p99) by visitors, median", p, err)
	}}

func staticSection(r *Report, sc results.Scenario) Section {
	ps := r.ColumnsOf(sc)
	s := Section{ID: "static-" + sc.Name, Title: fmt.Sprintf("%s (%s: %s, %s)", "Static files", sc.Name, sc.Path, sc.Proto),
		Text: []string{"Requests per second and the slowest visitors' wait (p99) as visitors grow." + fmt.Sprintf(" %s per step after %s of warm-up.", Amount(sc), sc.Warmup)}}
	t := Table{Caption: "By visitors", Head: r.Head("", ps)}
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
