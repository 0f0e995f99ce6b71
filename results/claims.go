package results

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Claim is one claim block of an experiment file: a figure its source
// published and what "holds" means for it, recorded in the run manifest so
// a report of the run (made before or after) checks it. Its terms are the
// columns it compares, or, when Scenarios is set, the scenarios it compares
// on each of Columns ("static faster than PHP on each server").
type Claim struct {
	ID     string `json:"id"`
	Source string `json:"source"` // "the cPanel vs corehttpd post"
	Quote  string `json:"quote"`  // the sentence, as the source has it
	// Scenario and Visitors are the step; Scenarios, if set, are the terms.
	Scenario  string   `json:"scenario,omitempty"`
	Scenarios []string `json:"scenarios,omitempty"`
	Visitors  int      `json:"visitors"`
	Metric    string   `json:"metric"`
	// Unit is the unit the claim is written in (its figures are shown in
	// it); every Value below is in the metric's own unit.
	Unit string `json:"unit"`
	// Columns: the columns a bound holds on, or each column a comparison of
	// scenarios is made on (empty: the terms, or every column).
	Columns   []string `json:"columns,omitempty"`
	Published []Figure `json:"published,omitempty"`
	Order     []string `json:"order,omitempty"` // terms, ascending (written "a < b < c")
	// OrderBy, if above 1, is how many times each term of Order must be
	// the one before it ("fell off" is more than a run's noise).
	OrderBy  float64   `json:"order_by,omitempty"`
	Ratio    *Ratio    `json:"ratio,omitempty"`
	AtLeast  *Figure   `json:"at_least,omitempty"`
	AtMost   *Figure   `json:"at_most,omitempty"`
	StandIns []StandIn `json:"stand_ins,omitempty"`
	// NotMeasured, if set, says why no run of this file can measure the
	// claim (Apache 1.3 is packaged nowhere): it is recorded and shown,
	// and reads "not measured" with this reason, never holds by proxy.
	NotMeasured string `json:"not_measured,omitempty"`
	// Contradictions are figures written from the claim's sentence that
	// contradict it; each must make it differ (TestEveryClaimCanFail).
	// They prove the claim, so they stay with the file, not the run.
	Contradictions []Contradiction `json:"-"`
	// Examples are figures written from the sentence that agree with it,
	// for terms the source gave no figure for ("tuned Apache fell off at
	// 200 visitors": no figure at 100 or 200); with the published ones the
	// claim must hold on them (TestEveryClaimCanFail).
	Examples []Contradiction `json:"-"`
}

// SplitTerm reads a term "col@N" as column col at the step of N visitors
// in the claim's scenario, for a sentence about one column at two steps
// ("22,907 requests per second at 200 visitors and dropped to 2,764 at
// 1,000": tuned-400@200 / tuned-400). A term without "@N" is at the claim's
// own step (visitors 0 here).
func SplitTerm(t string) (name string, visitors int) {
	n, v, ok := strings.Cut(t, "@")
	if !ok {
		return t, 0
	}
	x, err := strconv.Atoi(v)
	if err != nil || x <= 0 || strconv.Itoa(x) != v {
		return t, 0
	}
	return n, x
}

// Contradiction is one set of figures that says the opposite of a claim's
// sentence ("three times more, not fifteen"), in the metric the sentence
// measures. Terms it leaves out keep the published figures.
type Contradiction struct {
	Says    string
	Metric  string
	Figures []Figure
}

// Figure is a value as written ("11.1 GB") and in the metric's unit.
type Figure struct {
	Term  string  `json:"term,omitempty"`
	Label string  `json:"label,omitempty"` // the term's title, in a claim's result
	Text  string  `json:"text"`
	Value float64 `json:"value"`
}

// Ratio is Num's value over Den's: within a factor Within (both ways) of
// Published, the source's own ratio ("fifteen times") or its figures'.
type Ratio struct {
	Num       string  `json:"num"`
	Den       string  `json:"den"`
	Published float64 `json:"published,omitempty"`
	Within    float64 `json:"within"`
}

// StandIn is a stated substitution: where the column For is disabled or
// absent, a claim about it is checked against each of Columns, "As" says
// what they are ("the event-driven servers in its place").
type StandIn struct {
	For     string   `json:"for"`
	Columns []string `json:"columns"`
	As      string   `json:"as"`
}

// unit is a unit's dimension and its size in the dimension's base.
type unit struct {
	dim  string
	size float64
}

// Units are the units a claim may write a figure in.
var units = map[string]unit{
	"us": {"time", 0.001}, "ms": {"time", 1}, "s": {"time", 1000},
	"req/s": {"rate", 1}, "pages/s": {"rate", 1},
	"B": {"bytes", 1}, "KB": {"bytes", 1 << 10}, "MB": {"bytes", 1 << 20}, "GB": {"bytes", 1 << 30},
	"MB/s":   {"bandwidth", 1},
	"%":      {"share", 1},
	"x":      {"times", 1},
	"probes": {"probes", 1}, "requests": {"requests", 1}, "processes": {"processes", 1}, "assets": {"assets", 1},
	"yes/no": {"yes/no", 1},
}

// UnitNames are the units, sorted.
func UnitNames() []string {
	var out []string
	for u := range units {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}

// Convert is v in unit from as a value in unit to; false if they measure
// different things (or either is not a unit).
func Convert(v float64, from, to string) (float64, bool) {
	f, ok1 := units[from]
	t, ok2 := units[to]
	if !ok1 || !ok2 || f.dim != t.dim {
		return 0, false
	}
	return v * f.size / t.size, true
}

// ParseFigure's errors: a unit that is none, or one of another dimension.
var (
	ErrUnit      = errors.New("unknown unit")
	ErrWrongUnit = errors.New("measures something else")
)

// ParseFigure reads "535 ms", "1,307 req/s", "yes" or "no" as a value in
// metricUnit; the unit written is returned for display.
func ParseFigure(s, metricUnit string) (f Figure, written string, err error) {
	s = strings.TrimSpace(s)
	f.Text = s
	if metricUnit == "yes/no" {
		switch s {
		case "yes":
			f.Value = 1
		case "no":
		default:
			return f, "", fmt.Errorf("%q: want yes or no", s)
		}
		return f, "yes/no", nil
	}
	num, u, ok := strings.Cut(s, " ")
	if !ok {
		return f, "", fmt.Errorf("%q: want a number and a unit, such as \"535 ms\"", s)
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(num, ",", ""), 64)
	if err != nil {
		return f, "", fmt.Errorf("%q: %q is not a number", s, num)
	}
	u = strings.TrimSpace(u)
	if _, known := units[u]; !known {
		return f, "", fmt.Errorf("%q: %w %q (units: %s)", s, ErrUnit, u, strings.Join(UnitNames(), ", "))
	}
	if f.Value, ok = Convert(v, u, metricUnit); !ok {
		return f, "", fmt.Errorf("%q: %s %w; this metric is in %s", s, u, ErrWrongUnit, metricUnit)
	}
	return f, u, nil
}
