package report

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"regexp"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// A chart's SVG is drawn in layers, each a <g class="…"> (gonum's SVG has
// no groups of its own): what a reader (and the layout test) tells apart.
const (
	layerFrame  = iota // background, title, axes and their labels
	layerArea          // the plot area: where the data are drawn
	layerTicks         // the axes' tick labels
	layerData          // grid, bars, lines, values
	layerLegend        // below the plot, outside the plot area
	nLayers
)

var layerClass = [nLayers]string{"frame", "plot-area", "ticks", "data", "legend"}

// Text sizes (points). Tick labels have a size of their own: the layered
// canvas knows a tick label by it.
const (
	titleSize  = 12
	labelSize  = 11
	tickSize   = 9.5
	valueSize  = 9
	legendSize = 10
)

// sans is the charts' typeface: Liberation Sans, whose metrics (which
// gonum lays the chart out by) are Arial's and Helvetica's, so the
// browser's substitutes keep the layout; svgFont names them.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

const svgFont = "font-family:Liberation Sans,Arial,Helvetica,sans-serif;"

func textStyle(size float64) text.Style {
	return text.Style{Color: color.Black, Font: font.From(sans, vg.Length(size)), Handler: plot.DefaultTextHandler,
		XAlign: draw.XCenter, YAlign: draw.YTop}
}

// layered is a vg canvas writing each layer to an SVG canvas of its own;
// every state change (colour, line, transform, push and pop) goes to all.
type layered struct {
	w, h vg.Length
	ls   [nLayers]*vgsvg.Canvas
	cur  int
}

func newLayered(w, h vg.Length) *layered {
	l := &layered{w: w, h: h}
	for i := range l.ls {
		l.ls[i] = vgsvg.New(w, h)
	}
	return l
}

func (l *layered) all(f func(c *vgsvg.Canvas)) {
	for _, c := range l.ls {
		f(c)
	}
}

func (l *layered) Size() (vg.Length, vg.Length) { return l.w, l.h }
func (l *layered) SetLineWidth(w vg.Length)     { l.all(func(c *vgsvg.Canvas) { c.SetLineWidth(w) }) }
func (l *layered) SetLineDash(d []vg.Length, o vg.Length) {
	l.all(func(c *vgsvg.Canvas) { c.SetLineDash(d, o) })
}
func (l *layered) SetColor(k color.Color)              { l.all(func(c *vgsvg.Canvas) { c.SetColor(k) }) }
func (l *layered) Rotate(r float64)                    { l.all(func(c *vgsvg.Canvas) { c.Rotate(r) }) }
func (l *layered) Translate(p vg.Point)                { l.all(func(c *vgsvg.Canvas) { c.Translate(p) }) }
func (l *layered) Scale(x, y float64)                  { l.all(func(c *vgsvg.Canvas) { c.Scale(x, y) }) }
func (l *layered) Push()                               { l.all(func(c *vgsvg.Canvas) { c.Push() }) }
func (l *layered) Pop()                                { l.all(func(c *vgsvg.Canvas) { c.Pop() }) }
func (l *layered) Stroke(p vg.Path)                    { l.ls[l.cur].Stroke(p) }
func (l *layered) Fill(p vg.Path)                      { l.ls[l.cur].Fill(p) }
func (l *layered) DrawImage(vg.Rectangle, image.Image) {} // charts have none (checkedSVG refuses them)

// FillString: the frame's text at the tick labels' size is a tick label.
func (l *layered) FillString(f font.Face, pt vg.Point, s string) {
	i := l.cur
	if i == layerFrame && f.Font.Size == vg.Length(tickSize) {
		i = layerTicks
	}
	l.ls[i].FillString(f, pt, s)
}

// svg is the layers as one SVG: the first canvas's <svg> and origin
// transform, then each canvas's content in its layer's group.
func (l *layered) svg() ([]byte, error) {
	origin := fmt.Sprintf("<g transform=\"scale(1, -1) translate(0, -%.5g)\">\n", l.h.Points())
	const end = "</g>\n</svg>\n"
	var out bytes.Buffer
	for i, c := range l.ls {
		var b bytes.Buffer
		if _, err := c.WriteTo(&b); err != nil {
			return nil, err
		}
		s := b.String()
		at := strings.Index(s, origin)
		if at < 0 || !strings.HasSuffix(s, end) || at+len(origin) > len(s)-len(end) {
			return nil, fmt.Errorf("svg layer %s: not the shape gonum writes", layerClass[i])
		}
		if i == 0 {
			out.WriteString(strings.Replace(s[:at], "<svg ", `<svg class="chart" `, 1))
			out.WriteString(origin)
		}
		fmt.Fprintf(&out, "<g class=%q>\n%s</g>\n", layerClass[i], s[at+len(origin):len(s)-len(end)])
	}
	out.WriteString(end)
	b := out.Bytes()
	for n := -1; n != len(b); { // a transform's group a layer drew nothing in
		n, b = len(b), emptyGroup.ReplaceAll(b, nil)
	}
	return bytes.ReplaceAll(b, []byte("font-family:Liberation Sans;"), []byte(svgFont)), nil
}

var emptyGroup = regexp.MustCompile("<g transform=\"[^\"]*\">\n</g>\n")

// areaMark is a chart's first plotter: it fills the plot area (gonum
// hands plotters the plot area's canvas) in its layer, and what follows
// goes to the data layer.
type areaMark struct{ cp *ChartPlot }

func (m areaMark) Plot(c draw.Canvas, _ *plot.Plot) {
	if l := m.cp.layers; l != nil {
		l.cur = layerArea
		defer func() { l.cur = layerData }()
	}
	c.SetColor(areaColor)
	c.Fill(c.Rectangle.Path())
}

// Legend geometry (points).
const (
	thumbW    = 18
	thumbGap  = 4
	entryGap  = 14
	rowH      = 14
	legendPad = 6
)

// legendRows packs the legend's entries into rows that fit width w.
func (cp *ChartPlot) legendRows(w vg.Length) [][]legendEntry {
	st := textStyle(legendSize)
	var rows [][]legendEntry
	var x vg.Length
	for _, e := range cp.legend {
		ew := thumbW + thumbGap + st.Width(e.name)
		if len(rows) == 0 || x+ew > w-2*legendPad {
			rows, x = append(rows, nil), 0
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], e)
		x += ew + entryGap
	}
	return rows
}

func legendHeight(rows [][]legendEntry) vg.Length {
	if len(rows) == 0 {
		return 0
	}
	return vg.Length(len(rows)*rowH + 2*legendPad)
}

// drawLegend draws the rows centred in c, one under another.
func drawLegend(c draw.Canvas, rows [][]legendEntry) {
	st := textStyle(legendSize)
	st.XAlign, st.YAlign = draw.XLeft, draw.YCenter
	y := c.Max.Y - legendPad - rowH/2
	for _, row := range rows {
		var w vg.Length
		for i, e := range row {
			if i > 0 {
				w += entryGap
			}
			w += thumbW + thumbGap + st.Width(e.name)
		}
		x := c.Center().X - w/2
		for _, e := range row {
			tc := c
			tc.Rectangle = vg.Rectangle{Min: vg.Point{X: x, Y: y - 4}, Max: vg.Point{X: x + thumbW, Y: y + 4}}
			for _, t := range e.thumbs {
				t.Thumbnail(&tc)
			}
			c.FillText(st, vg.Point{X: x + thumbW + thumbGap, Y: y}, e.name)
			x += thumbW + thumbGap + st.Width(e.name) + entryGap
		}
		y -= rowH
	}
}

// render draws a chart: the plot, and its legend in a strip below it.
func render(cp *ChartPlot) ([]byte, error) {
	w, h := 16*vg.Centimeter, 9*vg.Centimeter
	if cp.height > 0 {
		h = cp.height
	}
	rows := cp.legendRows(w)
	lh := legendHeight(rows)
	h += lh
	l := newLayered(w, h)
	cp.layers = l
	defer func() { cp.layers = nil }()
	c := draw.New(l)
	readable(&cp.X, false)
	readable(&cp.Y, true)
	cp.Draw(draw.Crop(c, 0, 0, lh, 0))
	l.cur = layerLegend
	drawLegend(draw.Crop(c, 0, 0, 0, lh-h), rows)
	return l.svg()
}
