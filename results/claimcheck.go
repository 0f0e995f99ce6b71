package results

import (
	"fmt"
	"slices"
	"strings"
)

// variant is one way of measuring a claim's terms: each term bound to a
// column and a scenario (several where a stand-in has several columns, or
// a comparison of scenarios is made on each of several columns).
type variant []binding

// of is the binding of term t.
func (v variant) of(t string) (binding, bool) {
	for _, b := range v {
		if b.term == t {
			return b, true
		}
	}
	return binding{}, false
}

// sameColumn says whether term t may be measured on col in v: a column
// named at two steps is measured on one column at both.
func (v variant) sameColumn(t, col string) bool {
	name, _ := SplitTerm(t)
	for _, b := range v {
		if n, _ := SplitTerm(b.term); n == name && b.col != col {
			return false
		}
	}
	return true
}

// variants are the claim's ways of being measured in this run, the
// substitution they make (said, never silent) and, if some term has no
// column at all, why.
func (ev *evaluator) variants(c Claim) (vs []variant, subst, missing string) {
	var notes []string
	resolveAll := func(cols []string) ([][]string, bool) {
		var out [][]string
		for _, t := range cols {
			name, _ := SplitTerm(t)
			got, note, why := ev.resolve(c, name)
			if len(got) == 0 {
				missing = why
				return nil, false
			}
			if note != "" {
				notes = appendOnce(notes, note)
			}
			out = append(out, got)
		}
		return out, true
	}
	if len(c.Scenarios) > 0 {
		cands, ok := resolveAll(ev.columnsOr(c, c.Columns))
		if !ok {
			return nil, "", missing
		}
		for _, cs := range cands {
			for _, col := range cs {
				var v variant
				for _, s := range c.Scenarios {
					v = append(v, binding{term: s, col: col, sc: s})
				}
				vs = append(vs, v)
			}
		}
		return vs, strings.Join(notes, "; "), ""
	}
	terms := c.terms()
	if len(terms) == 0 {
		terms = ev.columnsOr(c, nil)
	}
	cands, ok := resolveAll(terms)
	if !ok {
		return nil, "", missing
	}
	vs = []variant{{}}
	for i, t := range terms {
		var next []variant
		for _, v := range vs {
			for _, col := range cands[i] {
				if !v.sameColumn(t, col) {
					continue // one stand-in for a column at both its steps
				}
				_, at := SplitTerm(t)
				if at == c.Visitors {
					at = 0
				}
				w := append(append(variant{}, v...), binding{term: t, col: col, sc: c.Scenario, visitors: at})
				next = append(next, w)
			}
		}
		vs = next
	}
	return vs, strings.Join(notes, "; "), ""
}

// columnsOr is cols, or every enabled column the claim's scenario runs on.
func (ev *evaluator) columnsOr(c Claim, cols []string) []string {
	if len(cols) > 0 {
		return cols
	}
	var limit []string
	for _, s := range ev.m.Scenarios {
		if s.Name == c.scenarioNames()[0] {
			limit = s.Columns
		}
	}
	var out []string
	for _, p := range ev.m.Columns {
		if p.Enabled && (len(limit) == 0 || slices.Contains(limit, p.ID)) {
			out = append(out, p.ID)
		}
	}
	return out
}

// resolve is the columns term is measured on: itself if this run measured
// it, else its stand-ins (with the note that says so), else none and why.
func (ev *evaluator) resolve(c Claim, term string) (cols []string, note, why string) {
	p, known := ev.cols[term]
	if known && p.Enabled {
		return []string{term}, "", ""
	}
	for _, si := range c.StandIns {
		if si.For != term {
			continue
		}
		var labels []string
		for _, s := range si.Columns {
			if q, ok := ev.cols[s]; ok && q.Enabled {
				cols = append(cols, s)
				labels = append(labels, ev.label(s))
			}
		}
		if len(cols) > 0 {
			note = fmt.Sprintf("%s not given; compared with %s", ev.label(term), andList(labels))
			if si.As != "" {
				note += ", " + si.As
			}
			return cols, note, ""
		}
	}
	if known {
		why = ev.label(term) + " is left out of this run"
		if p.Reason != "" {
			why += ": " + p.Reason
		}
		return nil, "", why
	}
	return nil, "", "no column " + term + " in this run"
}

func andList(l []string) string {
	if len(l) < 2 {
		return strings.Join(l, "")
	}
	return strings.Join(l[:len(l)-1], ", ") + " and " + l[len(l)-1]
}

// values are v's terms' medians over the repetitions (in the metric's
// unit) and each repetition's, each added to res.Measured once with its
// lowest and highest; gap says why one is missing.
func (ev *evaluator) values(c Claim, v variant, res *ClaimResult) (vals map[string]float64, byRep map[string]map[int]float64, gap string) {
	vals, byRep = map[string]float64{}, map[string]map[int]float64{}
	for _, b := range v {
		t := b.term
		step := fmt.Sprintf("c=%d", c.Visitors)
		if b.visitors > 0 {
			step = fmt.Sprintf("c=%d", b.visitors)
		}
		mt, ok := ev.metric(b.sc, c.Metric)
		var xs []float64
		var reps []int
		why := "no " + c.Metric + " in this run's records"
		if ok {
			xs, reps, why = ev.look(b.col, b.sc, step, mt)
		}
		if len(xs) == 0 {
			return nil, nil, fmt.Sprintf("%s at %s %s: %s", ev.label(b.col), b.sc, step, why)
		}
		vals[t] = median(xs)
		byRep[t] = map[int]float64{}
		for i, x := range xs {
			if i < len(reps) {
				byRep[t][reps[i]] = x
			}
		}
		m := Measured{Term: t, Column: b.col, Label: ev.bindLabel(b), Scenario: b.sc, Visitors: b.visitors, Value: ev.show(c, vals[t]), N: len(xs)}
		if len(xs) > 1 {
			m.Min, m.Max = ev.show(c, slices.Min(xs)), ev.show(c, slices.Max(xs))
		}
		res.addMeasured(m)
	}
	return vals, byRep, ""
}

// pointValues are mt's values in a point's records (its repetitions), or
// why there are none: not applicable, measured the bench (Unsound), or the
// figure missing. A claim on the server is never judged on a repetition
// that measured the bench.
func pointValues(m *Manifest, recs []Record, mt Metric) ([]float64, []int, string) {
	if why := mt.NotMeasuredOn(m.Machine); why != "" {
		return nil, nil, why
	}
	var xs []float64
	var reps []int
	why := ""
	for _, r := range recs {
		if u := Unsound(r, mt, m.Machine); u != "" {
			why = u
			continue
		}
		if x, ok := mt.Of(m.Machine)(r); ok {
			xs, reps = append(xs, x), append(reps, r.Rep)
		} else if r.NotApplicable != "" {
			why = r.NotApplicable
		}
	}
	if len(xs) == 0 && why == "" {
		why = "no " + mt.Name + " in this run's records"
	}
	if len(xs) == 0 || why != "" && len(xs) < len(recs) {
		return nil, nil, why // one repetition that measured the bench makes the point's median unsafe
	}
	return xs, reps, ""
}

func (res *ClaimResult) addMeasured(m Measured) {
	for _, x := range res.Measured {
		if x.Column == m.Column && x.Scenario == m.Scenario && x.Visitors == m.Visitors {
			return
		}
	}
	res.Measured = append(res.Measured, m)
}

func (ev *evaluator) metric(scenario, name string) (Metric, bool) {
	for _, s := range ev.m.Scenarios {
		if s.Name == scenario {
			return MetricOf(s.Kind, name)
		}
	}
	return Metric{}, false
}
