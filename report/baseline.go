package report

import (
	"fmt"
	"github.com/wptest/wptest/results"
	"strings"

	"github.com/wptest/wptest/compare"
)

// baselineSection is wptest compare's table of this run against the
// baseline (--baseline): per scenario, each point and headline metric with
// both medians, the change and its p-value, ~ where it is not significant.
func (r *Report) baselineSection() (Section, bool) {
	c := r.Baseline
	if c == nil {
		return Section{}, false
	}
	s := Section{ID: "baseline", Title: "Compared with run " + c.A.ID,
		Text: []string{fmt.Sprintf("A is run %s (experiment %s, %s), the baseline; B is this run. %s",
			c.A.ID, c.A.Experiment, results.Plural(c.A.Repetitions, "repetition"), c.Legend())}}
	if len(c.Differences) == 0 {
		s.Text = append(s.Text, "Same setup: experiment, plan, variables, columns and scenarios.")
	} else {
		s.Text = append(s.Text, "What differs from A to B: "+joinSemi(c.Differences)+".")
	}
	if ch := c.Chance(); ch != "" {
		s.Text = append(s.Text, strings.ToUpper(ch[:1])+ch[1:]+".")
	}
	if c.Note != "" {
		s.Text = append(s.Text, "Note: "+c.Note+".")
	}
	if len(c.OnlyA) > 0 {
		s.Text = append(s.Text, "Only in A: "+joinSemi(c.OnlyA)+".")
	}
	if len(c.OnlyB) > 0 {
		s.Text = append(s.Text, "Only in B: "+joinSemi(c.OnlyB)+".")
	}
	if len(c.BenchA)+len(c.BenchB) > 0 {
		s.Text = append(s.Text, "Measured the bench, not the server, and left out: "+joinSemi(append(append([]string{}, c.BenchA...), c.BenchB...))+".")
	}
	for _, g := range c.Groups() {
		t := Table{Caption: fmt.Sprintf("%s (%s)", g[0].Scenario, g[0].Kind), Head: compare.Head}
		for _, row := range g {
			cells := row.Cells()
			cells[1] = firstNonEmpty(r.Labels[row.Column], row.Column)
			t.Rows = append(t.Rows, cells)
		}
		s.Tables = append(s.Tables, t)
	}
	return s, true
}

func joinSemi(l []string) string { return strings.Join(l, "; ") }
