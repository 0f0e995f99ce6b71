package cli

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/wptest/wptest/results"
)

// summaryDiffs and summaryBench are how many differences between columns
// and how many points that measured the bench the summary lists (the
// report has them all).
const (
	summaryDiffs = 3
	summaryBench = 5
	// summaryCauses is how many of a differing claim's causes it names,
	// summaryWhy how many characters of why a claim was not measured.
	summaryCauses = 3
	summaryWhy    = 100
)

// runSummary is what a run's stderr ends with, as k6's end summary: the
// claims' verdicts (each one that differs with its causes in a few
// words), the largest differences between columns, the points that
// measured the bench, not the server, and where the report is (md, html:
// as the run shows them).
func runSummary(dir, md, html string) (string, error) {
	man, err := results.ReadManifest(dir)
	if err != nil {
		return "", err
	}
	recs, err := results.ReadResults(dir)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "summary of run %s (%s):\n", man.ID, man.File)
	claimsSummary(&b, results.EvaluateClaims(man, recs))
	diffsSummary(&b, columnDiffs(man, recs))
	benchSummary(&b, results.BenchLimited(recs, man.Machine))
	fmt.Fprintf(&b, "  report: %s and %s", md, html)
	return b.String(), nil
}

// claimsSummary counts the verdicts and names each claim that differs
// (with its causes' tags) or was not measured (with why).
func claimsSummary(b *strings.Builder, cs []results.ClaimResult) {
	if len(cs) == 0 {
		b.WriteString("  claims: none (the experiment file makes none)\n")
		return
	}
	n := map[string]int{}
	for _, c := range cs {
		n[c.Verdict]++
	}
	fmt.Fprintf(b, "  claims: %d %s, %d %s, %d not measured\n", n[results.Holds], verb(n[results.Holds], "hold"),
		n[results.Differs], verb(n[results.Differs], "differ"), n[results.NotMeasured])
	for _, c := range cs { // what differs first: it is what the run says
		if c.Verdict != results.Differs {
			continue
		}
		why := "nothing the run knows explains it but the servers"
		if tags := c.CauseTags; len(tags) > summaryCauses {
			why = fmt.Sprintf("could be %s and %d more (the report names them)", strings.Join(tags[:summaryCauses], ", "), len(tags)-summaryCauses)
		} else if len(tags) > 0 {
			why = "could be " + strings.Join(tags, ", ")
		}
		fmt.Fprintf(b, "    ✗ %s (%s): differs; %s\n", c.ID, c.Point, why)
	}
	for _, c := range cs {
		if c.Verdict == results.NotMeasured {
			fmt.Fprintf(b, "    – %s (%s): not measured; %s\n", c.ID, c.Point, shortened(c.How, summaryWhy))
		}
	}
}

// shortened is s cut to about n characters at a word's end, "…" after
// what it leaves out.
func shortened(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n])
	if i := strings.LastIndex(cut, " "); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, ",;: ") + "…"
}

// verb is a verb's third person for one ("holds"), its plain form else.
func verb(n int, v string) string {
	if n == 1 {
		return v + "s"
	}
	return v
}

// columnDiff is one headline figure at one point: the columns with the
// highest and the lowest median over the repetitions.
type columnDiff struct {
	point, label, better string
	hi, lo               string
	hiV, loV             float64
}

func (d columnDiff) ratio() float64 { return d.hiV / d.loV }

// columnDiffs are, for every point (scenario and step) and headline
// figure of its kind, the columns with the highest and the lowest median
// over the repetitions (sound records only, as the claims read them;
// figures of 0 and yes/no left out: no ratio), largest ratio first.
func columnDiffs(man *results.Manifest, recs []results.Record) []columnDiff {
	by := map[string][]results.Record{}
	for _, r := range recs {
		by[r.Column+"/"+r.Scenario+"/"+r.Step] = append(by[r.Column+"/"+r.Scenario+"/"+r.Step], r)
	}
	var out []columnDiff
	for _, sc := range man.Scenarios {
		for _, v := range sc.Visitors {
			step := fmt.Sprintf("c=%d", v)
			for _, mt := range results.MetricsOf(sc.Kind) {
				if !mt.Headline || mt.Failures || mt.Answered || mt.NotMeasuredOn(man.Machine) != "" {
					continue
				}
				d, ok := pointDiff(man, mt, func(col string) []results.Record { return by[col+"/"+sc.Name+"/"+step] })
				if ok && d.hiV > d.loV { // columns that agree differ in nothing
					d.point = sc.Name + " " + step
					out = append(out, d)
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b columnDiff) int { return cmp.Compare(b.ratio(), a.ratio()) })
	return out
}

// pointDiff is mt's highest and lowest column median at one point (ok:
// two columns or more have one above 0).
func pointDiff(man *results.Manifest, mt results.Metric, recs func(col string) []results.Record) (columnDiff, bool) {
	d := columnDiff{label: mt.Label, better: mt.Better.String()}
	n := 0
	for _, col := range man.Columns {
		if !col.Enabled {
			continue
		}
		var xs []float64
		unsound := false
		for _, r := range recs(col.ID) {
			if results.Unsound(r, mt, man.Machine) != "" {
				unsound = true // one repetition that measured the bench makes the point's median unsafe, as for the claims and the report
				break
			}
			if x, ok := mt.Of(man.Machine)(r); ok {
				xs = append(xs, x)
			}
		}
		m := medianOf(xs)
		if unsound || len(xs) == 0 || m <= 0 {
			continue
		}
		name := cmp.Or(col.Label, col.ID)
		if n++; n == 1 || m > d.hiV {
			d.hi, d.hiV = name, m
		}
		if n == 1 || m < d.loV {
			d.lo, d.loV = name, m
		}
	}
	return d, n >= 2
}

func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// diffsSummary lists the largest differences between columns.
func diffsSummary(b *strings.Builder, ds []columnDiff) {
	if len(ds) == 0 {
		b.WriteString("  largest differences between columns: none (no point has a figure on two columns)\n")
		return
	}
	b.WriteString("  largest differences between columns (at the same point, the higher column's median over the repetitions divided by the lower's):\n")
	for _, d := range ds[:min(summaryDiffs, len(ds))] {
		better := ""
		if d.better != "" {
			better = "; " + d.better
		}
		fmt.Fprintf(b, "    %sx %s, %s: %s %s, %s %s%s\n", results.Num(d.ratio()), d.point, d.label,
			d.hi, results.Num(d.hiV), d.lo, results.Num(d.loV), better)
	}
}

// benchSummary lists the points that measured the bench, not the server
// (failed, or marked: results.BenchLimit), as the report's bench section.
func benchSummary(b *strings.Builder, bad []string) {
	if len(bad) == 0 {
		b.WriteString("  points that measured the bench, not the server: none\n")
		return
	}
	fmt.Fprintf(b, "  %s measured the bench, not the server (the report marks them):\n", results.Plural(len(bad), "point"))
	for _, l := range bad[:min(summaryBench, len(bad))] {
		fmt.Fprintf(b, "    %s\n", l)
	}
	if len(bad) > summaryBench {
		fmt.Fprintf(b, "    and %d more (the report's bench section)\n", len(bad)-summaryBench)
	}
}
