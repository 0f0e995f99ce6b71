package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"github.com/wptest/wptest/results"
	"html/template"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// chart is one rendered SVG with its caption.
type chart struct {
	ID, Caption string
	SVG         []byte
}

// charts draws every chart the sections name: lines per profile over
// visitors (log scales where the values span more than 10x, as the post's
// spread needs), bars for per-profile costs.
func (r *Report) charts() (map[string]chart, error) {
	out := map[string]chart{}
	add := func(id, caption string, p *plot.Plot, err error) error {
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
	for _, sc := range r.Manifest.Scenarios {
		if ch := reportKindOf(sc.Kind).charts; ch != nil {
			if err := ch(r, sc, add); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func render(p *plot.Plot) ([]byte, error) {
	wt, err := p.WriterTo(16*vg.Centimeter, 9*vg.Centimeter, "svg")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = clean(title)
	p.X.Label.Text = clean(x)
	p.Y.Label.Text = clean(y)
	p.Legend.Top = true
	return p
}

// bars: one bar per profile, the scenario's first step.
func (r *Report) bars(sc results.Scenario, ylabel string, f func(results.Record) (float64, bool)) (*plot.Plot, error) {
	ps := r.profilesOf(sc)
	st := sc.Steps()[0]
	var vals plotter.Values
	var names []string
	for _, p := range ps {
		s := r.Metric(p, sc.Name, st, f)
		if s.N == 0 {
			continue
		}
		vals = append(vals, s.Med)
		names = append(names, clean(r.Labels[p]))
	}
	if len(vals) == 0 {
		return nil, nil
	}
	p := newPlot(fmt.Sprintf("%s, %s (%s)", sc.Name, st, sc.Path), "", ylabel)
	b, err := plotter.NewBarChart(vals, vg.Points(40))
	if err != nil {
		return nil, err
	}
	b.Color = plotutil.Color(0)
	p.Add(b)
	p.NominalX(names...)
	p.Y.Min = 0
	return p, nil
}

// lines: one line per profile over the scenario's visitor counts.
func (r *Report) lines(sc results.Scenario, ylabel string, f func(results.Record) (float64, bool)) (*plot.Plot, error) {
	p := newPlot(fmt.Sprintf("%s (%s)", sc.Name, sc.Path), "visitors", ylabel)
	var args []any
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pr := range r.profilesOf(sc) {
		var pts plotter.XYs
		for i, st := range sc.Steps() {
			s := r.Metric(pr, sc.Name, st, f)
			if s.N == 0 || s.Med <= 0 {
				continue
			}
			pts = append(pts, plotter.XY{X: float64(sc.Visitors[i]), Y: s.Med})
			lo, hi = math.Min(lo, s.Med), math.Max(hi, s.Med)
		}
		if len(pts) > 0 {
			args = append(args, clean(r.Labels[pr]), pts)
		}
	}
	if len(args) == 0 {
		return nil, nil
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return nil, err
	}
	logAxes(p, float64(minInt(sc.Visitors)), float64(maxInt(sc.Visitors)), lo, hi)
	return p, nil
}

func (r *Report) kitScaling(sc results.Scenario) (*plot.Plot, error) {
	p := newPlot(fmt.Sprintf("%s scaling (%s)", sc.Name, sc.Path), "clients", "requests per second")
	var args []any
	lo, hi := math.Inf(1), math.Inf(-1)
	st := sc.Steps()[0]
	for _, pr := range r.profilesOf(sc) {
		var pts plotter.XYs
		for i, lv := range sc.Levels {
			s := r.Metric(pr, sc.Name, st, func(rec results.Record) (float64, bool) {
				if rec.Kit == nil || i >= len(rec.Kit.Scaling) {
					return 0, false
				}
				return rec.Kit.Scaling[i].RPS, true
			})
			if s.N == 0 || s.Med <= 0 {
				continue
			}
			pts = append(pts, plotter.XY{X: float64(lv), Y: s.Med})
			lo, hi = math.Min(lo, s.Med), math.Max(hi, s.Med)
		}
		if len(pts) > 0 {
			args = append(args, clean(r.Labels[pr]), pts)
		}
	}
	if len(args) == 0 {
		return nil, nil
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return nil, err
	}
	logAxes(p, float64(minInt(sc.Levels)), float64(maxInt(sc.Levels)), lo, hi)
	return p, nil
}

// logAxes switches an axis to log scale when its values span 10x or more.
func logAxes(p *plot.Plot, xlo, xhi, ylo, yhi float64) {
	if xlo > 0 && xhi/xlo >= 10 {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if ylo > 0 && yhi/ylo >= 10 {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Y.Label.Text += " (log)"
	}
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
// charts here (no images, scripts, links, styles or fonts): checkedSVG
// refuses anything else.
var (
	svgElements = map[string]bool{"svg": true, "g": true, "path": true, "text": true}
	svgAttrs    = map[string]bool{"width": true, "height": true, "viewBox": true, "xmlns": true, "xmlns:xlink": true,
		"transform": true, "d": true, "style": true, "x": true, "y": true}
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
