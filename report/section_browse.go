package report

import (
	"fmt"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/wptest/wptest/results"
)

// The browse kind: a visitor loading a page and every asset it
// references, as a browser does; its figures are per page view. The first
// browse section puts every browse scenario side by side (h1 over 6
// connections against h2 over one, say) in a table and a chart.
var browseReport = reportKind{Section: browseSection,
	charts: func(r *Report, sc results.Scenario, add AddChart) error {
		if scs := r.scenarios(sc.Kind); len(scs) > 1 && scs[0].Name == sc.Name {
			p, err := r.browseBars(scs)
			return add("browse-compare", "Page-view time (p50) by protocol and connections, median over repetitions", p, err)
		}
		return nil
	}}

// browseHow is how a browse scenario's visitors connect: "h1, up to 6
// connections per visitor" or "h2, one connection per visitor".
func browseHow(sc results.Scenario) string {
	if sc.Browse != nil && sc.Proto == "h1" {
		return fmt.Sprintf("%s, up to %d connection(s) per visitor", sc.Proto, sc.Browse.Conns)
	}
	return sc.Proto + ", one connection per visitor, multiplexed"
}

func browseSection(r *Report, sc results.Scenario) Section {
	ps := r.ColumnsOf(sc)
	think := "no pause between page views (closed loop)"
	if sc.Browse != nil && sc.Browse.Think > 0 {
		think = fmt.Sprintf("%s between page views", sc.Browse.Think)
	}
	s := Section{ID: "browse-" + sc.Name, Title: fmt.Sprintf("A visitor's page view (%s: %s, %s)", sc.Name, sc.Path, browseHow(sc)),
		Text: []string{fmt.Sprintf("Each visitor loads %s and every asset it references (stylesheets, scripts, images, icons, the stylesheets' url()s), as a browser does with an empty cache, over %s; %s. "+
			"Page-view time: from the start until every asset has arrived, as a browser reports it; bytes on the wire as received, per page view. %s per step after a %s warm-up.",
			sc.Path, browseHow(sc), think, sc.Duration, sc.Warmup)}}
	for _, st := range sc.Steps() {
		t := Table{Caption: fmt.Sprintf("%s at %s", sc.Name, st), Head: r.Head("", ps)}
		t.Rows = append(t.Rows, r.FigRows("", ps, sc, st, "view_p50_ms", "view_p90_ms", "view_p99_ms", "ttfb_p50_ms",
			"wire_bytes_per_view", "assets_per_view", "views_per_sec")...)
		t.Rows = append(t.Rows, r.CPURows("", "page view", ps, sc.Name, st)...)
		t.Rows = append(t.Rows, r.FigRows("", ps, sc, st, "failed_pct")...)
		s.Tables = append(s.Tables, t)
	}
	if scs := r.scenarios(sc.Kind); len(scs) > 1 && scs[0].Name == sc.Name {
		s.Tables = append(s.Tables, r.browseCompare(scs))
		s.Charts = []string{"browse-compare"}
	}
	if t, ok := r.browseGenerators(sc); ok {
		s.Tables = append(s.Tables, t)
	}
	return s
}

// browseGenerators shows, for points split between several load
// generators, each one's share beside their merged result (page views
// added; times from the merged histograms).
func (r *Report) browseGenerators(sc results.Scenario) (Table, bool) {
	t := Table{Caption: "Load generators: each one's share, and merged (counts added, percentiles from the merged histograms)",
		Head: []string{"point", "load generator", "visitors", "page views", "page view p50 (ms)", "page view p99 (ms)", "bytes per page view"}}
	for _, rec := range r.Records {
		if rec.Scenario != sc.Name || len(rec.Generators) < 2 || rec.Browse == nil {
			continue
		}
		point := fmt.Sprintf("%s, %s, rep %d", firstNonEmpty(r.Labels[rec.Column], rec.Column), rec.Step, rec.Rep)
		for _, g := range append(rec.Generators, results.GeneratorResult{Host: "merged", Set: rec.Set}) {
			b := g.Browse
			if b == nil {
				t.Rows = append(t.Rows, []string{point, g.Host, "–", "–", "–", "–", "–"})
				continue
			}
			t.Rows = append(t.Rows, []string{point, g.Host, fmt.Sprint(b.Visitors), commas(fmt.Sprint(b.PageViews)),
				num(b.PageView.P50), num(b.PageView.P99), num(b.WireIn.Mean)})
		}
	}
	return t, len(t.Rows) > 0
}

// browseCompare puts every browse scenario's first step side by side: its
// page-view times and bytes per view in each column (n/a where the
// column's server does not serve the scenario's protocol).
func (r *Report) browseCompare(scs []results.Scenario) Table {
	t := Table{Caption: "Side by side: each browse scenario's first step", Head: r.Head("", r.Columns)}
	for _, sc := range scs {
		st := sc.Steps()[0]
		name := fmt.Sprintf("%s (%s) %s", sc.Name, browseHow(sc), st)
		t.Rows = append(t.Rows,
			r.FigRows(name+": ", r.Columns, sc, st, "view_p50_ms", "view_p90_ms", "view_p99_ms", "wire_bytes_per_view")...)
	}
	return t
}

// browseBars: per browse scenario (its first step's page-view p50), one
// bar for each column in the column's colour, with its value; the legend
// names the columns.
func (r *Report) browseBars(scs []results.Scenario) (*ChartPlot, error) {
	var names []string
	for _, sc := range scs {
		names = append(names, clean(sc.Name+" ("+strings.SplitN(browseHow(sc), ",", 2)[0]+browseConns(sc)+")"))
	}
	p := newPlot("Page view, p50", "browse scenario (protocol ×connections per visitor)", "page-view time, p50 (ms)")
	w := vg.Points(min(28, float64(100/len(r.Columns))))
	var all plotter.XYs
	for k, pr := range r.Columns {
		vals := make(plotter.Values, len(scs))
		var xys plotter.XYs
		for i, sc := range scs {
			if s := r.Metric(pr, sc.Name, sc.Steps()[0], fig(sc.Kind, "view_p50_ms").Value); s.N > 0 {
				vals[i] = s.Med
				xys = append(xys, plotter.XY{X: float64(i), Y: s.Med})
			}
		}
		if len(xys) == 0 {
			continue
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, err
		}
		off := w * vg.Length(float64(k)-float64(len(r.Columns)-1)/2)
		b.Color, b.LineStyle.Width, b.Offset = columnColor(r.column(pr)), 0, off
		p.Add(b)
		barValues(p, xys, nil, off)
		all = append(all, xys...)
		p.legend = append(p.legend, legendEntry{clean(r.Labels[pr]), []plot.Thumbnailer{b}})
	}
	if len(p.legend) == 0 {
		return nil, nil
	}
	nominalX(p, names)
	valueRoom(p, all)
	return p, nil
}

// browseConns is " ×6" for an h1 scenario of 6 connections per visitor,
// " ×1" otherwise.
func browseConns(sc results.Scenario) string {
	if sc.Browse != nil && sc.Proto == "h1" {
		return fmt.Sprintf(" ×%d", sc.Browse.Conns)
	}
	return " ×1"
}
