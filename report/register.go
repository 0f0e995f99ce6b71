package report

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/wptest/wptest/results"
)

// Kind is the report half of a scenario kind in a package of its own
// (kinds/...), which calls Register from its init beside
// results.Register (its figures, whose labels its rows and charts read)
// and experiment.Register (its block and load).
type Kind struct {
	// Section is a scenario's section (FigRows: its figures' rows).
	Section func(r *Report, sc results.Scenario) Section
	// Charts draws the charts its sections name (Lines), or nil.
	Charts func(r *Report, sc results.Scenario, add AddChart) error
	// PerRequest: its points are rows of the cost and ratio sections,
	// which read its figures rps, server_cpu_ms and web_php_cpu_ms
	// (results.RunMetrics has them); Register refuses it without them.
	PerRequest bool
	// AfterCost: its sections come after the cost section.
	AfterCost bool
	// InShort, if set, is the report's first paragraph from the kind's
	// scenarios (the first kind in Order with one and a paragraph has it).
	InShort func(r *Report, scs []results.Scenario) (Section, bool)
	// Order is where its sections stand among the kinds' (lowest first;
	// page 10, crowd 20, static 30, compression 40, ab 50, browse 60, kit
	// 70): the kinds' packages initialize in their import paths' order.
	Order int
}

// Register adds the report half of the kind called name, after the kinds
// above in the report's order. Two of one name are a programming error:
// it panics.
func Register(name string, k Kind) {
	for _, rk := range reportKinds {
		if rk.name == name {
			panic(fmt.Sprintf("report: scenario kind %q registered twice", name))
		}
	}
	if k.Section == nil {
		panic(fmt.Sprintf("report: scenario kind %q has no section", name))
	}
	for _, key := range perRequestFigures {
		if _, ok := results.MetricOf(name, key); k.PerRequest && !ok {
			panic(fmt.Sprintf("report: scenario kind %q is per request without the figure %s (results.Register it first)", name, key))
		}
	}
	rk := registered{name, reportKind{Section: k.Section, charts: k.Charts, inShort: k.InShort, perRequest: k.PerRequest, afterCost: k.AfterCost}, k.Order}
	at := slices.IndexFunc(reportKinds, func(o registered) bool { return o.order > k.Order })
	if at < 0 {
		at = len(reportKinds)
	}
	reportKinds = slices.Insert(reportKinds, at, rk)
}

// perRequestFigures are what the cost and ratio sections read of a kind
// whose points are per request.
var perRequestFigures = []string{"rps", "server_cpu_ms", "web_php_cpu_ms"}

// Num is v as the report's tables show it: about three significant
// digits, as wptest compare prints it.
func Num(v float64) string { return num(v) }

// Commas is a whole number's digits with thousands separators ("123,456").
func Commas(s string) string { return commas(s) }

// GzipNote is what a scenario's text says of its Accept-Encoding: gzip
// ("" where it asks for none).
func GzipNote(sc results.Scenario) string { return gzipNote(sc) }

// Bars is a chart of sc's figure key at its first step: a bar per column,
// each a median of the repetitions, on an axis labelled with the figure's
// label.
func (r *Report) Bars(sc results.Scenario, key string) (*ChartPlot, error) {
	m := fig(sc.Kind, key)
	return r.bars(sc, yAxis{label: m.Label, better: m.Better.String()}, m.Of(r.Manifest.Machine))
}

// titled is a chart's title with which way is better where its figure
// says ("page, c=2 (/): lower is better"): the title has the room an axis
// label has not.
func titled(title, better string) string {
	if better != "" {
		return title + ": " + better
	}
	return title
}

// Cell is a Stat as the tables show it: "median (min–max)", or "–" where
// nothing was measured.
func Cell(s Stat) string { return cell(s) }

// Axis is a chart's y axis, where a kind says more than its figure's label
// (Lines): the label (empty: the figure's), whether a log scale may show
// it where its values span 10x, and for a point without a figure the
// least it would have been (Floor: a crowd whose new visitors all gave
// up waited at least give_up), drawn paler and labelled FloorWhy.
type Axis struct {
	Label    string
	LogOK    bool
	Floor    func(results.Record) (float64, bool)
	FloorWhy string
}

// LinesOn is Lines on the axis a.
func (r *Report) LinesOn(sc results.Scenario, key string, a Axis) (*ChartPlot, error) {
	m := fig(sc.Kind, key)
	if a.Label == "" {
		a.Label = m.Label
	}
	return r.lines(sc, yAxis{label: a.Label, better: m.Better.String(), logOK: a.LogOK, floor: a.Floor, floorWhy: a.FloorWhy, bench: m.Bench}, m.Of(r.Manifest.Machine))
}

// Sweep is a chart of one figure per column over steps other than a
// scenario's visitor counts (the kit's concurrency levels, runs inside
// one point): Xs are the steps' x values, Point the step whose records
// hold the figure of Xs[i] and its reader.
type Sweep struct {
	Title, XLabel, XUnit string
	Xs                   []int
	Axis                 Axis
	Point                func(i int) (step string, f func(results.Record) (float64, bool))
}

// SweepChart draws s for sc's columns.
func (r *Report) SweepChart(sc results.Scenario, s Sweep) (*ChartPlot, error) {
	a := s.Axis
	return r.sweep(sc, sweep{title: s.Title, xlabel: s.XLabel, xunit: s.XUnit, xs: s.Xs,
		y: yAxis{label: a.Label, logOK: a.LogOK, floor: a.Floor, floorWhy: a.FloorWhy}, point: s.Point})
}

// ScenariosOf are the run's scenarios of kind, in file order.
func (r *Report) ScenariosOf(kind string) []results.Scenario { return r.scenarios(kind) }

// ScenarioBars is a chart of figure key at the first step of each of scs
// (named names on the x axis): for each, a bar per column in the column's
// colour, with its value; the legend names the columns. Nil where no
// column has a figure.
func (r *Report) ScenarioBars(scs []results.Scenario, names []string, key, title, xlabel, ylabel string) (*ChartPlot, error) {
	names = slices.Clone(names) // the caller's stay as they were
	for i := range names {
		names[i] = clean(names[i])
	}
	p := newPlot(titled(title, fig(scs[0].Kind, key).Better.String()), xlabel, ylabel)
	w := vg.Points(min(28, float64(100/len(r.Columns))))
	var all plotter.XYs
	for k, pr := range r.Columns {
		vals := make(plotter.Values, len(scs))
		var xys plotter.XYs
		for i, sc := range scs {
			if s := r.Metric(pr, sc.Name, sc.Steps()[0], fig(sc.Kind, key).Of(r.Manifest.Machine)); s.N > 0 {
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

// Lines is a chart of sc's figure key: a line per column over its visitor
// counts, each point a median of the repetitions, on an axis labelled with
// the figure's label (logOK: a log scale where the values span 10x).
func (r *Report) Lines(sc results.Scenario, key string, logOK bool) (*ChartPlot, error) {
	m := fig(sc.Kind, key)
	return r.lines(sc, yAxis{label: m.Label, better: m.Better.String(), logOK: logOK, bench: m.Bench}, m.Of(r.Manifest.Machine))
}
