package report

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/wptest/wptest/results"
)

// claimsChartID is the verdict's chart: every claim that states a ratio,
// published against this run's, on one log axis.
const claimsChartID = "claims"

var (
	bandColor = color.RGBA{0xcf, 0xe8, 0xd6, 0xff} // where the claim holds
	pubColor  = color.RGBA{0x55, 0x55, 0x55, 0xff}
)

// claimsChart puts each ratio claim on a line of its own (the first at
// the top): its tolerance band (published ÷ and × the factor it may be
// off by), the published ratio (ring), this run's (dot) and its range over
// the repetitions. nil where no claim states a ratio this run measured.
func (r *Report) claimsChart() *ChartPlot {
	var cs []results.ClaimResult
	for _, c := range claimsInOrder(r.Claims) {
		if c.PublishedRatio > 0 && len(c.Ratios) > 0 {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return nil
	}
	cp := newPlot("Published ratio against this run's", "ratio (log scale)", "claim")
	cp.height = vg.Length(max(6, 1.1*float64(len(cs))+2.5)) * vg.Centimeter
	lo, hi := math.Inf(1), math.Inf(-1)
	var ticks []plot.Tick
	band := draw.LineStyle{Color: bandColor, Width: vg.Points(9)}
	for i, c := range cs {
		y := float64(len(cs) - 1 - i)
		ticks = append(ticks, plot.Tick{Value: y, Label: clean(c.ID)})
		within := max(c.Within, 1)
		lo, hi = min(lo, c.PublishedRatio/within), max(hi, c.PublishedRatio*within)
		if b, err := plotter.NewLine(plotter.XYs{{X: c.PublishedRatio / within, Y: y}, {X: c.PublishedRatio * within, Y: y}}); err == nil {
			b.LineStyle = band
			cp.Add(b)
		}
		for _, rv := range c.Ratios {
			if rv.Low > 0 && rv.High > rv.Low {
				lo, hi = min(lo, rv.Low), max(hi, rv.High)
				if l, err := plotter.NewLine(plotter.XYs{{X: rv.Low, Y: y}, {X: rv.High, Y: y}}); err == nil {
					l.LineStyle = draw.LineStyle{Color: verdictColor(c), Width: vg.Points(1.5)}
					cp.Add(l)
				}
			}
			lo, hi = min(lo, rv.Value), max(hi, rv.Value)
		}
	}
	for i, c := range cs {
		y := float64(len(cs) - 1 - i)
		pub, _ := plotter.NewScatter(plotter.XYs{{X: c.PublishedRatio, Y: y}})
		pub.GlyphStyle = draw.GlyphStyle{Color: pubColor, Radius: vg.Points(4), Shape: draw.RingGlyph{}}
		cp.Add(pub)
		for _, rv := range c.Ratios {
			got, _ := plotter.NewScatter(plotter.XYs{{X: rv.Value, Y: y}})
			got.GlyphStyle = draw.GlyphStyle{Color: verdictColor(c), Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
			cp.Add(got)
		}
		if i == 0 {
			cp.legend = append(cp.legend, legendEntry{"published", []plot.Thumbnailer{pub}})
		}
	}
	held, _ := plotter.NewScatter(plotter.XYs{{}})
	held.GlyphStyle = draw.GlyphStyle{Color: verdictColor(results.ClaimResult{Verdict: results.Holds}), Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
	differs, _ := plotter.NewScatter(plotter.XYs{{}})
	differs.GlyphStyle = draw.GlyphStyle{Color: verdictColor(results.ClaimResult{Verdict: results.Differs}), Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
	cp.legend = append(cp.legend, legendEntry{"this run: holds", []plot.Thumbnailer{held}}, legendEntry{"this run: differs", []plot.Thumbnailer{differs}})
	cp.X.Scale, cp.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	cp.X.Min, cp.X.Max = decades(lo, hi)
	cp.Y.Tick.Marker = plot.ConstantTicks(ticks)
	cp.Y.Min, cp.Y.Max = -0.7, float64(len(cs))-0.3
	return cp
}

// verdictColor is a verdict's: green holds, red differs, grey otherwise.
func verdictColor(c results.ClaimResult) color.Color {
	switch c.Verdict {
	case results.Holds:
		return color.RGBA{0x11, 0x63, 0x29, 0xff}
	case results.Differs:
		return color.RGBA{0xb3, 0x26, 0x1e, 0xff}
	}
	return pubColor
}
