package compare

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/wptest/wptest/internal/termsafe"
	"github.com/wptest/wptest/results"
)

// Num formats v with about three significant digits, thousands separated.
func Num(v float64) string {
	a := math.Abs(v)
	switch {
	case v == 0:
		return "0"
	case a >= 1000:
		return Commas(fmt.Sprintf("%.0f", v))
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	case a >= 0.01:
		return fmt.Sprintf("%.3f", v)
	}
	return fmt.Sprintf("%.2g", v)
}

// Commas puts thousands separators in a formatted number.
func Commas(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Head is the table's header, Cells a row's cells under it (the text
// output and the report's section share them).
var Head = []string{"point", "column", "metric", "A", "B", "change", "p"}

// Cells is r under Head.
func (r Row) Cells() []string {
	return []string{r.Step, r.Column, r.Label, Num(r.MedianA), Num(r.MedianB), r.Change(), r.PText()}
}

// Groups splits the rows by scenario, in the rows' order.
func (c *Comparison) Groups() [][]Row {
	var out [][]Row
	for _, r := range c.Rows {
		if n := len(out); n > 0 && out[n-1][0].Scenario == r.Scenario {
			out[n-1] = append(out[n-1], r)
			continue
		}
		out = append(out, []Row{r})
	}
	return out
}

// Legend says what the change column means.
func (c *Comparison) Legend() string {
	return fmt.Sprintf("A and B are medians over the repetitions; change is (B − A) ÷ A, shown where a two-sided Mann–Whitney U test gives p < %g, else ~ (no significant difference).", c.Alpha)
}

// Chance says how many rows are significant against how many would be by
// chance alone ("" when none could be).
func (c *Comparison) Chance() string {
	if c.ByChance == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d lines are significant; were nothing different between the runs, about %.1f would be by chance alone (each line's chance of p < %g, summed)",
		c.Significant, len(c.Rows), c.ByChance, c.Alpha)
}

func (r Run) line() string {
	s := fmt.Sprintf("%s (experiment %s, run %s, %s", termsafe.Line(r.Dir), termsafe.Line(r.Experiment), termsafe.Line(r.ID), results.Plural(r.Repetitions, "repetition"))
	if !r.Complete {
		s += ", incomplete"
	}
	return s + ")"
}

// WriteText prints the comparison as benchstat does: what each run is and
// how they differ, then a table per scenario. It is text for a terminal,
// and the names in it come from two run directories anyone may have
// written: each is one line with no control character (termsafe), and
// what is printed passes termsafe once more as a whole.
func (c *Comparison) WriteText(w io.Writer) error {
	line := termsafe.Line
	var b strings.Builder
	fmt.Fprintf(&b, "A: %s\nB: %s\n", c.A.line(), c.B.line())
	if len(c.Differences) == 0 {
		b.WriteString("same setup: experiment, plan, variables, columns and scenarios\n")
	}
	for _, d := range c.Differences {
		fmt.Fprintf(&b, "differs: %s\n", line(d))
	}
	for _, g := range c.Groups() {
		fmt.Fprintf(&b, "\n%s (%s)\n", line(g[0].Scenario), line(g[0].Kind))
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(Head, "\t"))
		for _, r := range g {
			cells := r.Cells()
			for i := range cells {
				cells[i] = line(cells[i])
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		tw.Flush()
	}
	fmt.Fprintf(&b, "\n%s\n", c.Legend())
	if ch := c.Chance(); ch != "" {
		fmt.Fprintf(&b, "%s\n", ch)
	}
	if c.Note != "" {
		fmt.Fprintf(&b, "%s\n", c.Note)
	}
	if len(c.OnlyA) > 0 {
		fmt.Fprintf(&b, "only in A: %s\n", line(strings.Join(c.OnlyA, "; ")))
	}
	if len(c.OnlyB) > 0 {
		fmt.Fprintf(&b, "only in B: %s\n", line(strings.Join(c.OnlyB, "; ")))
	}
	for _, x := range []struct {
		run string
		l   []string
	}{{"A", c.BenchA}, {"B", c.BenchB}} {
		if len(x.l) > 0 {
			fmt.Fprintf(&b, "measured the bench in %s, left out: %s\n", x.run, line(strings.Join(x.l, "; ")))
		}
	}
	_, err := io.WriteString(w, termsafe.Text(b.String()))
	return err
}
