package report

import (
	"image/color"
	"math"
	"slices"

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
		// A log axis shows ratios above 0 alone: a run directory is a
		// file anyone can edit, and a rate of 0 makes a ratio of 0.
		c.Ratios = slices.DeleteFunc(slices.Clone(c.Ratios), func(rv results.RatioValue) bool { return !positive(rv.Value) })
		if positive(c.PublishedRatio) && positive(c.Within) && len(c.Ratios) > 0 {
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
			if positive(rv.Low) && positive(rv.High) && rv.High > rv.Low {
				lo, hi = min(lo, rv.Low), max(hi, rv.High)
				if l, err := plotter.NewLine(plotter.XYs{{X: rv.Low, Y: y}, {X: rv.High, Y: y}}); err == nil {
					l.LineStyle = draw.LineStyle{Color: bandColorOf(c, rv), Width: vg.Points(1.5)}
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
			got.GlyphStyle = draw.GlyphStyle{Color: bandColorOf(c, rv), Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
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
	cp.legend = append(cp.legend, legendEntry{"this run: within the band", []plot.Thumbnailer{held}}, legendEntry{"outside it", []plot.Thumbnailer{differs}})
	cp.X.Scale, cp.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	cp.X.Min, cp.X.Max = decades(lo, hi)
	cp.Y.Tick.Marker = plot.ConstantTicks(ticks)
	cp.Y.Min, cp.Y.Max = -0.7, float64(len(cs))-0.3
	return cp
}

// positive says whether v is a number a log axis can show.
func positive(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

// bandColorOf is the colour of this run's ratio rv of c: green within the
// claim's band, red outside it (a claim may differ on its order with its
// ratio in the band: its line says so, the chart shows where the ratio is).
func bandColorOf(c results.ClaimResult, rv results.RatioValue) color.Color {
	if w := max(c.Within, 1); rv.Value >= c.PublishedRatio/w && rv.Value <= c.PublishedRatio*w {
		return verdictColor(results.ClaimResult{Verdict: results.Holds})
	}
	return verdictColor(results.ClaimResult{Verdict: results.Differs})
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
