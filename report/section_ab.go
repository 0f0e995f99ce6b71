package report

import (
	"fmt"
	"github.com/wptest/wptest/results"
)

// The ab kind: Rasmus's ab test, ab's numbers.
var abReport = reportKind{section: abSection, perRequest: true}

func abSection(r *Report, sc results.Scenario) section {
	ps := r.profilesOf(sc)
	ka := "without keep-alive"
	if sc.KeepAlive {
		ka = "-k"
	}
	s := section{ID: "ab-" + sc.Name, Title: fmt.Sprintf("ab: %s (%s)", sc.Name, sc.Path),
		Text: []string{fmt.Sprintf("ab -c %d -n %d %s, as in Rasmus's ab test.", sc.Visitors[0], sc.Requests, ka),
			"HTML transferred is ab's: the response bodies as received. Each request answered with the whole document makes it exactly complete requests × document length (the document as one plain request before the run received it); Rasmus's Apache 2 counted 3,072 bytes too many on his static file. The row below it is the difference."}}
	st := sc.Steps()[0]
	t := table{Caption: "ab's numbers", Head: r.head("", ps)}
	t.Rows = append(t.Rows,
		r.row("Requests per second", ps, sc.Name, st, RPS),
		r.row("Time per request, mean (ms)", ps, sc.Name, st, MeanMs),
		r.row("Time per request, across all concurrent (ms)", ps, sc.Name, st, func(rec results.Record) (float64, bool) {
			if rec.Run == nil || rec.Run.Outcomes.OK == 0 {
				return 0, false
			}
			return rec.Run.ElapsedMs / float64(rec.Run.Outcomes.OK), true
		}),
		r.row("Failed requests", ps, sc.Name, st, func(rec results.Record) (float64, bool) {
			if rec.Run == nil {
				return 0, false
			}
			return float64(rec.Run.Outcomes.Failed()), true
		}),
		r.row("Keep-Alive requests", ps, sc.Name, st, func(rec results.Record) (float64, bool) {
			if rec.Run == nil {
				return 0, false
			}
			return float64(rec.Run.KeepAliveReqs), true
		}),
		r.row("Total transferred (bytes)", ps, sc.Name, st, func(rec results.Record) (float64, bool) {
			if rec.Run == nil {
				return 0, false
			}
			return float64(rec.Run.Bytes.WireIn), true
		}),
		r.row("Document length (bytes)", ps, sc.Name, st, results.ProbeBody),
		r.row("Complete requests", ps, sc.Name, st, func(rec results.Record) (float64, bool) {
			if rec.Run == nil {
				return 0, false
			}
			return float64(rec.Run.Attempts), true
		}),
		r.row("HTML transferred (bytes)", ps, sc.Name, st, func(rec results.Record) (float64, bool) {
			if rec.Run == nil {
				return 0, false
			}
			return float64(rec.Run.Bytes.Body), true
		}),
		r.row("HTML transferred − complete requests × document length (bytes)", ps, sc.Name, st, results.HTMLBeyondDocuments))
	t.Rows = append(t.Rows, r.cpuRows("", "request", ps, sc.Name, st)...)
	s.Tables = append(s.Tables, t)
	if t, ok := r.generatorTable(sc); ok {
		s.Tables = append(s.Tables, t)
	}
	return s
}
