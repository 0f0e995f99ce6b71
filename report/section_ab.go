package report

import (
	"fmt"
	"github.com/wptest/wptest/results"
)

// The ab kind: Rasmus's ab test, ab's numbers.
var abReport = reportKind{Section: abSection, perRequest: true}

func abSection(r *Report, sc results.Scenario) Section {
	ps := r.ColumnsOf(sc)
	ka := "without keep-alive"
	if sc.KeepAlive {
		ka = "-k"
	}
	s := Section{ID: "ab-" + sc.Name, Title: fmt.Sprintf("ab: %s (%s)", sc.Name, sc.Path),
		Text: []string{fmt.Sprintf("ab -c %d -n %d %s, as in Rasmus's ab test.", sc.Visitors[0], sc.Requests, ka),
			"HTML transferred is ab's: the response bodies as received. Each request answered with the whole document makes it exactly complete requests × document length (the document as one plain request before the run received it); Rasmus's Apache 2 counted 3,072 bytes too many on his static file. The row below it is the difference."}}
	st := sc.Steps()[0]
	t := Table{Caption: "ab's numbers", Head: r.Head("", ps)}
	t.Rows = append(t.Rows, r.FigRows("", ps, sc, st, "rps", "mean_ms", "time_per_request_all_ms", "failed", "keep_alive_requests",
		"total_bytes", "document_bytes", "complete_requests", "html_bytes", "html_bytes_beyond_documents")...)
	t.Rows = append(t.Rows, r.CPURows("", "request", ps, sc.Name, st)...)
	s.Tables = append(s.Tables, t)
	if t, ok := r.GeneratorTable(sc); ok {
		s.Tables = append(s.Tables, t)
	}
	return s
}
