// Package compare sets two runs side by side, after benchstat: each
// repetition of a point is one sample; for every point (column, scenario,
// step) and headline metric both runs have, it gives the two medians, the
// change in percent and a two-sided Mann–Whitney U test, and calls the
// change significant only when p < Alpha. It reads what the runs wrote
// (package results) and nothing of the runner; the report uses it for its
// "Compared with" section, so it never imports the report.
package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/wptest/wptest/results"
)

// Alpha is the significance level.
const Alpha = 0.05

// Run is one side of a comparison.
type Run struct {
	Dir         string `json:"dir"`
	ID          string `json:"id"`
	Experiment  string `json:"experiment"`
	PlanHash    string `json:"plan_sha256"`
	Repetitions int    `json:"repetitions"`
	Complete    bool   `json:"complete"`

	m    *results.Manifest
	recs []results.Record
}

// Row is one metric of one point in both runs.
type Row struct {
	Scenario string `json:"scenario"`
	Kind     string `json:"kind"`
	Step     string `json:"step"`
	Column   string `json:"column"`
	// Metric is the figure's key (results.Metrics: what a claim names),
	// Label what a reader sees, Better which way it improves.
	Metric  string    `json:"metric"`
	Label   string    `json:"label"`
	Better  string    `json:"better,omitempty"`
	A       []float64 `json:"a"` // one sample per repetition, in repetition order
	B       []float64 `json:"b"`
	MedianA float64   `json:"a_median"`
	MedianB float64   `json:"b_median"`
	// ChangePct is (B − A) / A in percent; nil when A's median is 0.
	ChangePct *float64 `json:"change_pct"`
	P         float64  `json:"p"`
	// Significant: p < Alpha. TooFew: the samples are too small for any
	// difference to reach it.
	Significant bool `json:"significant"`
	TooFew      bool `json:"too_few"`
}

// Change is "+12.3%" when significant, "~" otherwise (benchstat's mark).
func (r Row) Change() string {
	if !r.Significant {
		return "~"
	}
	if r.ChangePct == nil {
		return "from 0"
	}
	return fmt.Sprintf("%+.1f%%", *r.ChangePct)
}

// PText is "p=0.008 n=5+5".
func (r Row) PText() string {
	return fmt.Sprintf("p=%.3f n=%d+%d", r.P, len(r.A), len(r.B))
}

// Comparison is run B set against run A (the baseline).
type Comparison struct {
	A     Run     `json:"a"`
	B     Run     `json:"b"`
	Alpha float64 `json:"alpha"`
	// Differences name what differs between the runs' setups: experiment,
	// plan, variables, columns, scenarios, repetitions, target.
	Differences []string `json:"differences"`
	Rows        []Row    `json:"rows"`
	// Significant is how many rows are; ByChance how many would be,
	// expected, were nothing different between the runs: the sum of each
	// row's ChanceSignificant. A reader of 120 rows told that 4 would be
	// significant by chance alone reads 3 significant rows as noise.
	Significant int     `json:"significant"`
	ByChance    float64 `json:"by_chance"`
	// Note is said once when some rows could never be significant: their
	// sample sizes, the smallest p those allow, the repetitions needed.
	Note string `json:"note,omitempty"`
	// OnlyA and OnlyB are the points ("column scenario step") one run has
	// and the other has not.
	OnlyA []string `json:"only_a,omitempty"`
	OnlyB []string `json:"only_b,omitempty"`
	// BenchA and BenchB are the points of each run that measured the bench,
	// not the server ("KEY: why"): left out of every row.
	BenchA []string `json:"bench_a,omitempty"`
	BenchB []string `json:"bench_b,omitempty"`
}

// Load reads a run directory for Compare.
func Load(dir string) (Run, error) {
	m, err := results.ReadManifest(dir)
	if err != nil {
		return Run{}, err
	}
	recs, err := results.ReadResults(dir)
	if err != nil {
		return Run{}, err
	}
	return Run{Dir: dir, ID: m.ID, Experiment: m.Experiment, PlanHash: m.PlanHash, Repetitions: m.Repetitions,
		Complete: m.Complete, m: m, recs: recs}, nil
}

// Dirs compares the run in dirB with the run in dirA.
func Dirs(dirA, dirB string) (*Comparison, error) {
	a, err := Load(dirA)
	if err != nil {
		return nil, fmt.Errorf("run A: %w", err)
	}
	b, err := Load(dirB)
	if err != nil {
		return nil, fmt.Errorf("run B: %w", err)
	}
	return Compare(a, b)
}

// pointKey is one point over its repetitions.
type pointKey struct{ column, scenario, step string }

func (k pointKey) String() string { return k.column + " " + k.scenario + " " + k.step }

// samples groups a run's measured records by point, in repetition order.
func samples(recs []results.Record, mi *results.MachineInfo) map[pointKey][]results.Record {
	out := map[pointKey][]results.Record{}
	for _, r := range recs {
		if why, _ := results.BenchLimit(r, mi); r.Error != "" || r.NotApplicable != "" || why != "" {
			continue // not a measurement of the server (Comparison.BenchA/B says which measured the bench)
		}
		k := pointKey{r.Column, r.Scenario, r.Step}
		out[k] = append(out[k], r)
	}
	for _, rs := range out {
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].Rep < rs[j].Rep })
	}
	return out
}

// order lists m's points as its plan measures them: scenarios in file
// order, their steps, the columns.
func order(m *results.Manifest) []pointKey {
	var out []pointKey
	for _, sc := range m.Scenarios {
		for _, st := range sc.Steps() {
			for _, c := range m.Columns {
				if sc.Runs(c.ID) {
					out = append(out, pointKey{c.ID, sc.Name, st})
				}
			}
		}
	}
	return out
}

// ErrNothingInCommon is Compare's error when the runs share no point.
var ErrNothingInCommon = fmt.Errorf("the runs have no point (column, scenario, step) in common")

// Compare sets b against a.
func Compare(a, b Run) (*Comparison, error) {
	c := &Comparison{A: a, B: b, Alpha: Alpha, Differences: Differences(a.m, b.m),
		BenchA: results.BenchLimited(a.recs, a.m.Machine), BenchB: results.BenchLimited(b.recs, b.m.Machine)}
	sa, sb := samples(a.recs, a.m.Machine), samples(b.recs, b.m.Machine)
	// B's plan order first, then anything only A's plan has (a point B
	// measured that its manifest no longer lists cannot happen).
	seen := map[pointKey]bool{}
	keys := append(order(b.m), order(a.m)...)
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		ra, rb := sa[k], sb[k]
		switch {
		case len(ra) == 0 && len(rb) == 0:
			continue
		case len(rb) == 0:
			c.OnlyA = append(c.OnlyA, k.String())
			continue
		case len(ra) == 0:
			c.OnlyB = append(c.OnlyB, k.String())
			continue
		}
		for _, mt := range results.MetricsOf(rb[0].Kind) {
			if !mt.Headline {
				continue
			}
			xa, xb := values(ra, mt.Of(a.m.Machine)), values(rb, mt.Of(b.m.Machine))
			if len(xa) == 0 || len(xb) == 0 {
				continue
			}
			row := Row{Scenario: k.scenario, Kind: rb[0].Kind, Step: k.step, Column: k.column, Metric: mt.Name, Label: mt.Label,
				Better: mt.Better.String(), A: xa, B: xb, MedianA: median(xa), MedianB: median(xb)}
			if row.MedianA != 0 {
				ch := 100 * (row.MedianB - row.MedianA) / math.Abs(row.MedianA)
				row.ChangePct = &ch
			}
			row.P = MannWhitney(xa, xb).P
			row.TooFew = MinP(len(xa), len(xb)) >= c.Alpha
			row.Significant = !row.TooFew && row.P < c.Alpha
			if row.Significant {
				c.Significant++
			}
			c.ByChance += ChanceSignificant(xa, xb, c.Alpha)
			c.Rows = append(c.Rows, row)
		}
	}
	if len(c.Rows) == 0 {
		return c, ErrNothingInCommon
	}
	c.Note = tooFewNote(c)
	return c, nil
}

// tooFewNote says, once, which sample sizes can never reach Alpha and
// what they would need: "n=2+2: the smallest possible p is 0.333, ...".
func tooFewNote(c *Comparison) string {
	var ns []string
	var ps []string
	seen := map[[2]int]bool{}
	for _, r := range c.Rows {
		k := [2]int{len(r.A), len(r.B)}
		if !r.TooFew || seen[k] {
			continue
		}
		seen[k] = true
		ns = append(ns, fmt.Sprintf("n=%d+%d", k[0], k[1]))
		ps = append(ps, fmt.Sprintf("%.3f", MinP(k[0], k[1])))
	}
	if len(ns) == 0 {
		return ""
	}
	is := "is"
	if len(ns) > 1 {
		is = "are"
	}
	return fmt.Sprintf("%s: the smallest possible p %s %s, not below %g, so no difference there can be significant and those lines read ~ whatever they show; "+
		"p < %g needs at least %d repetitions per run (A has %d, B has %d)",
		strings.Join(ns, ", "), is, strings.Join(ps, ", "), c.Alpha, c.Alpha, NeedReps(c.Alpha), c.A.Repetitions, c.B.Repetitions)
}

func values(recs []results.Record, f func(results.Record) (float64, bool)) []float64 {
	var out []float64
	for _, r := range recs {
		if v, ok := f(r); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, v)
		}
	}
	return out
}

func median(vs []float64) float64 {
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
