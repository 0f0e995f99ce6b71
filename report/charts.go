package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"github.com/wptest/wptest/results"
	"html/template"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// chart is one rendered SVG with its caption.
type chart struct {
	ID, Caption string
	SVG         []byte
}

// ChartPlot is a chart before it is drawn: the plot, and the legend that
// render draws below it, outside the plot area. A kind's Charts draws one
// with Lines and adds it (AddChart).
type ChartPlot struct {
	*plot.Plot
	legend []legendEntry
	layers *layered  // while render draws it
	height vg.Length // 0: the charts' own
}

type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// charts draws every chart the sections name: lines per column over
// visitors, bars with their values where there is one point per column.
func (r *Report) charts() (map[string]chart, error) {
	out := map[string]chart{}
	add := func(id, caption string, p *ChartPlot, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		if p == nil {
			return nil
		}
		b, err := render(p)
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		out[id] = chart{ID: id, Caption: caption, SVG: b}
		return nil
	}
	if p := r.claimsChart(); p != nil {
		if err := add(claimsChartID, "Each claim that states a ratio: the source's (ring) and this run's (dot, with its range over the repetitions; green within the band, red outside it), on one log scale; the band is the claim's factor either side of the source's", p, nil); err != nil {
			return nil, err
		}
	}
	for _, sc := range r.Manifest.Scenarios {
		if ch := reportKindOf(sc.Kind).charts; ch != nil {
			if err := ch(r, sc, add); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

var (
	// palette: Okabe and Ito's colours, told apart with colour blindness
	// too (their yellow, faint on white, left out), then two darker ones.
	palette = []color.Color{
		color.RGBA{0x00, 0x72, 0xb2, 0xff}, color.RGBA{0xe6, 0x9f, 0x00, 0xff}, color.RGBA{0x00, 0x9e, 0x73, 0xff},
		color.RGBA{0xd5, 0x5e, 0x00, 0xff}, color.RGBA{0xcc, 0x79, 0xa7, 0xff}, color.RGBA{0x56, 0xb4, 0xe9, 0xff},
		color.RGBA{0x8c, 0x6d, 0x1f, 0xff}, color.RGBA{0x55, 0x55, 0x55, 0xff},
	}
	areaColor = color.RGBA{0xf7, 0xf9, 0xfb, 0xff}
	gridColor = color.RGBA{0xdd, 0xe3, 0xea, 0xff}
)

// column is a column's place among the experiment's columns (disabled
// ones included): its colour, dashes and marks in every chart.
func (r *Report) column(profile string) int {
	for i, p := range r.Manifest.Columns {
		if p.ID == profile {
			return i
		}
	}
	return len(r.Manifest.Columns)
}

func columnColor(i int) color.Color { return palette[i%len(palette)] }

// yAxis is what a chart's values are: its label with the unit, and
// whether a log scale may show them (latencies spanning 10x or more); a
// rate, a size or a cost is on a linear axis from zero.
type yAxis struct {
	label string
	// better is which way is better ("lower is better"; "": neither or
	// not known), said in the chart's title.
	better string
	logOK  bool
	// floor is, for a record without a figure, the least the figure
	// would have been, and floorWhy says why there is none: a crowd whose
	// new visitors all gave up waited at least give_up. Such a point is
	// drawn at its floor, paler, labelled "≥ 5,000: none answered", so
	// that the worst column does not vanish from its chart.
	floor    func(results.Record) (float64, bool)
	floorWhy string
	// bench: the figure is the bench's own (results.Metric.Bench), drawn
	// where the point measured its link too.
	bench bool
}

// at is column pr's figure at step (its median), or else its floor:
// ok=false when it has neither.
func (r *Report) at(pr, scenario, step string, y yAxis, f func(results.Record) (float64, bool)) (v float64, floored, ok bool) {
	if s := r.metric(pr, scenario, step, f, y.bench); s.N > 0 {
		return s.Med, false, true
	}
	if y.floor != nil {
		if s := r.Metric(pr, scenario, step, y.floor); s.N > 0 {
			return s.Med, true, true
		}
	}
	return 0, false, false
}

// floorLabel is a floored point's value label.
func floorLabel(v float64, y yAxis) string { return "≥ " + num(v) + ": " + y.floorWhy }

// pale is c lightened halfway to white: a floor, not a figure.
func pale(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8((v>>8 + 255) / 2) }
	return color.RGBA{mix(r), mix(g), mix(b), 0xff}
}

func newPlot(title, x, y string) *ChartPlot {
	p := plot.New()
	cp := &ChartPlot{Plot: p}
	p.Title.Text = clean(title)
	p.Title.TextStyle = textStyle(titleSize)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text, p.Y.Label.Text = clean(x), clean(y)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle = textStyle(labelSize)
		a.Label.TextStyle.YAlign = draw.YBottom // as gonum lays its axes out
		a.Tick.Label = textStyle(tickSize)
		a.Tick.Label.Handler = p.TextHandler
		a.Padding = vg.Points(4)
	}
	p.X.Tick.Label.YAlign = draw.YTop
	p.Y.Tick.Label.XAlign, p.Y.Tick.Label.YAlign = draw.XRight, draw.YCenter
	g := plotter.NewGrid()
	g.Vertical.Color = nil
	g.Horizontal = draw.LineStyle{Color: gridColor, Width: vg.Points(0.5)}
	p.Add(areaMark{cp}, g)
	return cp
}

// readableTicks writes whole-number tick labels with thousands
// separators (20,000, not 20000).
type readableTicks struct{ plot.Ticker }

func (t readableTicks) Ticks(min, max float64) []plot.Tick {
	ts := t.Ticker.Ticks(min, max)
	for i, tk := range ts {
		if v, err := strconv.ParseFloat(tk.Label, 64); err == nil && !strings.Contains(tk.Label, ".") && math.Abs(v) < 1e15 {
			ts[i].Label = commas(strconv.FormatFloat(v, 'f', 0, 64))
		}
	}
	return ts
}

// niceTicks labels a linear axis every 1, 2, 2.5 or 5 times a power of
// ten, four to eight labels over the axis (gonum's default gives two or
// three), with a minor tick between each.
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step, mag := niceStep(lo, hi)
	prec := max(0, int(-math.Floor(math.Log10(mag)+1e-9)))
	if step == 2.5*mag && mag < 10 {
		prec++
	}
	var ts []plot.Tick
	for i := math.Ceil(lo/step - 1e-9); i*step <= hi+step*1e-9; i++ {
		v := i*step + 0 // not -0
		ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', prec, 64)})
		if m := v + step/2; m <= hi {
			ts = append(ts, plot.Tick{Value: m})
		}
	}
	return ts
}

// niceStep is the labels' step for an axis from lo to hi, and the power
// of ten it is a multiple of.
func niceStep(lo, hi float64) (step, mag float64) {
	raw := (hi - lo) / 5
	mag = math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			return m * mag, mag
		}
	}
	return 10 * mag, 10 * mag
}

// readable gives a linear axis niceTicks (top, for the value axis: up to
// the next label, so the highest value is under one) and every axis
// thousands separators.
func readable(a *plot.Axis, top bool) {
	if _, ok := a.Tick.Marker.(plot.DefaultTicks); ok {
		a.Tick.Marker = niceTicks{}
		if top && a.Max > a.Min {
			step, _ := niceStep(a.Min, a.Max)
			a.Max = math.Ceil(a.Max/step-1e-9) * step
		}
	}
	if _, ok := a.Tick.Marker.(readableTicks); !ok {
		a.Tick.Marker = readableTicks{a.Tick.Marker}
	}
}

// barValues writes each bar's value above it, or its text where texts
// has one.
func barValues(cp *ChartPlot, xys plotter.XYs, texts map[int]string, offset vg.Length) {
	st := textStyle(valueSize)
	st.YAlign = draw.YBottom
	l := &plotter.Labels{XYs: xys, Offset: vg.Point{X: offset, Y: vg.Points(3)}}
	for i, xy := range xys {
		text, ok := texts[i]
		if !ok {
			text = num(xy.Y)
		}
		l.Labels = append(l.Labels, text)
		l.TextStyle = append(l.TextStyle, st)
	}
	cp.Add(l)
}

// columnBars: one bar per column at one step, in the column's colour,
// with its value; the columns name the bars on the x axis.
func (r *Report) columnBars(sc results.Scenario, title, xlabel, step string, y yAxis, f func(results.Record) (float64, bool)) (*ChartPlot, error) {
	cp := newPlot(titled(title, y.better), xlabel, y.label)
	var names []string
	var xys, room plotter.XYs
	texts := map[int]string{}
	ranges := rangeBars{color: pubColor} // dark: over a bar of the column's colour
	for _, pr := range r.ColumnsOf(sc) {
		v, floored, ok := r.at(pr, sc.Name, step, y, f)
		if !ok {
			continue
		}
		labelY := v // the value's label, above its range where it has one
		if m := r.metric(pr, sc.Name, step, f, y.bench); !floored && m.N > 1 && m.Max > m.Min {
			ranges.bars = append(ranges.bars, rangeBar{x: float64(len(names)), lo: m.Min, hi: m.Max})
			room = append(room, plotter.XY{X: float64(len(names)), Y: m.Max})
			labelY, texts[len(xys)] = m.Max, num(v)
		}
		b, err := plotter.NewBarChart(plotter.Values{v}, vg.Points(40))
		if err != nil {
			return nil, err
		}
		b.XMin, b.Color, b.LineStyle.Width = float64(len(names)), columnColor(r.column(pr)), 0
		if floored {
			b.Color, texts[len(xys)] = pale(b.Color), floorLabel(v, y)
		}
		cp.Add(b)
		xys = append(xys, plotter.XY{X: float64(len(names)), Y: labelY})
		names = append(names, clean(r.Labels[pr]))
	}
	if len(names) == 0 {
		return nil, nil
	}
	if len(ranges.bars) > 0 {
		cp.Add(ranges)
	}
	barValues(cp, xys, texts, 0)
	nominalX(cp, names)
	valueRoom(cp, append(room, xys...))
	return cp, nil
}

// nominalX names the bars' places on the x axis, each in the middle of
// its slot (the bars stay inside the plot area); the y axis from zero.
func nominalX(cp *ChartPlot, names []string) {
	cp.NominalX(names...)
	cp.X.Min, cp.X.Max = -0.5, float64(len(names))-0.5
	cp.Y.Padding = cp.X.Padding // NominalX's room for the first name: the half slot gives it
	cp.Y.Min = 0
}

// valueRoom raises the value axis so that the values written above the
// bars stay inside the plot area.
func valueRoom(cp *ChartPlot, xys plotter.XYs) {
	for _, xy := range xys {
		cp.Y.Max = math.Max(cp.Y.Max, xy.Y*1.1)
	}
}

// bars: one bar per column, the scenario's first step.
func (r *Report) bars(sc results.Scenario, y yAxis, f func(results.Record) (float64, bool)) (*ChartPlot, error) {
	st := sc.Steps()[0]
	return r.columnBars(sc, fmt.Sprintf("%s, %s (%s)", sc.Name, st, sc.Path), setupAt(sc.Visitors[0], "visitors"), st, y, f)
}

// setupAt labels an axis of columns at one step: "setup, at 100 visitors".
func setupAt(x int, unit string) string {
	if x == 1 {
		unit = strings.TrimSuffix(unit, "s")
	}
	return fmt.Sprintf("setup, at %d %s", x, unit)
}

// sweep is a chart of one metric per column over a scenario's steps or
// levels (xs); point is the step and the record metric of xs[i].
type sweep struct {
	title, xlabel, xunit string
	xs                   []int
	y                    yAxis
	point                func(i int) (string, func(results.Record) (float64, bool))
}

// lines: one line per column over the scenario's visitor counts.
func (r *Report) lines(sc results.Scenario, y yAxis, f func(results.Record) (float64, bool)) (*ChartPlot, error) {
	steps := sc.Steps()
	return r.sweep(sc, sweep{title: fmt.Sprintf("%s (%s)", sc.Name, sc.Path), xlabel: "visitors (concurrent)", xunit: "visitors",
		xs: sc.Visitors, y: y, point: func(i int) (string, func(results.Record) (float64, bool)) { return steps[i], f }})
}

// sweep draws s: lines with marks in each column's colour and dashes, a
// legend below; where the columns have figures at one x alone, bars at it
// (a line over one point is no line).
func (r *Report) sweep(sc results.Scenario, s sweep) (*ChartPlot, error) {
	type series struct {
		pr     string
		pts    plotter.XYs
		ranges rangeBars // each point's lowest and highest repetition, where they differ
	}
	var all []series
	at := map[int]bool{}
	lo, hi := math.Inf(1), math.Inf(-1)
	var floors plotter.XYs // points drawn at their floor, labelled
	for _, pr := range r.ColumnsOf(sc) {
		var se series
		for i, x := range s.xs {
			st, f := s.point(i)
			v, floored, ok := r.at(pr, sc.Name, st, s.y, f)
			if !ok || v < 0 {
				continue
			}
			se.pts, at[i] = append(se.pts, plotter.XY{X: float64(x), Y: v}), true
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			if floored {
				floors = append(floors, plotter.XY{X: float64(x), Y: v})
			} else if m := r.metric(pr, sc.Name, st, f, s.y.bench); m.N > 1 && m.Max > m.Min && m.Min > 0 {
				se.ranges.bars = append(se.ranges.bars, rangeBar{x: float64(x), lo: m.Min, hi: m.Max})
				lo, hi = math.Min(lo, m.Min), math.Max(hi, m.Max)
			}
		}
		if len(se.pts) > 0 {
			se.pr = pr
			all = append(all, se)
		}
	}
	switch len(at) {
	case 0:
		return nil, nil
	case 1:
		for i := range at {
			st, f := s.point(i)
			return r.columnBars(sc, s.title, setupAt(s.xs[i], s.xunit), st, s.y, f)
		}
	}
	cp := newPlot(titled(s.title, s.y.better), s.xlabel, s.y.label)
	for _, se := range all {
		l, sp, err := plotter.NewLinePoints(se.pts)
		if err != nil {
			return nil, err
		}
		i := r.column(se.pr)
		l.Color, l.Width, l.Dashes = columnColor(i), vg.Points(1.5), plotutil.Dashes(i)
		sp.Color, sp.Shape, sp.Radius = columnColor(i), plotutil.Shape(i), vg.Points(3)
		cp.Add(l, sp)
		if len(se.ranges.bars) > 0 {
			se.ranges.color = columnColor(i)
			cp.Add(se.ranges)
		}
		cp.legend = append(cp.legend, legendEntry{clean(r.Labels[se.pr]), []plot.Thumbnailer{l, sp}})
	}
	if len(floors) > 0 {
		texts := map[int]string{}
		for i, xy := range floors {
			texts[i] = floorLabel(xy.Y, s.y)
		}
		barValues(cp, floors, texts, 0)
	}
	scaleAxes(cp, float64(minInt(s.xs)), float64(maxInt(s.xs)), lo, hi, s.y.logOK)
	return cp, nil
}

// scaleAxes: x on a log scale when it spans 10x or more, y too if its
// values may be (and do span 10x), each log axis widened to whole decades
// so that it has two labelled ticks; a linear y axis from zero.
func scaleAxes(cp *ChartPlot, xlo, xhi, ylo, yhi float64, logY bool) {
	if xlo > 0 && xhi/xlo >= 10 {
		cp.X.Scale, cp.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		cp.X.Min, cp.X.Max = decades(xlo, xhi)
	} else if m := (xhi - xlo) * 0.03; m > 0 { // the end points' marks inside the plot area
		cp.X.Min, cp.X.Max = xlo-m, xhi+m
	}
	if logY && ylo > 0 && yhi/ylo >= 10 {
		cp.Y.Scale, cp.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		cp.Y.Min, cp.Y.Max = decades(ylo, yhi)
		cp.Y.Label.Text += ", log scale"
		return
	}
	cp.Y.Min = 0
}

func decades(lo, hi float64) (float64, float64) {
	return math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
}

func minInt(v []int) int {
	m := 0
	for i, x := range v {
		if i == 0 || x < m {
			m = x
		}
	}
	return m
}

func maxInt(v []int) int {
	m := 0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// svgElements and svgAttrs are what gonum's SVG canvas writes for the
// charts here (no images, scripts, links, styles or fonts; class names
// the layers): checkedSVG
// refuses anything else.
var (
	svgElements = map[string]bool{"svg": true, "g": true, "path": true, "text": true}
	svgAttrs    = map[string]bool{"width": true, "height": true, "viewBox": true, "xmlns": true, "xmlns:xlink": true,
		"transform": true, "d": true, "style": true, "x": true, "y": true, "class": true}
)

// checkedSVG is a chart's SVG as markup for report.html: parsed as XML
// and written again from its parts (the prolog, comments and directives
// left out; text and attribute values escaped), with only the elements and
// attributes a chart has. Anything else is an error, not markup.
func checkedSVG(b []byte) (template.HTML, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	var out strings.Builder
	var open []string
	esc := func(s string) {
		xml.EscapeText(&out, []byte(s))
	}
	name := func(n xml.Name) string {
		if n.Space != "" {
			return n.Space + ":" + n.Local
		}
		return n.Local
	}
	done := false
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("svg: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := name(t.Name)
			if !svgElements[n] || done || (len(open) == 0) != (n == "svg") {
				return "", fmt.Errorf("svg: unexpected element <%s>", n)
			}
			out.WriteString("<" + n)
			for _, a := range t.Attr {
				an := name(a.Name)
				if !svgAttrs[an] {
					return "", fmt.Errorf("svg: unexpected attribute %s on <%s>", an, n)
				}
				out.WriteString(" " + an + `="`)
				esc(a.Value)
				out.WriteString(`"`)
			}
			out.WriteString(">")
			open = append(open, n)
		case xml.EndElement:
			n := name(t.Name)
			if len(open) == 0 || open[len(open)-1] != n {
				return "", fmt.Errorf("svg: unexpected </%s>", n)
			}
			open = open[:len(open)-1]
			out.WriteString("</" + n + ">")
			done = len(open) == 0
		case xml.CharData:
			if len(open) == 0 {
				if len(bytes.TrimSpace(t)) > 0 {
					return "", fmt.Errorf("svg: text outside <svg>")
				}
				continue
			}
			if len(bytes.Trim(t, " \t\r\n")) == 0 {
				out.Write(t) // between elements: XML's white space, no markup
				continue
			}
			esc(string(t))
		case xml.Comment, xml.ProcInst, xml.Directive:
			// the prolog and the like: not for HTML
		}
	}
	if !done || len(open) > 0 {
		return "", fmt.Errorf("svg: no complete <svg> element")
	}
	return template.HTML(out.String()), nil
}

// rangeBar is a point's lowest and highest repetition at x.
type rangeBar struct{ x, lo, hi float64 }

// rangeBars draws each as a vertical line with short caps, in a column's
// colour: how far the repetitions behind a median spread.
type rangeBars struct {
	bars  []rangeBar
	color color.Color
}

func (rs rangeBars) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	cap := vg.Points(3)
	st := draw.LineStyle{Color: rs.color, Width: vg.Points(1)}
	for _, r := range rs.bars {
		x, y0, y1 := tx(r.x), ty(r.lo), ty(r.hi)
		c.StrokeLine2(st, x, y0, x, y1)
		c.StrokeLine2(st, x-cap, y0, x+cap, y0)
		c.StrokeLine2(st, x-cap, y1, x+cap, y1)
	}
}
