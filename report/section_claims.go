package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/wptest/wptest/results"
)

// claimsSection is "Does it reproduce?": a line per claim the experiment
// file carries (results.EvaluateClaims), read at a glance (a badge, what
// it is about, the published ratio and this run's with its range, the
// cause of a difference in a few words), with the source's sentence, the
// rule, each column's figures and the causes folded under it, and a chart
// of the ratios on one log axis. It opens the report.
func (r *Report) claimsSection() (Section, bool) {
	if len(r.Claims) == 0 {
		return Section{}, false
	}
	n := map[string]int{}
	unexplained := 0
	var substs []string
	for _, c := range r.Claims {
		n[c.Verdict]++
		if c.Unexplained() {
			unexplained++
		}
		if c.Substitution != "" && !slices.Contains(substs, c.Substitution) {
			substs = append(substs, c.Substitution)
		}
	}
	s := Section{ID: "claims", Title: "Does it reproduce?",
		Text: []string{fmt.Sprintf("%s of the experiment's sources, each checked against this run: ✓ %d hold, ✗ %d differ (%d with nothing this run knows to explain it: those say something about the servers), – %d not measured. A claim holds on what it says: the order between columns, their ratio within its factor, or a bound. This run's figures are medians over the repetitions; a range is the lowest to the highest repetition.",
			plural(len(r.Claims), "claim"), n[results.Holds], n[results.Differs], unexplained, n[results.NotMeasured])}}
	if len(substs) > 0 {
		s.Text = append(s.Text, "Where a claim names a server this run does not have, it is checked against another, said once here: "+strings.Join(substs, "; ")+".")
	}
	ls := &Lines{Head: []string{"claim", "published", "this run", "why it differs"}}
	for _, c := range claimsInOrder(r.Claims) {
		ls.Lines = append(ls.Lines, r.claimLine(c))
	}
	s.Lines = ls
	if r.claimsChart() != nil {
		s.Charts = []string{claimsChartID}
	}
	return s, true
}

// claimLine is c's line: its badge, what it is about, the published ratio
// (or figures) and this run's, and the cause in a few words; folded, the
// source's sentence, the rule, every figure and the causes in full.
func (r *Report) claimLine(c results.ClaimResult) Line {
	l := Line{Badge: "–", Class: "none"}
	switch c.Verdict {
	case results.Holds:
		l.Badge, l.Class = "✓", "holds"
	case results.Differs:
		l.Badge, l.Class = "✗", "differs"
	}
	title := r.metricLabel(c) + ", " + c.Point + " (" + c.ID + ")"
	pub, got := publishedShort(c), measuredShort(c)
	why := "–"
	switch {
	case c.Verdict == results.NotMeasured:
		why = "not measured"
	case c.Unexplained():
		why = "nothing known: the servers"
	case c.Verdict == results.Differs:
		why = fewWords(c.CauseTags)
	}
	l.Cells = []string{title, pub, got, why}
	l.Fold = []string{fmt.Sprintf("“%s” (%s)", c.Quote, c.Source), "Holds if " + c.Holds + ".",
		"Published: " + publishedCell(c) + ".", "This run: " + measuredCell(c) + "."}
	if rc := ratioCell(c); rc != "–" {
		l.Fold = append(l.Fold, "Ratio: "+rc+".")
	}
	if c.How != "" {
		l.Fold = append(l.Fold, c.Verdict+": "+c.How+".")
	}
	if len(c.Causes) > 0 {
		l.Fold = append(l.Fold, "Could explain it: "+c.CausesText()+".")
	}
	return l
}

// fewWords is a line's causes: the first two, and how many more the
// fold names.
func fewWords(tags []string) string {
	if len(tags) <= 3 {
		return strings.Join(tags, ", ")
	}
	return strings.Join(tags[:2], ", ") + fmt.Sprintf(" and %d more", len(tags)-2)
}

// metricLabel is the label of the figure c is about, as every reader shows
// it ("page time, mean (ms)"), or its key where the run has no such figure.
func (r *Report) metricLabel(c results.ClaimResult) string {
	for _, sc := range r.Manifest.Scenarios {
		if strings.HasPrefix(c.Point, sc.Name+" ") {
			if m, ok := results.MetricOf(sc.Kind, c.Metric); ok {
				return m.Label
			}
		}
	}
	return c.Metric
}

// publishedShort is the source's ratio ("2.80x"), else its figures.
func publishedShort(c results.ClaimResult) string {
	if c.PublishedRatio > 0 {
		return num(c.PublishedRatio) + "x"
	}
	return publishedCell(c)
}

// measuredShort is this run's ratio with its range ("1.90x (1.70–2.10x)"),
// one for each substitution, else its figures.
func measuredShort(c results.ClaimResult) string {
	var out []string
	for _, rv := range c.Ratios {
		v := num(rv.Value) + "x"
		if rv.Low > 0 && rv.High > rv.Low {
			v += " (" + num(rv.Low) + "–" + num(rv.High) + "x)"
			if rv.Value > 0 && marked(100*(rv.High-rv.Low)/rv.Value) {
				v += " ⚠" // the repetitions' own ratios disagree: the median's alone says more than the run knows
			}
		}
		if len(c.Ratios) > 1 {
			v += " " + rv.Of // which stand-in
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return measuredCell(c)
	}
	return strings.Join(out, "; ")
}

// plural is "1 claim" or "3 claims".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func publishedCell(c results.ClaimResult) string {
	var out []string
	for _, f := range c.Published {
		out = append(out, f.Label+": "+f.Text)
	}
	if len(out) == 0 {
		return "–"
	}
	return strings.Join(out, "; ")
}

func measuredCell(c results.ClaimResult) string {
	var out []string
	for _, m := range c.Measured {
		who := m.Label
		if strings.Contains(c.Point, " vs ") {
			who = m.Scenario + " on " + m.Label
		}
		v := num(m.Value) + " " + c.Unit
		if m.Max > m.Min {
			v += " (" + num(m.Min) + "–" + num(m.Max) + ")"
		}
		if c.Unit == "yes/no" {
			v = map[bool]string{true: "yes", false: "no"}[m.Value != 0]
		}
		out = append(out, who+": "+v)
	}
	if len(out) == 0 {
		return "–"
	}
	return strings.Join(out, "; ")
}

func ratioCell(c results.ClaimResult) string {
	var out []string
	if c.PublishedRatio > 0 {
		out = append(out, "published "+num(c.PublishedRatio)+"x")
	}
	for _, rv := range c.Ratios {
		v := num(rv.Value) + "x"
		if rv.High > rv.Low {
			v += ", " + num(rv.Low) + "–" + num(rv.High) + "x by repetition"
		}
		out = append(out, fmt.Sprintf("this run %s (%s)", v, rv.Of))
	}
	if len(out) == 0 {
		return "–"
	}
	return strings.Join(out, "; ")
}

// claimsInOrder puts the differences first, those nothing explains before
// those a known cause could (grouped by their first cause), then what
// holds, then what was not measured; the file's order within each.
func claimsInOrder(cs []results.ClaimResult) []results.ClaimResult {
	rank := func(c results.ClaimResult) int {
		switch {
		case c.Unexplained():
			return 0
		case c.Verdict == results.Differs:
			return 1
		case c.Verdict == results.Holds:
			return 2
		}
		return 3
	}
	out := append([]results.ClaimResult(nil), cs...)
	sort.SliceStable(out, func(i, j int) bool {
		if ri, rj := rank(out[i]), rank(out[j]); ri != rj {
			return ri < rj
		}
		return rank(out[i]) == 1 && out[i].Causes[0] < out[j].Causes[0]
	})
	return out
}
