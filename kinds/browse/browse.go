// Package browse is the browse scenario kind: a visitor who loads a page
// and every asset it references, as a browser does (benchgen.Browse),
// over up to conns HTTP/1.1 connections (default 6, as browsers), or one
// multiplexed h2/h2c/h3 connection. One point per visitor count; its
// figures are per page view. The first browse section puts every browse
// scenario side by side (h1 over 6 connections against h2 over one, say)
// in a table and a chart.
//
//	scenario "browse-h1" {
//	  kind     = "browse"
//	  path     = "/"
//	  visitors = [10]
//	  proto    = "h1"   # h1, h2, h2c or h3
//	  conns    = 6      # h1 only; h2, h2c, h3: 1
//	  think    = "0s"   # a visitor's pause between page views
//	}
//
// duration, warmup and timeout (per page view) are the common attributes.
package browse

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
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

// Name is the kind's name in an experiment file (kind = "browse").
const Name = "browse"

func init() {
	results.Register(results.Kind{Name: Name, PHP: true, Order: 70, Settings: func() any { return new(settings) }}, figures)
	experiment.Register(Name, kind{})
	report.Register(Name, report.Kind{Section: section, Charts: charts, Order: 60})
	benchcmd.Register(Name, benchcmd.Kind{Order: 70, Visitors: "1", Load: benchLoad, Text: benchText,
		Help: "-c visitors load the page and every asset it references, as browsers do:\nh1 over up to 6 connections each, h2/h3 over one; page-view time, bytes per view"})
}

// benchLoad: -c visitors (the first count), each loading --url and every
// asset it references over up to 6 h1 connections or one h2/h3
// connection (--proto), for --duration after --warmup.
func benchLoad(ctx context.Context, f *benchcmd.Flags, rep *result.Report, base benchgen.Config) error {
	b, err := benchgen.Browse(ctx, benchgen.BrowseConfig{Base: base, Visitors: f.Visitors[0], Duration: base.Duration, Warmup: base.Warmup})
	rep.Browse = &b
	if err == nil && b.PageViewsOK == 0 {
		err = fmt.Errorf("browse: no page view of %d answered whole", b.PageViews)
	}
	return err
}

func benchText(w io.Writer, rep *result.Report) {
	b := rep.Browse
	fmt.Fprintf(w, "browse %s (%s): %s, up to %s each\n", b.URL, b.Proto, results.Plural(b.Visitors, "visitor"), results.Plural(b.ConnsPerVisitor, "connection"))
	fmt.Fprintf(w, "page views:        %d (%d ok, %d failed), %.2f/s\n", b.PageViews, b.PageViewsOK, b.PageViewsFailed, b.PageViewsPerSec)
	fmt.Fprintf(w, "page view (ms):    p50 %.2f  p90 %.2f  p99 %.2f  max %.2f\n", b.PageView.P50, b.PageView.P90, b.PageView.P99, b.PageView.Max)
	fmt.Fprintf(w, "first byte (ms):   p50 %.2f  p99 %.2f\n", b.TTFB.P50, b.TTFB.P99)
	fmt.Fprintf(w, "per page view:     %.0f bytes in, %.0f out, %.1f assets\n", b.WireIn.Mean, b.WireOut.Mean, b.Assets.Mean)
	fmt.Fprintf(w, "connections:       %d %v; responses %v\n", b.Connections, b.Negotiated, b.Responses)
}

// figures are per page view.
var figures = []results.Metric{
	{Name: "view_p50_ms", Label: "page view, p50 (ms)", Unit: "ms", Better: results.Lower, Headline: true, Noise: true, Value: results.BrowseViewP50},
	{Name: "view_p90_ms", Label: "page view, p90 (ms)", Unit: "ms", Better: results.Lower, Value: results.BrowseViewP90},
	{Name: "view_p99_ms", Label: "page view, p99 (ms)", Unit: "ms", Better: results.Lower, Headline: true, Value: results.BrowseViewP99},
	{Name: "ttfb_p50_ms", Label: "first byte, p50 (ms)", Unit: "ms", Better: results.Lower, Value: results.BrowseTTFBP50},
	{Name: "wire_bytes_per_view", Label: "bytes on the wire per page view", Unit: "B", Better: results.Lower, Headline: true, Noise: true, Value: results.BrowseWirePerView},
	{Name: "assets_per_view", Label: "assets per page view", Unit: "assets", Value: results.BrowseAssets},
	{Name: "views_per_sec", Label: "page views per second", Unit: "req/s", Better: results.Higher, Headline: true, Value: results.BrowseViewsPerSec},
	{Name: "failed_pct", Label: "failed page views (%)", Unit: "%", Better: results.Lower, Headline: true, Value: results.BrowseFailedPct, Failures: true},
	{Name: "server_cpu_ms", Label: "server CPU per page view (ms)", Unit: "ms", Better: results.Lower, Headline: true, Value: results.ServerCPU, Scoped: results.ServerCPUIn, Whole: true},
	{Name: "web_php_cpu_ms", Label: "web server + PHP CPU per page view (ms)", Unit: "ms", Better: results.Lower, Headline: true, Value: results.WebPHPCPU},
	{Name: "pss_mb", Label: "memory: web server + PHP, peak PSS (MB)", Unit: "MB", Better: results.Lower, Headline: true, Value: results.PSSMB, State: true},
	{Name: "served", Label: "answered in the protocol", Unit: "yes/no", Value: results.Served, Answered: true},
}

// maxConns bounds conns: far above any browser's, and far below a count
// that would make one visitor a crowd.
const maxConns = 64

type kind struct{}

// settings are a browse scenario's own attributes: the most connections a
// visitor opens over h1 (h2, h2c and h3 use one, multiplexed), and its
// pause between page views.
type settings struct {
	Conns int           `json:"conns"`
	Think time.Duration `json:"think,omitempty"`
	// Legacy are both as manifests recorded them before scenarios kept
	// their kind's settings apart ("Browse": {"Conns": 6, "Think": 0}).
	Legacy *struct {
		Conns int
		Think time.Duration
	} `json:"browse,omitempty"`
}

// settingsOf are sc's settings; false where it has none.
func settingsOf(sc results.Scenario) (settings, bool) {
	var st settings
	if results.OwnOf(sc, &st) != nil || len(sc.Own) == 0 {
		return settings{}, false
	}
	if l := st.Legacy; l != nil {
		st.Conns, st.Think, st.Legacy = l.Conns, l.Think, nil
	}
	return st, true
}

func (kind) Attrs() []hcl.AttributeSchema {
	return []hcl.AttributeSchema{{Name: "conns"}, {Name: "think"}}
}

func (kind) Decode(b experiment.Block, s *results.Scenario) hcl.Diagnostics {
	var ds hcl.Diagnostics
	bad := func(r hcl.Range, summary, detail string) {
		ds = append(ds, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: &r})
	}
	bs := settings{Conns: 1}
	if s.Proto == "h1" {
		bs.Conns = benchgen.DefaultBrowserConns
	}
	if a, ok := b.Attrs["conns"]; ok {
		var n int
		if d := gohcl.DecodeExpression(a.Expr, b.Ctx, &n); d.HasErrors() {
			ds = append(ds, d...)
		} else if n < 1 || n > maxConns {
			bad(a.Expr.Range(), "Invalid conns", fmt.Sprintf("conns = %d: want 1 to %d (browsers open 6).", n, maxConns))
		} else if s.Proto != "h1" && n != 1 {
			bad(a.Expr.Range(), "Invalid conns", fmt.Sprintf("conns = %d: over %s a visitor multiplexes its requests on one connection; conns is for h1.", n, s.Proto))
		} else {
			bs.Conns = n
		}
	}
	if a, ok := b.Attrs["think"]; ok {
		var t string
		if d := gohcl.DecodeExpression(a.Expr, b.Ctx, &t); d.HasErrors() {
			ds = append(ds, d...)
		} else if d, err := time.ParseDuration(cmp.Or(t, "0s")); err != nil || d < 0 {
			bad(a.Expr.Range(), "Invalid duration", fmt.Sprintf("%q: want a duration such as \"5s\" or \"1m30s\".", t))
		} else {
			bs.Think = d
		}
	}
	if s.Requests > 0 || s.Rate > 0 {
		bad(b.Range("requests"), "Browse measures a time window", "A browse scenario's visitors browse for duration (closed loop, with think time between page views): no requests or rate.")
	}
	results.SetOwn(s, bs)
	return ds
}

func (kind) Estimate(sc results.Scenario) time.Duration { return experiment.SweepEstimate(sc) }

func (kind) Job(ctx context.Context, p experiment.DataPoint) (benchgen.Job, func(*results.Record, *result.Server), error) {
	sc := p.Scenario
	bc := benchgen.BrowseConfig{Base: p.Config, Visitors: p.Point.Visitors, Duration: sc.Duration, Warmup: sc.Warmup}
	if bs, ok := settingsOf(sc); ok {
		bc.Conns, bc.Think = bs.Conns, bs.Think
	}
	if sc.Proto != "h1" {
		bc.Conns = 0 // multiplexed: one
	}
	j, err := benchgen.NewBrowseJob(bc)
	return j, nil, err
}

func charts(r *report.Report, sc results.Scenario, add report.AddChart) error {
	if scs := r.ScenariosOf(sc.Kind); len(scs) > 1 && scs[0].Name == sc.Name {
		p, err := bars(r, scs)
		return add("browse-compare", "Page-view time (p50) by protocol and connections, median over repetitions", p, err)
	}
	return nil
}

// browseHow is how a browse scenario's visitors connect: "h1, up to 6
// connections per visitor" or "h2, one connection per visitor".
func browseHow(sc results.Scenario) string {
	if bs, ok := settingsOf(sc); ok && sc.Proto == "h1" {
		return fmt.Sprintf("%s, up to %s per visitor", sc.Proto, results.Plural(bs.Conns, "connection"))
	}
	return sc.Proto + ", one connection per visitor, multiplexed"
}

func section(r *report.Report, sc results.Scenario) report.Section {
	ps := r.ColumnsOf(sc)
	think := "no pause between page views (closed loop)"
	if bs, _ := settingsOf(sc); bs.Think > 0 {
		think = fmt.Sprintf("%s between page views", bs.Think)
	}
	s := report.Section{ID: "browse-" + sc.Name, Title: fmt.Sprintf("A visitor's page view (%s: %s, %s)", sc.Name, sc.Path, browseHow(sc)),
		Text: []string{fmt.Sprintf("Each visitor loads %s and every asset it references (stylesheets, scripts, images, icons, the stylesheets' url()s), as a browser does with an empty cache, over %s; %s. "+
			"Page-view time: from the start until every asset has arrived, as a browser reports it; bytes on the wire as received, per page view. %s per step after a %s warm-up.",
			sc.Path, browseHow(sc), think, sc.Duration, sc.Warmup)}}
	for _, st := range sc.Steps() {
		t := report.Table{Caption: fmt.Sprintf("%s at %s", sc.Name, st), Head: r.Head("", ps)}
		t.Rows = append(t.Rows, r.FigRows("", ps, sc, st, "view_p50_ms", "view_p90_ms", "view_p99_ms", "ttfb_p50_ms",
			"wire_bytes_per_view", "assets_per_view", "views_per_sec")...)
		t.Rows = append(t.Rows, r.CPURows("", "page view", ps, sc.Name, st)...)
		t.Rows = append(t.Rows, r.FigRows("", ps, sc, st, "failed_pct")...)
		s.Tables = append(s.Tables, t)
	}
	if scs := r.ScenariosOf(sc.Kind); len(scs) > 1 && scs[0].Name == sc.Name {
		s.Tables = append(s.Tables, compareTable(r, scs))
		s.Charts = []string{"browse-compare"}
	}
	if t, ok := generators(r, sc); ok {
		s.Tables = append(s.Tables, t)
	}
	return s
}

// browseGenerators shows, for points split between several load
// generators, each one's share beside their merged result (page views
// added; times from the merged histograms).
func generators(r *report.Report, sc results.Scenario) (report.Table, bool) {
	t := report.Table{Caption: "Load generators: each one's share, and merged (counts added, percentiles from the merged histograms)",
		Head: []string{"point", "load generator", "visitors", "page views", "page view p50 (ms)", "page view p99 (ms)", "bytes per page view"}}
	for _, rec := range r.Records {
		if rec.Scenario != sc.Name || len(rec.Generators) < 2 || rec.Browse == nil {
			continue
		}
		point := fmt.Sprintf("%s, %s, rep %d", cmp.Or(r.Labels[rec.Column], rec.Column), rec.Step, rec.Rep)
		for _, g := range append(rec.Generators, results.GeneratorResult{Host: "merged", Set: rec.Set}) {
			b := g.Browse
			if b == nil {
				t.Rows = append(t.Rows, []string{point, g.Host, "–", "–", "–", "–", "–"})
				continue
			}
			t.Rows = append(t.Rows, []string{point, g.Host, fmt.Sprint(b.Visitors), report.Commas(fmt.Sprint(b.PageViews)),
				report.Num(b.PageView.P50), report.Num(b.PageView.P99), report.Num(b.WireIn.Mean)})
		}
	}
	return t, len(t.Rows) > 0
}

// browseCompare puts every browse scenario's first step side by side: its
// page-view times and bytes per view in each column (n/a where the
// column's server does not serve the scenario's protocol).
func compareTable(r *report.Report, scs []results.Scenario) report.Table {
	t := report.Table{Caption: "Side by side: each browse scenario's first step", Head: r.Head("", r.Columns)}
	for _, sc := range scs {
		st := sc.Steps()[0]
		name := fmt.Sprintf("%s (%s) %s", sc.Name, browseHow(sc), st)
		t.Rows = append(t.Rows,
			r.FigRows(name+": ", r.Columns, sc, st, "view_p50_ms", "view_p90_ms", "view_p99_ms", "wire_bytes_per_view")...)
	}
	return t
}

// bars: per browse scenario (its first step's page-view p50), one bar
// for each column in the column's colour, with its value; the legend names
// the columns.
func bars(r *report.Report, scs []results.Scenario) (*report.ChartPlot, error) {
	var names []string
	for _, sc := range scs {
		names = append(names, sc.Name+" ("+strings.SplitN(browseHow(sc), ",", 2)[0]+browseConns(sc)+")")
	}
	return r.ScenarioBars(scs, names, "view_p50_ms", "Page view, p50", "browse scenario (protocol ×connections per visitor)", "page-view time, p50 (ms)")
}

// browseConns is " ×6" for an h1 scenario of 6 connections per visitor,
// " ×1" otherwise.
func browseConns(sc results.Scenario) string {
	if bs, ok := settingsOf(sc); ok && sc.Proto == "h1" {
		return fmt.Sprintf(" ×%d", bs.Conns)
	}
	return " ×1"
}
