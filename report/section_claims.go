package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wptest/wptest/results"
)

// claimsSection is "Does it reproduce?": one row per claim the experiment
// file carries, with the source's figures, this run's, the ratios in each
// and the verdict (results.EvaluateClaims). It opens the report.
func (r *Report) claimsSection() (Section, bool) {
	if len(r.Claims) == 0 {
		return Section{}, false
	}
	n := map[string]int{}
	unexplained := 0
	for _, c := range r.Claims {
		n[c.Verdict]++
		if c.Unexplained() {
			unexplained++
		}
	}
	s := Section{ID: "claims", Title: "Does it reproduce?",
		Text: []string{fmt.Sprintf("%d claim(s) of the experiment's sources, each checked against this run: %d hold, %d differ (%d with nothing this run knows to explain it: those say something about the servers), %d not measured. Absolute figures depend on the machine; a claim holds on the order between columns, the ratio between them within the stated factor, or an absolute bound, as it says. This run's figures are medians over the repetitions. The differences come first: those nothing explains, then those a known deviation from the source could explain, grouped by it.",
			len(r.Claims), n[results.Holds], n[results.Differs], unexplained, n[results.NotMeasured])}}
	t := Table{Head: []string{"claim", "point", "published", "this run", "ratio", "holds if", "verdict", "could explain it"}}
	for _, c := range claimsInOrder(r.Claims) {
		t.Rows = append(t.Rows, []string{
			fmt.Sprintf("%s: “%s” (%s)", c.ID, c.Quote, c.Source),
			c.Point + ", " + c.Metric,
			publishedCell(c),
			measuredCell(c),
			ratioCell(c),
			c.Holds,
			verdictCell(c),
			causesCell(c),
		})
	}
	s.Tables = append(s.Tables, t)
	return s, true
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
		out = append(out, fmt.Sprintf("this run %sx (%s)", num(rv.Value), rv.Of))
	}
	if len(out) == 0 {
		return "–"
	}
	return strings.Join(out, "; ")
}

func verdictCell(c results.ClaimResult) string {
	v := c.Verdict
	if c.How != "" {
		v += ": " + c.How
	}
	if c.Substitution != "" {
		v += " (" + c.Substitution + ")"
	}
	return v
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

func causesCell(c results.ClaimResult) string {
	if len(c.Causes) == 0 {
		if c.Verdict == results.Differs {
			return "nothing known: about the servers"
		}
		return "–"
	}
	return c.CausesText()
}
