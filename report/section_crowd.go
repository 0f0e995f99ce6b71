package report

import (
	"fmt"
	"github.com/wptest/wptest/results"
)

// The crowd kind: a new visitor's wait while a crowd browses.
var crowdReport = reportKind{section: crowdSection,
	charts: func(r *Report, sc results.Scenario, add addChart) error {
		p, err := r.lines(sc, "New visitor's wait, median (ms)", CrowdWaitP50)
		return add("crowd-"+sc.Name, "A new visitor's wait by crowd size, median", p, err)
	}}

func crowdSection(r *Report, sc results.Scenario) section {
	ps := r.profilesOf(sc)
	s := section{ID: "crowd-" + sc.Name, Title: "A new visitor, while others are browsing (" + sc.Name + ")",
		Text: []string{fmt.Sprintf("A crowd keeps keep-alive connections open, each visitor clicking every %s; every %s a new visitor opens a fresh connection and asks for %s. No answer within %s: the visitor gave up.",
			sc.ClickEvery, sc.ProbeEvery, firstNonEmpty(sc.ProbePath, sc.Path), sc.GiveUp)}}
	t := table{Caption: "New visitor's wait by crowd size", Head: r.head("", ps)}
	for _, st := range sc.Steps() {
		t.Rows = append(t.Rows,
			r.row(st+": wait, median (ms)", ps, sc.Name, st, CrowdWaitP50),
			r.row(st+": wait, p99 (ms)", ps, sc.Name, st, CrowdWaitP99))
		gv := []string{st + ": gave up"}
		for _, p := range ps {
			g := r.Metric(p, sc.Name, st, CrowdGaveUp)
			n := 0
			for _, rec := range r.Points(p, sc.Name, st) {
				if rec.Crowd != nil { // not a point left out (n/a)
					n = len(rec.Crowd.Probes)
				}
			}
			gv = append(gv, fmt.Sprintf("%s of %d", cell(g), n))
		}
		t.Rows = append(t.Rows, gv, r.row(st+": server CPU (% of all CPUs)", ps, sc.Name, st, CrowdCPUPct))
	}
	s.Tables = append(s.Tables, t)
	if t, ok := r.generatorTable(sc); ok {
		s.Tables = append(s.Tables, t)
	}
	s.Charts = []string{"crowd-" + sc.Name}
	return s
}
