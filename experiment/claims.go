package experiment

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/wptest/wptest/results"
)

// claimHCL is a claim block: what the experiment's source published, and
// what "holds" means for it (results.Claim).
type claimHCL struct {
	ID             string         `hcl:"id,label"`
	Source         string         `hcl:"source"`
	Quote          string         `hcl:"quote"`
	Scenario       string         `hcl:"scenario,optional"`
	Scenarios      []string       `hcl:"scenarios,optional"`
	Visitors       int            `hcl:"visitors"`
	Metric         string         `hcl:"metric"`
	Published      hcl.Expression `hcl:"published,optional"`
	Order          string         `hcl:"order,optional"`
	OrderBy        float64        `hcl:"order_by,optional"`
	Ratio          string         `hcl:"ratio,optional"`
	Within         float64        `hcl:"within,optional"`
	PublishedRatio float64        `hcl:"published_ratio,optional"`
	AtLeast        string         `hcl:"at_least,optional"`
	AtMost         string         `hcl:"at_most,optional"`
	Equals         string         `hcl:"equals,optional"`
	Columns        []string       `hcl:"columns,optional"`
	StandIn        hcl.Expression `hcl:"stand_in,optional"`
	NotMeasured    string         `hcl:"not_measured,optional"`
	Contradictions []contraHCL    `hcl:"contradiction,block"`
	Examples       []contraHCL    `hcl:"example,block"`
}

// contraHCL is a contradiction block: figures written from the claim's
// sentence that say the opposite of it ("three times more, not fifteen"),
// in the metric the sentence measures. They must make the claim differ:
// TestEveryClaimCanFail proves each shipped claim can fail with them. An
// example block is the same for figures that agree with the sentence,
// where the source published none for a term: the claim must hold on them.
type contraHCL struct {
	Says     string         `hcl:"says,label"`
	Metric   hcl.Expression `hcl:"metric"`
	Measured hcl.Expression `hcl:"measured"`
}

// standInHCL is a stand_in block: the columns a claim about a column that
// is disabled or absent is checked against instead, and what they are.
type standInHCL struct {
	For     string   `hcl:"for,label"`
	Columns []string `hcl:"columns"`
	As      string   `hcl:"as,optional"`
}

// claims checks the claim and stand_in blocks against the file's columns
// and scenarios (load them first) and the metric registry.
func (l *loader) claims(cls []claimHCL, sis []standInHCL) {
	var standIns []results.StandIn
	for i, si := range sis {
		l.name("stand_in", si.For, 0)
		for _, c := range si.Columns {
			if !l.hasColumn(c) {
				l.bad(attrRange(l.f, "stand_in", si.For, "columns"), "Unknown column", fmt.Sprintf("%q is not one of this file's columns (%s).", c, l.columnList()))
			}
		}
		if slices.ContainsFunc(sis[:i], func(o standInHCL) bool { return o.For == si.For }) {
			l.bad(dupRange(l.f, "stand_in", si.For, 1), "Duplicate stand_in", fmt.Sprintf("stand_in %q is declared twice.", si.For))
		}
		standIns = append(standIns, results.StandIn{For: si.For, Columns: si.Columns, As: si.As})
	}
	seen := map[string]int{}
	for _, ch := range cls {
		if l.repeated(seen, "claim", ch.ID) {
			continue
		}
		l.name("claim", ch.ID, 0)
		if c, ok := l.claim(ch, standIns); ok {
			l.sp.Claims = append(l.sp.Claims, c)
		}
	}
}

// claim is one claim block, checked; ok is false if it had errors.
func (l *loader) claim(ch claimHCL, standIns []results.StandIn) (results.Claim, bool) {
	n := len(l.ds)
	r := func(attr string) hcl.Range { return attrRange(l.f, "claim", ch.ID, attr) }
	c := results.Claim{ID: ch.ID, Source: ch.Source, Quote: ch.Quote, Scenario: ch.Scenario, Scenarios: ch.Scenarios,
		Visitors: ch.Visitors, Metric: ch.Metric, Columns: ch.Columns}
	mt, ok := l.claimPoint(ch, r)
	if !ok {
		return c, false
	}
	isTerm := l.termCheck(ch, standIns)
	for _, col := range ch.Columns {
		if !l.hasColumn(col) && !isStandInFor(standIns, col) {
			l.bad(r("columns"), "Unknown column", fmt.Sprintf("%q is not one of this file's columns (%s).", col, l.columnList()))
		}
	}
	c.StandIns = append(l.claimStandIns(ch, standIns, r), standIns...)
	c.Published, _ = l.figures(ch, mt, isTerm, ch.Published, &c.Unit)
	c.AtLeast = l.bound(ch.AtLeast, mt, &c.Unit, r("at_least"))
	c.AtMost = l.bound(ch.AtMost, mt, &c.Unit, r("at_most"))
	if ch.Equals != "" {
		if c.AtLeast != nil || c.AtMost != nil {
			l.bad(r("equals"), "Conflicting bounds", "equals is at_least and at_most at once: give one or the other.")
		}
		c.AtLeast = l.bound(ch.Equals, mt, &c.Unit, r("equals"))
		c.AtMost = c.AtLeast
	}
	c.Order = l.order(ch, isTerm, r("order"))
	c.OrderBy = ch.OrderBy
	if ch.OrderBy != 0 && (ch.OrderBy <= 1 || ch.Order == "") {
		l.bad(r("order_by"), "Invalid factor", "order_by goes with order and is above 1 (1.25: each term at least 1.25 times the one before).")
	}
	c.Ratio = l.ratio(ch, isTerm, r)
	if c.Unit == "" {
		c.Unit = mt.Unit
	}
	c.NotMeasured = ch.NotMeasured
	c.Contradictions = l.contradictions(ch, ch.Contradictions, isTerm)
	c.Examples = l.contradictions(ch, ch.Examples, isTerm)
	if len(l.ds) == n && c.NotMeasured == "" && len(c.Order) == 0 && c.Ratio == nil && c.AtLeast == nil && c.AtMost == nil && !(mt.Unit == "yes/no" && len(c.Published) > 0) {
		l.bad(blockRange(l.f, "claim", ch.ID), "Claim without a test",
			"Say what holds means: order = \"a < b\", ratio = \"a / b\" with within = N, at_least, at_most or equals (a yes/no metric: its published values).")
	}
	return c, len(l.ds) == n
}

// claimPoint checks the claim's scenario (or scenarios), step and metric.
func (l *loader) claimPoint(ch claimHCL, r func(string) hcl.Range) (results.Metric, bool) {
	names := ch.Scenarios
	at := r("scenarios")
	switch {
	case ch.Scenario != "" && len(names) > 0:
		l.bad(r("scenarios"), "Scenario and scenarios", "A claim is about one scenario (its columns compared) or several (compared on each column), not both.")
		return results.Metric{}, false
	case ch.Scenario != "":
		names, at = []string{ch.Scenario}, r("scenario")
	case len(names) < 2:
		l.bad(blockRange(l.f, "claim", ch.ID), "Missing scenario", "scenario = \"name\" (its columns compared), or scenarios = [\"a\", \"b\"] (compared on each column).")
		return results.Metric{}, false
	}
	var mt results.Metric
	for _, name := range names {
		sc, ok := l.scenarioNamed(name)
		if !ok {
			l.bad(at, "Unknown scenario", fmt.Sprintf("%q is not one of this file's scenarios (%s).", name, l.scenarioList()))
			return mt, false
		}
		if !l.hasStep(name, ch.Visitors) {
			l.bad(r("visitors"), "Unknown step", fmt.Sprintf("scenario %q has no step at %d visitors (it has %v).", name, ch.Visitors, l.steps(sc)))
			return mt, false
		}
		m, ok := results.MetricOf(sc.Kind, ch.Metric)
		if !ok {
			l.bad(r("metric"), "Unknown metric", fmt.Sprintf("%q is not a metric of kind %s (it has: %s).", ch.Metric, sc.Kind, metricList(sc.Kind)))
			return mt, false
		}
		mt = m
	}
	return mt, true
}

func metricList(kind string) string {
	var out []string
	for _, m := range results.MetricsOf(kind) {
		out = append(out, m.Name)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// termCheck is what a term of the claim may be: a scenario it compares, or
// a column (or a name a stand_in stands in for).
func (l *loader) termCheck(ch claimHCL, standIns []results.StandIn) func(string) bool {
	if len(ch.Scenarios) > 0 {
		return func(t string) bool { return slices.Contains(ch.Scenarios, t) }
	}
	return func(t string) bool {
		name, at := results.SplitTerm(t)
		if at > 0 && (at == ch.Visitors || !l.hasStep(ch.Scenario, at)) {
			return false // the claim's own step is written without @: one point is never two terms
		}
		return l.hasColumn(name) || isStandInFor(standIns, name) || claimStandInFor(ch, name)
	}
}

// hasStep says whether the scenario named has a step at n visitors.
func (l *loader) hasStep(scenario string, n int) bool {
	sc, ok := l.scenarioNamed(scenario)
	return ok && slices.Contains(l.steps(sc), n)
}

// steps are sc's steps (a one-step kind: its first).
func (l *loader) steps(sc results.Scenario) []int {
	if k, _ := results.KindOf(sc.Kind); k.OneStep {
		return sc.Visitors[:min(1, len(sc.Visitors))]
	}
	return sc.Visitors
}

func isStandInFor(sis []results.StandIn, name string) bool {
	return slices.ContainsFunc(sis, func(s results.StandIn) bool { return s.For == name })
}

// claimStandInFor says whether the claim's own stand_in map has name.
func claimStandInFor(ch claimHCL, name string) bool {
	if ch.StandIn == nil {
		return false
	}
	pairs, _ := hcl.ExprMap(ch.StandIn)
	for _, p := range pairs {
		if k, d := p.Key.Value(nil); !d.HasErrors() && k.Type() == cty.String && k.AsString() == name {
			return true
		}
	}
	return false
}

func (l *loader) columnList() string {
	var out []string
	for _, p := range l.sp.Columns {
		out = append(out, p.ID)
	}
	return strings.Join(out, ", ")
}

func (l *loader) scenarioList() string {
	var out []string
	for _, s := range l.sp.Scenarios {
		out = append(out, s.Name)
	}
	return strings.Join(out, ", ")
}

func (l *loader) scenarioNamed(name string) (results.Scenario, bool) {
	for _, s := range l.sp.Scenarios {
		if s.Name == name {
			return s, true
		}
	}
	return results.Scenario{}, false
}

// deviationHCL is a deviation block: a way this setup differs from a
// source's that no run removes, on the scenarios it names. Verdicts on
// them carry it as what could explain them (results.SourceDeviation).
type deviationHCL struct {
	ID        string   `hcl:"id,label"`
	Source    string   `hcl:"source"`
	Says      string   `hcl:"says"`
	Scenarios []string `hcl:"scenarios"`
}

func (l *loader) deviations(ds []deviationHCL) {
	seen := map[string]int{}
	for _, d := range ds {
		if l.repeated(seen, "deviation", d.ID) {
			continue
		}
		l.name("deviation", d.ID, 0)
		for _, s := range d.Scenarios {
			if _, ok := l.scenarioNamed(s); !ok {
				l.bad(attrRange(l.f, "deviation", d.ID, "scenarios"), "Unknown scenario", fmt.Sprintf("%q is not one of this file's scenarios (%s).", s, l.scenarioList()))
			}
		}
		l.sp.SourceDeviations = append(l.sp.SourceDeviations, results.SourceDeviation{ID: d.ID, Source: d.Source, Says: d.Says, Scenarios: d.Scenarios})
	}
}

// sourceHCL is a source block: what the source's own server was (its CPUs),
// for the verdicts on the claims that name it.
type sourceHCL struct {
	Name       string `hcl:"name,label"`
	ServerCPUs int    `hcl:"server_cpus,optional"`
}

func (l *loader) sources(ss []sourceHCL) {
	seen := map[string]int{}
	for _, s := range ss {
		if l.repeated(seen, "source", s.Name) {
			continue
		}
		if s.ServerCPUs < 0 {
			l.bad(attrRange(l.f, "source", s.Name, "server_cpus"), "Invalid CPUs", "server_cpus is how many CPUs the source's server had: 1 or more.")
			continue
		}
		l.sp.Sources = append(l.sp.Sources, results.Source{Name: s.Name, ServerCPUs: s.ServerCPUs})
	}
}
