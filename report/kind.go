package report

import (
	"github.com/wptest/wptest/results"
)

// reportKind is the report half of a scenario kind as the report calls it
// (results.Registered names the kinds): its section for each of its
// scenarios, its charts, and where it stands in the report (what the
// repetitions section shows of it is results' metric registry's Noise).
// Each kind's package (kinds/...) registers its own (Register).
type reportKind struct {
	// section is a scenario's section of the report.
	Section func(r *Report, sc results.Scenario) Section
	// charts draws the charts the section names (nil: none).
	charts func(r *Report, sc results.Scenario, add AddChart) error
	// inShort, if set, is the post's first paragraph from the kind's
	// scenarios (the first kind with one and a paragraph has it).
	inShort func(r *Report, scs []results.Scenario) (Section, bool)
	// perRequest: its points are rows of the cost and ratio sections.
	perRequest bool
	// afterCost: its sections come after the cost section.
	afterCost bool
}

// AddChart adds a drawn chart (p nil: nothing to draw).
type AddChart func(id, caption string, p *ChartPlot, err error) error

// reportKinds are the kinds' report halves, in the report's order (their
// Kind.Order).
var reportKinds []registered

// registered is a kind's report half under its name, in its order.
type registered struct {
	name  string
	kind  reportKind
	order int
}

// reportKindOf is the report half of the kind called name (none: zero).
func reportKindOf(name string) reportKind {
	for _, k := range reportKinds {
		if k.name == name {
			return k.kind
		}
	}
	return reportKind{}
}

// kindSections are the kinds' sections, kind by kind in reportKinds'
// order, each kind's scenarios in file order: those before the cost
// section, or (afterCost) those after it.
func (r *Report) kindSections(afterCost bool) []Section {
	var out []Section
	for _, k := range reportKinds {
		if k.kind.afterCost != afterCost || k.kind.Section == nil {
			continue
		}
		for _, sc := range r.scenarios(k.name) {
			out = append(out, k.kind.Section(r, sc))
		}
	}
	return out
}

// inShort is the post's first paragraph, with the headline chart: the
// first chart of the section of the scenario it speaks of first.
func (r *Report) inShort() (Section, bool) {
	for _, k := range reportKinds {
		if k.kind.inShort == nil {
			continue
		}
		if scs := r.scenarios(k.name); len(scs) > 0 {
			s, ok := k.kind.inShort(r, scs)
			if k.kind.Section != nil {
				if cs := k.kind.Section(r, scs[0]).Charts; ok && len(cs) > 0 && len(s.Charts) == 0 {
					s.Charts = cs[:1]
				}
			}
			return s, ok
		}
	}
	return Section{}, false
}

// perRequestScenarios are the scenarios of the kinds whose points the cost
// and ratio sections show, in file order.
func (r *Report) perRequestScenarios() []results.Scenario {
	var kinds []string
	for _, k := range reportKinds {
		if k.kind.perRequest {
			kinds = append(kinds, k.name)
		}
	}
	return r.scenarios(kinds...)
}
