package report

import (
	"fmt"
	"math"

	"github.com/wptest/wptest/results"
)

// The crowd kind: a new visitor's wait while a crowd browses.
var crowdReport = reportKind{Section: crowdSection,
	charts: func(r *Report, sc results.Scenario, add AddChart) error {
		// No newcomer answered: each waited give_up, and gave up.
		giveUp := func(rec results.Record) (float64, bool) {
			if c := rec.Crowd; c != nil && c.Wait.Count == 0 && c.GaveUp > 0 && c.GiveUpMs > 0 {
				return float64(c.GiveUpMs), true
			}
			return 0, false
		}
		m := fig(sc.Kind, "wait_p50_ms")
		p, err := r.lines(sc, yAxis{label: "new visitor's " + m.Label, logOK: true, floor: giveUp, floorWhy: "none answered"}, m.Value)
		return add("crowd-"+sc.Name, "A new visitor's wait by crowd size, median", p, err)
	}}

func crowdSection(r *Report, sc results.Scenario) Section {
	ps := r.ColumnsOf(sc)
	s := Section{ID: "crowd-" + sc.Name, Title: "A new visitor, while others are browsing (" + sc.Name + ")",
		Text: []string{fmt.Sprintf("A crowd keeps keep-alive connections open, each visitor clicking every %s; every %s a new visitor opens a fresh connection and asks for %s. No answer within %s: the visitor gave up.",
			sc.ClickEvery, sc.ProbeEvery, firstNonEmpty(sc.ProbePath, sc.Path), sc.GiveUp)}}
	if w := crowdWindowText(r, sc, ps); w != "" {
		s.Text = append(s.Text, w)
	}
	t := Table{Caption: "New visitor's wait by crowd size", Head: r.Head("", ps)}
	for _, st := range sc.Steps() {
		t.Rows = append(t.Rows, r.FigRows(st+": ", ps, sc, st, "wait_p50_ms", "wait_p99_ms")...)
		gave := fig(sc.Kind, "gave_up")
		gv := []string{st + ": " + gave.Label}
		for _, p := range ps {
			g := r.Metric(p, sc.Name, st, gave.Value)
			n := 0
			for _, rec := range r.Points(p, sc.Name, st) {
				if rec.Crowd != nil { // not a point left out (n/a)
					n = len(rec.Crowd.Probes)
				}
			}
			gv = append(gv, fmt.Sprintf("%s of %d", cell(g), n))
		}
		t.Rows = append(t.Rows, gv)
		t.Rows = append(t.Rows, r.FigRows(st+": ", ps, sc, st, "groups_cpu_pct")...)
	}
	s.Tables = append(s.Tables, t)
	if t, ok := r.GeneratorTable(sc); ok {
		s.Tables = append(s.Tables, t)
	}
	s.Charts = []string{"crowd-" + sc.Name}
	return s
}

// crowdWindowText says whether the crowd was on the site for each point's
// whole probe window: every visitor clicked before the first new visitor,
// and clicking until the last was answered or gave up. "" when no record
// has the crowd's window (runs from before it was recorded).
func crowdWindowText(r *Report, sc results.Scenario, ps []string) string {
	n, short, first := 0, 0, ""
	lead, tail := math.Inf(1), math.Inf(1)
	for _, st := range sc.Steps() {
		for _, p := range ps {
			for _, rec := range r.Points(p, sc.Name, st) {
				if rec.Crowd == nil || rec.Crowd.Window == nil {
					continue
				}
				w := rec.Crowd.Window
				n++
				l, t := w.FirstProbeMs-w.CompleteMs, w.StoppedMs-w.LastProbeEndMs
				lead, tail = min(lead, l), min(tail, t)
				if l < 0 || t < 0 {
					if short++; first == "" {
						first = fmt.Sprintf("%s, %s, repetition %d", p, st, rec.Rep)
					}
				}
			}
		}
	}
	switch {
	case n == 0:
		return ""
	case short == 0:
		return fmt.Sprintf("The crowd was on the site for the whole probe window in every point (%d): complete at least %.1f s before the first new visitor, clicking until the last had been answered or had given up.", n, lead/1000)
	}
	return fmt.Sprintf("In %d of %d points the crowd was not on the site for the whole probe window (the first: %s), so some new visitors there were measured without the whole crowd.", short, n, first)
}
