// Package ab is Rasmus's ab test as a scenario kind: ab -c N -n M [-k]
// against one document, over HTTP/1.0 as ab sends it (over h1), and ab's
// own numbers, in ab's own words (complete requests, keep-alive requests,
// total and HTML transferred, requests per second, time per request).
//
//	scenario "static" {
//	  kind     = "ab"
//	  path     = "/wptest-1k.html"
//	  visitors = [5]
//	  requests = 50000
//	  duration = "0s"
//	}
package ab

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/wptest/wptest/bench/benchcmd"
	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/report"
	"github.com/wptest/wptest/results"
)

// Name is the kind's name in an experiment file (kind = "ab").
const Name = "ab"

func init() {
	results.Register(results.Kind{Name: Name, Order: 60}, figures)
	experiment.Register(Name, kind{})
	report.Register(Name, report.Kind{Section: section, PerRequest: true, Order: 50})
	benchcmd.Register(Name, benchcmd.Kind{Order: 60, Visitors: "1", NoWarmup: true, ManyURLs: true, Load: benchLoad, Text: benchText,
		Help: "ab's test: -c 5 -n 50000 [-k], one run per --url, ab-style text"})
}

// benchLoad is Rasmus's ab test: one run per --url, HTTP/1.0 as ab sends
// it unless told otherwise.
func benchLoad(ctx context.Context, f *benchcmd.Flags, rep *result.Report, base benchgen.Config) error {
	base.KeepAlive = f.KeepAlive
	base.HTTP10 = f.HTTP10 || !f.Given("http1.0") && base.Proto == "h1"
	if !f.Given("duration") && f.Requests > 0 {
		base.Duration = 0
	}
	for _, u := range f.URLs {
		cfg := base
		cfg.URL, cfg.Visitors, cfg.Name = u, f.Visitors[0], u
		r, err := benchgen.Run(ctx, cfg)
		if err != nil {
			return err
		}
		rep.Runs = append(rep.Runs, r)
	}
	return nil
}

func benchText(w io.Writer, rep *result.Report) {
	for i, r := range rep.Runs {
		if i > 0 {
			io.WriteString(w, "\n----------------\n")
		}
		benchgen.WriteAB(w, r)
	}
}

// figures are a run's, in ab's own words where it prints them, and ab's
// counts.
var figures = results.Relabel(results.RunMetrics("requests per second", "request", []results.Metric{
	// ab's: the time over complete requests, failed ones included.
	{Name: "time_per_request_all_ms", Label: "Time per request, across all concurrent (ms)", Unit: "ms", Better: results.Lower, Value: results.RunField(func(r *result.Run) float64 {
		return r.ElapsedMs / float64(r.Attempts)
	}, func(r *result.Run) bool { return r.Attempts > 0 })},
	{Name: "failed", Label: "Failed requests", Unit: "requests", Better: results.Lower, Value: results.RunField(func(r *result.Run) float64 { return float64(r.Outcomes.Failed()) }), Failures: true},
	{Name: "keep_alive_requests", Label: "Keep-Alive requests", Unit: "requests", Value: results.RunField(func(r *result.Run) float64 { return float64(r.KeepAliveReqs) })},
	{Name: "total_bytes", Label: "Total transferred (bytes)", Unit: "B", Value: results.RunField(func(r *result.Run) float64 { return float64(r.Bytes.WireIn) })},
	{Name: "document_bytes", Label: "Document length (bytes)", Unit: "B", Value: results.ProbeBody},
	{Name: "complete_requests", Label: "Complete requests", Unit: "requests", Value: results.RunField(func(r *result.Run) float64 { return float64(r.Attempts) })},
	{Name: "html_bytes", Label: "HTML transferred (bytes)", Unit: "B", Value: results.RunField(func(r *result.Run) float64 { return float64(r.Bytes.Body) })},
	{Name: "html_bytes_per_request", Label: "HTML transferred per answered request (bytes)", Unit: "B", Value: results.HTMLPerRequest},
	{Name: "html_bytes_beyond_documents", Label: "HTML transferred − complete requests × document length (bytes)", Unit: "B", Value: results.HTMLBeyondDocuments},
}), map[string]string{"rps": "Requests per second", "mean_ms": "Time per request, mean (ms)"})

type kind struct{}

func (kind) Attrs() []hcl.AttributeSchema                               { return nil }
func (kind) Decode(experiment.Block, *results.Scenario) hcl.Diagnostics { return nil }
func (kind) Estimate(sc results.Scenario) time.Duration                 { return experiment.SweepEstimate(sc) }

// Job is over h1 ab's HTTP/1.0 requests, so the server does the work it
// did under ab (its answers are longer than to HTTP/1.1).
func (kind) Job(ctx context.Context, p experiment.DataPoint) (benchgen.Job, func(*results.Record, *result.Server), error) {
	cfg := p.Config
	cfg.HTTP10 = p.Scenario.Proto == "h1"
	j, err := benchgen.NewRunJob(cfg)
	return j, nil, err
}

// section is ab's numbers for one document, per column.
func section(r *report.Report, sc results.Scenario) report.Section {
	ps := r.ColumnsOf(sc)
	ka := "without keep-alive"
	if sc.KeepAlive {
		ka = "-k"
	}
	s := report.Section{ID: "ab-" + sc.Name, Title: fmt.Sprintf("ab: %s (%s)", sc.Name, sc.Path),
		Text: []string{fmt.Sprintf("ab -c %d -n %d %s, as in Rasmus's ab test.", sc.Visitors[0], sc.Requests, ka),
			"HTML transferred is ab's: the response bodies as received. Each request answered with the whole document makes it exactly complete requests × document length (the document as one plain request before the run received it); Rasmus's Apache 2 counted 3,072 bytes too many on his static file. The row below it is the difference."}}
	st := sc.Steps()[0]
	t := report.Table{Caption: "ab's numbers", Head: r.Head("", ps)}
	t.Rows = append(t.Rows, r.FigRows("", ps, sc, st, "rps", "mean_ms", "time_per_request_all_ms", "failed", "keep_alive_requests",
		"total_bytes", "document_bytes", "complete_requests", "html_bytes", "html_bytes_beyond_documents")...)
	t.Rows = append(t.Rows, r.CPURows("", "request", ps, sc.Name, st)...)
	s.Tables = append(s.Tables, t)
	if t, ok := r.GeneratorTable(sc); ok {
		s.Tables = append(s.Tables, t)
	}
	return s
}
