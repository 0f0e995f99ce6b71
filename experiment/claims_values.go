package experiment

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/wptest/wptest/results"
)

// stringMap is expr as an object of strings: its keys and values with
// where each is written (nil expr: none).
func (l *loader) stringMap(expr hcl.Expression) (keys, vals []string, kr, vr []hcl.Range) {
	if expr == nil {
		return
	}
	if v, d := expr.Value(nil); !d.HasErrors() && v.IsNull() {
		return // the attribute is absent
	}
	pairs, d := hcl.ExprMap(expr)
	if d.HasErrors() {
		l.ds = append(l.ds, d...)
		return
	}
	for _, p := range pairs {
		k, d1 := p.Key.Value(nil)
		v, d2 := p.Value.Value(l.ctx)
		if d1.HasErrors() || d2.HasErrors() || k.Type() != cty.String || v.Type() != cty.String || v.IsNull() {
			l.bad(p.Value.Range(), "Invalid value", `Want column = "figure", such as caddy = "535 ms".`)
			continue
		}
		keys, vals = append(keys, k.AsString()), append(vals, v.AsString())
		kr, vr = append(kr, p.Key.Range()), append(vr, p.Value.Range())
	}
	return
}

// figures are the figures of expr, an object of term = "figure" in mt's
// unit (the claim's published figures, a contradiction's measured ones),
// keyed by ch's terms; n is how many it gives. Where unit is not nil and
// still "", it becomes the first figure's unit (the claim is shown in it).
func (l *loader) figures(ch claimHCL, mt results.Metric, isTerm func(string) bool, expr hcl.Expression, unit *string) (out []results.Figure, n int) {
	keys, vals, kr, vr := l.stringMap(expr)
	for i, k := range keys {
		if !isTerm(k) {
			l.bad(kr[i], "Unknown "+termKind(ch), l.unknownTerm(ch, k))
			continue
		}
		f, u, err := results.ParseFigure(vals[i], mt.Unit)
		if err != nil {
			l.bad(vr[i], figureError(err), err.Error())
			continue
		}
		f.Term = k
		if unit != nil && *unit == "" {
			*unit = u
		}
		out = append(out, f)
	}
	return out, len(keys)
}

// figureError is the summary of a figure's error.
func figureError(err error) string {
	switch {
	case errors.Is(err, results.ErrUnit):
		return "Unknown unit"
	case errors.Is(err, results.ErrWrongUnit):
		return "Wrong unit"
	}
	return "Invalid figure"
}

func termKind(ch claimHCL) string {
	if len(ch.Scenarios) > 0 {
		return "scenario"
	}
	return "column"
}

// bound is an absolute bound ("50 ms"), or nil.
func (l *loader) bound(s string, mt results.Metric, unit *string, at hcl.Range) *results.Figure {
	if s == "" {
		return nil
	}
	f, u, err := results.ParseFigure(s, mt.Unit)
	if err != nil {
		l.bad(at, figureError(err), err.Error())
		return nil
	}
	if *unit == "" {
		*unit = u
	}
	return &f
}

// order reads "a < b < c" (or "c > b > a") as its terms, ascending.
func (l *loader) order(ch claimHCL, isTerm func(string) bool, at hcl.Range) []string {
	s := ch.Order
	if s == "" {
		return nil
	}
	lt, gt := strings.Contains(s, "<"), strings.Contains(s, ">")
	if lt == gt {
		l.bad(at, "Invalid order", fmt.Sprintf("%q: want terms joined by < (or all by >), such as \"caddy < cpanel-apache\".", s))
		return nil
	}
	sep := "<"
	if gt {
		sep = ">"
	}
	var out []string
	for _, t := range strings.Split(s, sep) {
		t = strings.TrimSpace(t)
		if !isTerm(t) {
			l.bad(at, "Unknown term", "In order: "+l.unknownTerm(ch, t))
			return nil
		}
		if slices.Contains(out, t) {
			l.bad(at, "Invalid order", fmt.Sprintf("%q: %s is named twice; a term is never below itself.", s, t))
			return nil
		}
		out = append(out, t)
	}
	if gt {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

// ratio reads "a / b" with its factor.
func (l *loader) ratio(ch claimHCL, isTerm func(string) bool, r func(string) hcl.Range) *results.Ratio {
	if ch.Ratio == "" {
		if ch.Within != 0 || ch.PublishedRatio != 0 {
			l.bad(r("within"), "Missing ratio", "within and published_ratio go with ratio = \"a / b\".")
		}
		return nil
	}
	num, den, ok := strings.Cut(ch.Ratio, "/")
	num, den = strings.TrimSpace(num), strings.TrimSpace(den)
	if !ok {
		l.bad(r("ratio"), "Invalid ratio", fmt.Sprintf("%q: want \"a / b\" of two columns (or stand_ins) or scenarios this claim compares.", ch.Ratio))
		return nil
	}
	for _, t := range []string{num, den} {
		if !isTerm(t) {
			l.bad(r("ratio"), "Invalid ratio", fmt.Sprintf("In %q: %s", ch.Ratio, l.unknownTerm(ch, t)))
			return nil
		}
	}
	if num == den {
		l.bad(r("ratio"), "Invalid ratio", fmt.Sprintf("%q: a term over itself is 1 whatever the servers do.", ch.Ratio))
		return nil
	}
	if ch.Within != 0 && ch.Within < 1 {
		l.bad(r("within"), "Invalid factor", "within is a factor of at least 1 (2: from half to twice the published ratio).")
	}
	if ch.PublishedRatio < 0 {
		l.bad(r("published_ratio"), "Invalid ratio", "published_ratio must be positive.")
	}
	return &results.Ratio{Num: num, Den: den, Published: ch.PublishedRatio, Within: ch.Within}
}

// claimStandIns are the claim's own stand_in = { name = ["col", ...] }.
func (l *loader) claimStandIns(ch claimHCL, file []results.StandIn, r func(string) hcl.Range) []results.StandIn {
	if ch.StandIn == nil {
		return nil
	}
	v, d := ch.StandIn.Value(l.ctx)
	if d.HasErrors() || v.IsNull() {
		l.ds = append(l.ds, d...)
		return nil
	}
	var out []results.StandIn
	for it := v.ElementIterator(); it.Next(); {
		k, cols := it.Element()
		if !cols.CanIterateElements() {
			l.bad(r("stand_in"), "Invalid stand_in", `Want stand_in = { corehttpd = ["caddy", "nginx"] }.`)
			return nil
		}
		si := results.StandIn{For: k.AsString()}
		for ct := cols.ElementIterator(); ct.Next(); {
			_, c := ct.Element()
			if c.Type() != cty.String || !l.hasColumn(c.AsString()) {
				l.bad(r("stand_in"), "Unknown column", fmt.Sprintf("stand_in %s: %s is not one of this file's columns (%s).", si.For, c.GoString(), l.columnList()))
				return nil
			}
			si.Columns = append(si.Columns, c.AsString())
		}
		for _, f := range file { // the file's block says what they are
			if f.For == si.For {
				si.As = f.As
			}
		}
		out = append(out, si)
	}
	return out
}

// unknownTerm says what a term of ch may be instead of k.
func (l *loader) unknownTerm(ch claimHCL, k string) string {
	if len(ch.Scenarios) > 0 {
		return fmt.Sprintf("%q is not one of the scenarios this claim compares (%s).", k, strings.Join(ch.Scenarios, ", "))
	}
	if name, at := results.SplitTerm(k); at > 0 {
		if at == ch.Visitors {
			return fmt.Sprintf("%q is at the claim's own step (visitors = %d): write %q.", k, at, name)
		}
		if sc, ok := l.scenarioNamed(ch.Scenario); ok && !l.hasStep(ch.Scenario, at) {
			return fmt.Sprintf("%q: scenario %q has no step at %d visitors (it has %v).", k, ch.Scenario, at, l.steps(sc))
		}
		k = name
	}
	return fmt.Sprintf("%q is not one of this file's columns (%s), nor a stand_in's; a column at another step is written column@visitors.", k, l.columnList())
}

// contradictions are the claim's contradiction (or example) blocks bs:
// each one's figures are in the metric it names, which must be one of the
// claim's scenario's.
func (l *loader) contradictions(ch claimHCL, bs []contraHCL, isTerm func(string) bool) []results.Contradiction {
	var out []results.Contradiction
	kind := ""
	if sc, ok := l.scenarioNamed(append(ch.Scenarios, ch.Scenario)[0]); ok {
		kind = sc.Kind
	}
	for _, cb := range bs {
		v, d := cb.Metric.Value(nil)
		if d.HasErrors() || v.Type() != cty.String || v.IsNull() {
			l.bad(cb.Metric.Range(), "Invalid metric", `Want metric = "name", the figure the sentence measures.`)
			continue
		}
		mt, ok := results.MetricOf(kind, v.AsString())
		if !ok {
			l.bad(cb.Metric.Range(), "Unknown metric", fmt.Sprintf("%q is not a metric of kind %s (it has: %s).", v.AsString(), kind, metricList(kind)))
			continue
		}
		c := results.Contradiction{Says: cb.Says, Metric: mt.Name}
		var n int
		c.Figures, n = l.figures(ch, mt, isTerm, cb.Measured, nil)
		if n == 0 {
			l.bad(cb.Measured.Range(), "Empty contradiction", "Give the figures that contradict the sentence, such as measured = { corehttpd = \"3,921 req/s\" }.")
		}
		out = append(out, c)
	}
	return out
}
