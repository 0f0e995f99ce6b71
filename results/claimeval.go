package results

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Verdicts of a claim.
const (
	Holds       = "holds"
	Differs     = "differs"
	NotMeasured = "not measured"
)

// ClaimResult is one row of "Does it reproduce?": the claim's published
// figures, this run's, the ratios in each, and the verdict with how it
// differs or why it was not measured. Values are in the claim's unit.
type ClaimResult struct {
	ID        string   `json:"id"`
	Source    string   `json:"source"`
	Quote     string   `json:"quote"`
	Point     string   `json:"point"` // "page c=4"
	Metric    string   `json:"metric"`
	Unit      string   `json:"unit"`
	Holds     string   `json:"holds"` // what holds means, in words
	Published []Figure `json:"published,omitempty"`
	// PublishedRatio is the source's Num/Den (0: none); Within the factor
	// this run's may be off by and the claim hold (0: none stated).
	PublishedRatio float64      `json:"published_ratio,omitempty"`
	Within         float64      `json:"within,omitempty"`
	Measured       []Measured   `json:"measured,omitempty"`
	Ratios         []RatioValue `json:"ratios,omitempty"`
	Verdict        string       `json:"verdict"`
	How            string       `json:"how,omitempty"` // how it differs, or why not measured
	Substitution   string       `json:"substitution,omitempty"`
	// Causes are what the run knows could explain the verdict besides the
	// servers (results.causes); a "differs" without any is about them.
	Causes []string `json:"causes,omitempty"`
	// CauseTags are the causes in a few words each, once each.
	CauseTags []string `json:"cause_tags,omitempty"`
}

// Measured is this run's median of a term, on the column it was measured on.
type Measured struct {
	Term     string `json:"term"`
	Column   string `json:"column"`
	Label    string `json:"label"`
	Scenario string `json:"scenario"`
	// Visitors is the step it was measured at, where not the claim's own.
	Visitors int     `json:"visitors,omitempty"`
	Value    float64 `json:"value"`
	N        int     `json:"repetitions"`
	// Min and Max are the lowest and highest repetition's (where N > 1).
	Min float64 `json:"min,omitempty"`
	Max float64 `json:"max,omitempty"`
}

// Spread is how far apart m's repetitions are, as a share of its median:
// (max - min) / median; 0 where there is one or the median is 0.
func (m Measured) Spread() float64 {
	if m.N < 2 || m.Value == 0 {
		return 0
	}
	return (m.Max - m.Min) / math.Abs(m.Value)
}

// RatioValue is this run's Num/Den on the columns named: of their
// medians, and its range: the lowest and highest of each repetition's own
// Num/Den (the columns of a repetition were measured one after another,
// so a drift of the machine between repetitions is not read as a spread).
type RatioValue struct {
	Of    string  `json:"of"` // "Apache, as cPanel ships it / Caddy"
	Value float64 `json:"value"`
	Low   float64 `json:"low,omitempty"`
	High  float64 `json:"high,omitempty"`
}

// EvaluateClaims checks every claim the run's manifest records against its
// records.
func EvaluateClaims(m *Manifest, recs []Record) []ClaimResult {
	byPoint := map[string][]Record{}
	for _, r := range recs {
		k := r.Column + "/" + r.Scenario + "/" + r.Step
		byPoint[k] = append(byPoint[k], r)
	}
	return EvaluateClaimsWith(m, func(col, sc, step string, mt Metric) ([]float64, []int, string) {
		return pointValues(m, byPoint[col+"/"+sc+"/"+step], mt)
	})
}

// Lookup is a point's values of a metric over its repetitions and which
// repetition each is, or why there are none (the point was not measured,
// or measured the bench).
type Lookup func(column, scenario, step string, mt Metric) (vals []float64, reps []int, why string)

// EvaluateClaimsWith checks every claim of m against the values look
// gives: the records of a run (EvaluateClaims), or figures written down
// (a claim's contradictions).
func EvaluateClaimsWith(m *Manifest, look Lookup) []ClaimResult {
	ev := &evaluator{m: m, cols: map[string]Column{}, look: look}
	for _, p := range m.Columns {
		ev.cols[p.ID] = p
	}
	var out []ClaimResult
	for _, c := range m.Claims {
		out = append(out, ev.claim(c))
	}
	return out
}

type evaluator struct {
	m    *Manifest
	cols map[string]Column
	look Lookup
}

// binding is a term measured on a column in a scenario, at the claim's
// step or (visitors > 0) at another one.
type binding struct {
	term, col, sc string
	visitors      int
}

func (ev *evaluator) claim(c Claim) ClaimResult {
	res := ClaimResult{ID: c.ID, Source: c.Source, Quote: c.Quote, Metric: c.Metric, Unit: c.Unit,
		Point: fmt.Sprintf("%s c=%s", strings.Join(c.scenarioNames(), " vs "), c.stepsText()), Holds: ev.holdsText(c)}
	for _, f := range c.Published {
		f.Label = ev.label(f.Term)
		f.Value = ev.show(c, f.Value)
		res.Published = append(res.Published, f)
	}
	if p := c.publishedRatio(); p > 0 {
		res.PublishedRatio = p
		res.Within = c.Ratio.Within
	}
	if c.NotMeasured != "" {
		res.Verdict, res.How = NotMeasured, c.NotMeasured
		return res
	}
	variants, subst, missing := ev.variants(c)
	res.Substitution = subst
	if missing != "" {
		res.Verdict, res.How = NotMeasured, missing
		return res
	}
	var fails, gaps []string
	for _, v := range variants {
		vals, byRep, gap := ev.values(c, v, &res)
		if gap != "" {
			gaps = appendOnce(gaps, gap)
			continue
		}
		for _, f := range ev.check(c, v, vals, byRep, &res) {
			fails = appendOnce(fails, f)
		}
	}
	switch {
	case len(gaps) > 0:
		res.Verdict, res.How = NotMeasured, strings.Join(gaps, "; ")
	case len(fails) > 0:
		res.Verdict, res.How = Differs, strings.Join(fails, "; ")
	default:
		res.Verdict = Holds
	}
	res.Causes, res.CauseTags = ev.causes(c, res)
	return res
}

// stepsText is the claim's steps: its own, and those its terms name
// ("200 and 1000").
func (c Claim) stepsText() string {
	steps := []int{c.Visitors}
	for _, t := range c.terms() {
		if _, v := SplitTerm(t); v > 0 && !slices.Contains(steps, v) {
			steps = append(steps, v)
		}
	}
	slices.Sort(steps)
	var out []string
	for _, v := range steps {
		out = append(out, strconv.Itoa(v))
	}
	return strings.Join(out, " and ")
}

func (c Claim) scenarioNames() []string {
	if len(c.Scenarios) > 0 {
		return c.Scenarios
	}
	return []string{c.Scenario}
}

// terms are what the claim compares: its scenarios, or the columns it
// names (published, ordered, in its ratio, bounded), in that order.
func (c Claim) terms() []string {
	if len(c.Scenarios) > 0 {
		return c.Scenarios
	}
	var out []string
	for _, f := range c.Published {
		out = appendOnce(out, f.Term)
	}
	for _, t := range c.Order {
		out = appendOnce(out, t)
	}
	if c.Ratio != nil {
		out = appendOnce(appendOnce(out, c.Ratio.Num), c.Ratio.Den)
	}
	for _, t := range c.Columns {
		out = appendOnce(out, t)
	}
	return out
}

func (c Claim) publishedRatio() float64 {
	if c.Ratio == nil {
		return 0
	}
	if c.Ratio.Published > 0 {
		return c.Ratio.Published
	}
	var n, d float64
	for _, f := range c.Published {
		switch f.Term {
		case c.Ratio.Num:
			n = f.Value
		case c.Ratio.Den:
			d = f.Value
		}
	}
	if n == 0 || d == 0 {
		return 0
	}
	return n / d
}

func appendOnce(l []string, s string) []string {
	for _, x := range l {
		if x == s {
			return l
		}
	}
	return append(l, s)
}

// label is a column's title (a scenario's name stays), with the step a
// term names ("tuned-400@200": "Apache, 400 workers, at 200 visitors").
func (ev *evaluator) label(term string) string {
	name, v := SplitTerm(term)
	if v > 0 {
		return ev.label(name) + ", at " + strconv.Itoa(v) + " visitors"
	}
	if p, ok := ev.cols[term]; ok && p.Label != "" {
		return p.Label
	}
	return term
}

// bindLabel is the label of the column b measured, with the step it was
// measured at where that is not the claim's.
func (ev *evaluator) bindLabel(b binding) string {
	if b.visitors > 0 {
		return ev.label(b.col + "@" + strconv.Itoa(b.visitors))
	}
	return ev.label(b.col)
}

// show is v (in the metric's unit) in the claim's unit.
func (ev *evaluator) show(c Claim, v float64) float64 {
	if mu := ev.metricUnit(c); mu != "" {
		if x, ok := Convert(v, mu, c.Unit); ok {
			return x
		}
	}
	return v
}

func (ev *evaluator) metricUnit(c Claim) string {
	for _, s := range ev.m.Scenarios {
		if s.Name == c.scenarioNames()[0] {
			if mt, ok := MetricOf(s.Kind, c.Metric); ok {
				return mt.Unit
			}
		}
	}
	return ""
}

// Num formats a figure with about three significant digits.
func Num(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100 || a == math.Trunc(a):
		return commas(strconv.FormatFloat(math.Round(v), 'f', 0, 64))
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func commas(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

func median(vs []float64) float64 {
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}
