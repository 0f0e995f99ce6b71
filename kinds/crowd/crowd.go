// Package crowd is the crowd scenario kind: a new visitor's wait while a
// crowd browses (the cPanel vs corehttpd post's 300, 1,000 and 3,000
// visitors). The crowd keeps keep-alive connections open, each visitor
// clicking every click_every; every probe_every a new visitor opens a
// fresh connection and asks for probe_path (default: path); no answer
// within give_up, and the visitor gave up. One point per crowd size.
//
//	scenario "crowd" {
//	  kind        = "crowd"
//	  path        = "/wptest-probe.js"
//	  visitors    = [300, 1000, 3000]
//	  click_every = "10s"
//	  probe_every = "500ms"
//	  give_up     = "30s"
//	}
package crowd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"

	"github.com/wptest/wptest/bench/benchcmd"
	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/report"
	"github.com/wptest/wptest/results"
)

// Name is the kind's name in an experiment file (kind = "crowd").
const Name = "crowd"

func init() {
	results.Register(results.Kind{Name: Name, Order: 40, Settings: func() any { return new(settings) }}, figures)
	experiment.Register(Name, kind{})
	report.Register(Name, report.Kind{Section: section, Charts: charts, Order: 20})
	benchcmd.Register(Name, benchcmd.Kind{Order: 40, Visitors: "1000", Load: benchLoad,
		Text:  func(w io.Writer, rep *result.Report) { benchgen.WriteCrowd(w, *rep.Crowd) },
		Help:  "-c visitors click every --click-every; a new visitor every --probe-every\nopens a fresh connection; no answer within --give-up = gave up",
		Check: benchCheck})
}

func benchLoad(ctx context.Context, f *benchcmd.Flags, rep *result.Report, base benchgen.Config) error {
	if !f.Given("duration") {
		base.Duration = 30 * time.Second
	}
	cc := benchgen.CrowdConfig{Base: base, ProbeURL: f.ProbeURL, Visitors: f.Visitors[0], ClickEvery: f.ClickEvery,
		ProbeEvery: f.ProbeEvery, GiveUp: f.GiveUp, Duration: base.Duration}
	if f.Given("warmup") {
		cc.Warmup = base.Warmup
	}
	c, err := benchgen.Crowd(ctx, cc)
	rep.Crowd = &c
	return err
}

func benchCheck(f *benchcmd.Flags) error {
	if f.Given("click-every") && f.ClickEvery == 0 || f.Given("probe-every") && f.ProbeEvery == 0 || f.Given("give-up") && f.GiveUp == 0 {
		return errors.New("--click-every, --probe-every and --give-up: want a duration > 0")
	}
	return nil
}

// figures are a newcomer's wait and whether it gave up, and what the
// crowd cost the server.
var figures = []results.Metric{
	{Name: "wait_p50_ms", Label: "wait, median (ms)", Unit: "ms", Better: results.Lower, Headline: true, Noise: true, Value: results.CrowdWaitP50},
	{Name: "wait_p99_ms", Label: "wait, p99 (ms)", Unit: "ms", Better: results.Lower, Value: results.CrowdWaitP99},
	{Name: "gave_up", Label: "new visitors who gave up", Unit: "probes", Better: results.Lower, Headline: true, Value: results.CrowdGaveUp, Failures: true},
	{Name: "gave_up_pct", Label: "new visitors who gave up (%)", Unit: "%", Better: results.Lower, Value: results.CrowdGaveUpPct, Failures: true},
	{Name: "server_cpu_ms", Label: "server CPU per request (ms)", Unit: "ms", Better: results.Lower, Headline: true, Value: results.ServerCPU, Scoped: results.ServerCPUIn, Whole: true},
	{Name: "web_php_cpu_ms", Label: "web server + PHP CPU per request (ms)", Unit: "ms", Better: results.Lower, Headline: true, Value: results.WebPHPCPU},
	{Name: "server_cpu_pct", Label: "server CPU (% of all CPUs)", Unit: "%", Value: results.CrowdMachineCPUPct, Whole: true},
	{Name: "groups_cpu_pct", Label: "server processes' CPU (% of all CPUs)", Unit: "%", Value: results.CrowdCPUPct},
	{Name: "pss_mb", Label: "memory: web server + PHP, peak PSS (MB)", Unit: "MB", Better: results.Lower, Headline: true, Value: results.PSSMB, State: true},
}

// fig is the crowd's figure key.
func fig(key string) results.Metric {
	m, ok := results.MetricOf(Name, key)
	if !ok {
		panic("crowd: no figure " + key) // every report of a crowd shows it: the tests
	}
	return m
}

type kind struct{}

// settings are a crowd's own attributes.
type settings struct {
	// ProbePath is what a new visitor asks for ("": the scenario's path).
	ProbePath  string        `json:"probe_path,omitempty"`
	ClickEvery time.Duration `json:"click_every"`
	ProbeEvery time.Duration `json:"probe_every"`
	GiveUp     time.Duration `json:"give_up"`
}

// defaults are the post's: a click every 10 s, a new visitor every half
// second, who gives up after 30 s.
var defaults = settings{ClickEvery: 10 * time.Second, ProbeEvery: 500 * time.Millisecond, GiveUp: 30 * time.Second}

// settingsOf are sc's settings (defaults where it has none).
func settingsOf(sc results.Scenario) settings {
	st := defaults
	_ = results.OwnOf(sc, &st) // the run wrote them: a stranger's bad JSON leaves the defaults
	return st
}

func (kind) Attrs() []hcl.AttributeSchema {
	return []hcl.AttributeSchema{{Name: "probe_path"}, {Name: "click_every"}, {Name: "probe_every"}, {Name: "give_up"}}
}

// Decode reads the crowd's own attributes and refuses a warm-up shorter
// than click_every: each visitor's first click falls in the first
// click_every, and the crowd the post describes is whole before the first
// new visitor arrives. Left out, a crowd's warm-up is one click_every
// (warmup).
func (kind) Decode(b experiment.Block, s *results.Scenario) hcl.Diagnostics {
	st := defaults
	var ds, d hcl.Diagnostics
	st.ProbePath, ds = b.Path("probe_path")
	for _, a := range []struct {
		name string
		v    *time.Duration
	}{{"click_every", &st.ClickEvery}, {"probe_every", &st.ProbeEvery}, {"give_up", &st.GiveUp}} {
		*a.v, d = b.Duration(a.name, *a.v)
		ds = append(ds, d...)
	}
	results.SetOwn(s, st)
	var ws string
	if a, ok := b.Written["warmup"]; !ok || gohcl.DecodeExpression(a.Expr, b.Ctx, &ws).HasErrors() || ws == "" {
		return ds // the default (warmup) or the common attribute's own error
	}
	if w, err := time.ParseDuration(ws); err != nil || w >= st.ClickEvery || ds.HasErrors() {
		return ds
	}
	r := b.Range("warmup")
	return append(ds, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Warm-up shorter than click_every", Subject: &r,
		Detail: fmt.Sprintf("warmup %q is shorter than click_every (%s): a crowd's warm-up is at least one click_every, so that every visitor has clicked once before the first new visitor arrives. Leave warmup out (it is then one click_every) or make it %s or more.", ws, st.ClickEvery, st.ClickEvery)})
}

// warmup is the crowd's warm-up: at least one click_every (a written one
// shorter was refused; the common default, 3 s, is raised).
func warmup(sc results.Scenario) time.Duration { return max(sc.Warmup, settingsOf(sc).ClickEvery) }

// Estimate: the warm-up, the newcomers' schedule, and about half a give-up
// for the last newcomer and the crowd's clicks still in flight.
func (kind) Estimate(sc results.Scenario) time.Duration {
	sc.Warmup = warmup(sc)
	return experiment.SweepEstimate(sc) + settingsOf(sc).GiveUp/2
}

func (kind) Job(ctx context.Context, p experiment.DataPoint) (benchgen.Job, func(*results.Record, *result.Server), error) {
	sc, st := p.Scenario, settingsOf(p.Scenario)
	cc := benchgen.CrowdConfig{Base: p.Config, Visitors: p.Point.Visitors, ClickEvery: st.ClickEvery, ProbeEvery: st.ProbeEvery,
		GiveUp: st.GiveUp, Warmup: warmup(sc), Duration: sc.Duration}
	if st.ProbePath != "" {
		cc.ProbeURL = p.URL(st.ProbePath)
	}
	j, err := benchgen.NewCrowdJob(cc)
	return j, nil, err
}

func charts(r *report.Report, sc results.Scenario, add report.AddChart) error {
	// No newcomer answered: each waited give_up, and gave up.
	giveUp := func(rec results.Record) (float64, bool) {
		if c := rec.Crowd; c != nil && c.Wait.Count == 0 && c.GaveUp > 0 && c.GiveUpMs > 0 {
			return float64(c.GiveUpMs), true
		}
		return 0, false
	}
	p, err := r.LinesOn(sc, "wait_p50_ms", report.Axis{Label: "new visitor's " + fig("wait_p50_ms").Label, LogOK: true, Floor: giveUp, FloorWhy: "none answered"})
	return add("crowd-"+sc.Name, "A new visitor's wait by crowd size, median", p, err)
}

func section(r *report.Report, sc results.Scenario) report.Section {
	ps, st := r.ColumnsOf(sc), settingsOf(sc)
	s := report.Section{ID: "crowd-" + sc.Name, Title: "A new visitor, while others are browsing (" + sc.Name + ")",
		Text: []string{fmt.Sprintf("A crowd keeps keep-alive connections open, each visitor clicking every %s; every %s a new visitor opens a fresh connection and asks for %s. No answer within %s: the visitor gave up.",
			st.ClickEvery, st.ProbeEvery, cmp.Or(st.ProbePath, sc.Path), st.GiveUp)}}
	if w := windowText(r, sc, ps); w != "" {
		s.Text = append(s.Text, w)
	}
	t := report.Table{Caption: "New visitor's wait by crowd size", Head: r.Head("", ps)}
	for _, st := range sc.Steps() {
		t.Rows = append(t.Rows, r.FigRows(st+": ", ps, sc, st, "wait_p50_ms", "wait_p99_ms")...)
		gave := fig("gave_up")
		gv := []string{st + ": " + gave.Label}
		for _, p := range ps {
			g := r.Metric(p, sc.Name, st, gave.Value)
			n := 0
			for _, rec := range r.Points(p, sc.Name, st) {
				if rec.Crowd != nil { // not a point left out (n/a)
					n = len(rec.Crowd.Probes)
				}
			}
			gv = append(gv, fmt.Sprintf("%s of %d", report.Cell(g), n))
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

// windowText says whether the crowd was on the site for each point's
// whole probe window: every visitor clicked before the first new visitor,
// and clicking until the last was answered or gave up. "" when no record
// has the crowd's window (runs from before it was recorded).
func windowText(r *report.Report, sc results.Scenario, ps []string) string {
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
