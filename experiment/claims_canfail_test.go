package experiment_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/experiment"
	_ "github.com/wptest/wptest/kinds/all" // every shipped file's kinds, those of their own packages among them
	"github.com/wptest/wptest/results"
)

// TestEveryClaimCanFail holds every claim of every shipped experiment to
// its sentence: the published figures themselves must hold, and each
// contradiction written beside the claim (figures that say the opposite of
// the sentence, in the metric the sentence measures) must make it differ.
// A claim without a contradiction, or one its contradiction leaves
// holding, is a claim that cannot fail, and fails here. An external test:
// it loads kinds of their own packages (kinds/all), which import this one.
func TestEveryClaimCanFail(t *testing.T) {
	files, err := filepath.Glob("../experiments/*.hcl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no shipped experiments: %v", err)
	}
	claims, contras := 0, 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := experiment.Load(file, src, experiment.LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, c := range sp.Claims {
			claims++
			contras += len(c.Contradictions)
			t.Run(filepath.Base(file)+"/"+c.ID, func(t *testing.T) { checkClaimCanFail(t, sp, c) })
		}
	}
	t.Logf("%d claims, %d contradictions", claims, contras)
}

func checkClaimCanFail(t *testing.T, sp *experiment.Spec, c results.Claim) {
	man := &results.Manifest{Scenarios: sp.Scenarios, Claims: []results.Claim{c}, Machine: &results.MachineInfo{OwnMachine: true}}
	for _, col := range sp.Columns {
		col.Enabled = true // every column measured: a claim on a column the file has is judged on it; one a stand-in answers for is judged on the stand-in (evalOn)
		man.Columns = append(man.Columns, col)
	}
	if c.NotMeasured != "" {
		if got := evalOn(man, nil); got.Verdict != results.NotMeasured || got.How != c.NotMeasured {
			t.Fatalf("a claim no run can measure reads %q (%s), want not measured: %s", got.Verdict, got.How, c.NotMeasured)
		}
		return
	}
	pub, err := publishedSet(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := evalOn(man, pub); got.Verdict != results.Holds {
		t.Errorf("the published figures %v do not hold: %s (%s)", pub, got.Verdict, got.How)
	}
	if len(c.Contradictions) == 0 {
		t.Fatalf("no contradiction: write one from the sentence %q (contradiction \"...\" { metric = ..., measured = {...} })", c.Quote)
	}
	for _, k := range c.Contradictions {
		fig := map[string]float64{}
		for term, v := range pub {
			fig[term] = v
		}
		if k.Metric == c.Metric { // figures of another metric leave the claim's as published
			for _, f := range k.Figures {
				fig[f.Term] = f.Value
			}
		}
		if got := evalOn(man, fig); got.Verdict != results.Differs {
			t.Errorf("contradiction %q (%s %v) leaves the claim on %s reading %q: it cannot fail on what its sentence says", k.Says, k.Metric, fig, c.Metric, got.Verdict)
		}
	}
}

// evalOn evaluates man's one claim on figures by term (a column, or a
// scenario where the claim compares scenarios).
func evalOn(man *results.Manifest, fig map[string]float64) results.ClaimResult {
	c := man.Claims[0]
	standsIn := standInTerms(man, c)
	return results.EvaluateClaimsWith(man, func(col, sc, step string, mt results.Metric) ([]float64, []int, string) {
		term := col
		if t, ok := standsIn[col]; ok {
			term = t // a file without the column (quick.hcl's corehttpd): its stand-in measures the term's figures
		}
		if len(c.Scenarios) > 0 {
			term = sc
		}
		v, ok := fig[term+"@"+strings.TrimPrefix(step, "c=")] // a column at a step the claim names
		if !ok && step == fmt.Sprintf("c=%d", c.Visitors) {
			v, ok = fig[term]
		}
		if !ok {
			v, ok = fig[""] // a claim on every column: its bound
		}
		if !ok {
			return nil, nil, "no figure for " + term
		}
		return []float64{v}, []int{1}, ""
	})[0]
}

// standInTerms maps each column that stands in for a term no column of
// man is (corehttpd where only Caddy runs) to that term.
func standInTerms(man *results.Manifest, c results.Claim) map[string]string {
	cols := map[string]bool{}
	for _, col := range man.Columns {
		cols[col.ID] = true
	}
	out := map[string]string{}
	for _, si := range c.StandIns {
		if cols[si.For] {
			continue
		}
		for _, col := range si.Columns {
			out[col] = si.For
		}
	}
	return out
}

// publishedSet is the claim's terms at the figures its source published:
// a published figure, else the one its published ratio gives from the
// other term's, else the bound it states.
func publishedSet(c results.Claim) (map[string]float64, error) {
	fig := map[string]float64{}
	for _, f := range c.Published {
		fig[f.Term] = f.Value
	}
	for _, e := range c.Examples { // where the source gave none: figures that agree with its sentence
		for _, f := range e.Figures {
			if _, published := fig[f.Term]; published || e.Metric != c.Metric {
				return nil, fmt.Errorf("claim %s: example %q gives %s, which the source published or another metric measures: an example stands only where the source gave no figure", c.ID, e.Says, f.Term)
			}
			fig[f.Term] = f.Value
		}
	}
	var terms []string
	terms = append(terms, c.Scenarios...)
	terms = append(terms, c.Order...)
	if len(c.Scenarios) == 0 { // a comparison of scenarios is made on each of its columns
		terms = append(terms, c.Columns...)
	}
	if r := c.Ratio; r != nil {
		terms = append(terms, r.Num, r.Den)
		n, okn := fig[r.Num]
		d, okd := fig[r.Den]
		switch {
		case r.Published > 0 && okn && !okd:
			fig[r.Den] = n / r.Published
		case r.Published > 0 && okd && !okn:
			fig[r.Num] = d * r.Published
		}
	}
	for _, term := range terms {
		if _, ok := fig[term]; ok {
			continue
		}
		switch {
		case c.AtMost != nil:
			fig[term] = c.AtMost.Value
		case c.AtLeast != nil:
			fig[term] = c.AtLeast.Value
		default:
			return nil, &missingFigure{c.ID, term}
		}
	}
	if len(terms) == 0 {
		for _, b := range []*results.Figure{c.AtLeast, c.AtMost} {
			if b != nil {
				fig[""] = b.Value
			}
		}
	}
	return fig, nil
}

type missingFigure struct{ claim, term string }

func (e *missingFigure) Error() string {
	return "claim " + e.claim + ": no published figure for " + e.term + " (publish one, or a ratio or bound it follows from)"
}
