package results

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// check is how v's values differ from what the claim says holds (none:
// it holds), each sentence naming the columns it was measured on.
func (ev *evaluator) check(c Claim, v variant, vals map[string]float64, byRep map[string]map[int]float64, res *ClaimResult) []string {
	var out []string
	name := func(t string) string {
		b, _ := v.of(t)
		if len(c.Scenarios) > 0 {
			return b.sc + " on " + ev.label(b.col)
		}
		return ev.bindLabel(b)
	}
	fig := func(t string) string { return Num(ev.show(c, vals[t])) + " " + c.Unit }
	for i := 1; i < len(c.Order); i++ {
		a, b := c.Order[i-1], c.Order[i]
		switch {
		case !(vals[a] < vals[b]):
			out = append(out, fmt.Sprintf("%s (%s) is not below %s (%s)", name(a), fig(a), name(b), fig(b)))
		case c.OrderBy > 1 && !(vals[a]*c.OrderBy <= vals[b]):
			out = append(out, fmt.Sprintf("%s (%s) is below %s (%s) by %sx, not %sx", name(a), fig(a), name(b), fig(b), Num(vals[b]/vals[a]), Num(c.OrderBy)))
		}
	}
	if r := c.Ratio; r != nil {
		out = append(out, ev.checkRatio(c, name, vals, byRep, res)...)
	}
	for _, b := range v {
		t := b.term
		if len(c.Columns) > 0 && len(c.Scenarios) == 0 && !slices.Contains(c.Columns, t) {
			continue
		}
		out = append(out, ev.checkBounds(c, name(t), fig(t), vals[t])...)
	}
	if ev.metricUnit(c) == "yes/no" {
		for _, f := range c.Published {
			if x, ok := vals[f.Term]; ok && x != f.Value {
				out = append(out, fmt.Sprintf("%s: %s, published %s", name(f.Term), yesNo(x), f.Text))
			}
		}
	}
	return out
}

func yesNo(v float64) string {
	if v != 0 {
		return "yes"
	}
	return "no"
}

// checkRatio records this run's ratio and says if it is outside the
// stated factor of the published one.
func (ev *evaluator) checkRatio(c Claim, name func(string) string, vals map[string]float64, byRep map[string]map[int]float64, res *ClaimResult) []string {
	r := c.Ratio
	of := name(r.Num) + " / " + name(r.Den)
	if vals[r.Den] == 0 {
		return []string{fmt.Sprintf("%s: %s is 0, no ratio", of, name(r.Den))}
	}
	got := vals[r.Num] / vals[r.Den]
	rv := RatioValue{Of: of, Value: got}
	var each []float64
	for rep, n := range byRep[r.Num] {
		if d, ok := byRep[r.Den][rep]; ok && d != 0 {
			each = append(each, n/d)
		}
	}
	if len(each) > 1 {
		rv.Low, rv.High = slices.Min(each), slices.Max(each)
	}
	res.Ratios = append(res.Ratios, rv)
	p := c.publishedRatio()
	if p == 0 || r.Within == 0 {
		return nil
	}
	if got < p/r.Within || got > p*r.Within {
		return []string{fmt.Sprintf("%s is %sx, published %sx: not within a factor of %s", of, Num(got), Num(p), Num(r.Within))}
	}
	return nil
}

// checkBounds says if v is outside the claim's absolute bounds.
func (ev *evaluator) checkBounds(c Claim, name, fig string, v float64) []string {
	lo, hi := c.AtLeast, c.AtMost
	switch {
	case lo != nil && hi != nil && lo.Value == hi.Value && v != lo.Value:
		exact := strconv.FormatFloat(ev.show(c, v), 'f', -1, 64) + " " + c.Unit // Num would round it to the bound
		return []string{fmt.Sprintf("%s: %s, not exactly %s", name, exact, lo.Text)}
	case lo != nil && v < lo.Value:
		return []string{fmt.Sprintf("%s: %s, below %s", name, fig, lo.Text)}
	case hi != nil && v > hi.Value:
		return []string{fmt.Sprintf("%s: %s, above %s", name, fig, hi.Text)}
	}
	return nil
}

// holdsText is what holds means for c, in words.
func (ev *evaluator) holdsText(c Claim) string {
	var parts []string
	if len(c.Order) > 0 {
		var ls []string
		for _, t := range c.Order {
			ls = append(ls, ev.label(t))
		}
		by := ""
		if c.OrderBy > 1 {
			by = " by " + Num(c.OrderBy) + "x or more"
		}
		parts = append(parts, strings.Join(ls, " < ")+by)
	}
	if r := c.Ratio; r != nil {
		s := ev.label(r.Num) + " / " + ev.label(r.Den)
		if p := c.publishedRatio(); p > 0 && r.Within > 0 {
			s += fmt.Sprintf(" within a factor of %s of %sx", Num(r.Within), Num(p))
		}
		parts = append(parts, s)
	}
	switch lo, hi := c.AtLeast, c.AtMost; {
	case lo != nil && hi != nil && lo.Value == hi.Value:
		parts = append(parts, "exactly "+lo.Text)
	default:
		if lo != nil {
			parts = append(parts, "≥ "+lo.Text)
		}
		if hi != nil {
			parts = append(parts, "≤ "+hi.Text)
		}
	}
	if ev.metricUnit(c) == "yes/no" && len(c.Published) > 0 {
		parts = append(parts, "each column as published")
	}
	s := strings.Join(parts, "; ")
	if len(c.Scenarios) > 0 {
		s += ", on each column"
	}
	return s
}
