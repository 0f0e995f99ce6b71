package results

import (
	"fmt"
	"slices"
	"strings"
)

// SourceDeviation is a deviation block of an experiment file: a way this
// setup differs from its source's that no run can remove (the post's site
// ran Elementor; its stylesheet was 140 KB), on the scenarios it names.
type SourceDeviation struct {
	ID        string   `json:"id"`
	Source    string   `json:"source"`
	Says      string   `json:"says"`
	Scenarios []string `json:"scenarios"`
}

// Source is a source block of an experiment file: what the source's own
// server was, as far as a verdict needs it.
type Source struct {
	Name       string `json:"name"`
	ServerCPUs int    `json:"server_cpus,omitempty"`
}

// causes are what this run knows could explain a claim's verdict other
// than the servers themselves: the file's deviations from the source on
// the claim's scenarios, a stand-in for a column, the fixture's and the
// measured columns' deviations, and a server that shared its CPUs (for a
// figure of time, rate or CPU). None: a "differs" says something about
// the servers.
// Each comes with its tag, the cause in a few words for a verdict's line
// ("the source's site", "a stand-in").
func (ev *evaluator) causes(c Claim, res ClaimResult) (out, tags []string) {
	add := func(tag, text string) {
		out, tags = appendOnce(out, text), appendOnce(tags, tag)
	}
	for _, d := range ev.m.SourceDeviations {
		if slices.ContainsFunc(c.scenarioNames(), func(s string) bool { return slices.Contains(d.Scenarios, s) }) {
			add("the source's "+d.ID, d.Says)
		}
	}
	if res.Substitution != "" {
		add("a stand-in", "a stand-in: "+res.Substitution)
	}
	if f := ev.m.Fixture; f != nil && ev.runsPHP(c) {
		for _, d := range f.Deviations {
			add("the site", "the site: "+d)
		}
	}
	for _, ms := range res.Measured {
		if hm := ev.m.Hosts[ms.Column]; hm != nil {
			for _, d := range hm.Deviations {
				add("the setup of "+ev.label(ms.Column), ev.label(ms.Column)+": "+d)
			}
		}
	}
	if why := ev.machineSize(c); why != "" {
		add("CPU count", why)
	}
	if mi := ev.m.Machine; mi != nil && mi.CPUsSharedWith != "" && timeLike(ev.metricUnit(c)) {
		add("shared CPUs", "the server shared its CPUs with "+mi.CPUsSharedWith)
	} else if !CPUScopeOf(mi).Machine && timeLike(ev.metricUnit(c)) {
		if mi != nil && mi.SharedWith != "" {
			add("shared CPUs", "the server shared its CPUs with "+mi.SharedWith)
		} else {
			add("CPUs unrecorded", "the run did not record whether the server had its CPUs to itself")
		}
	}
	return out, tags
}

// machineSize: a share of all the server's CPUs (the crowd's "CPU sat at
// 3%") scales with how many there are; where the source's server had
// another number, that may explain a difference.
func (ev *evaluator) machineSize(c Claim) string {
	mt, ok := ev.metric(c.scenarioNames()[0], c.Metric)
	mi := ev.m.Machine
	if !ok || !mt.Whole || mt.Unit != "%" || mi == nil || mi.CPUs == 0 {
		return ""
	}
	for _, s := range ev.m.Sources {
		if s.Name == c.Source && s.ServerCPUs > 0 && s.ServerCPUs != mi.CPUs {
			return fmt.Sprintf("the server had %s where the source's had %d: a share of all its CPUs scales with their number", Plural(mi.CPUs, "CPU"), s.ServerCPUs)
		}
	}
	return ""
}

// runsPHP says whether one of the claim's scenarios is of a kind whose
// requests run the site's PHP (a static file's figures owe nothing to the
// site's plugins).
func (ev *evaluator) runsPHP(c Claim) bool {
	for _, s := range ev.m.Scenarios {
		if slices.Contains(c.scenarioNames(), s.Name) {
			if k, ok := KindOf(s.Kind); ok && k.PHP {
				return true
			}
		}
	}
	return false
}

// timeLike says whether a figure in unit u depends on the CPUs the server
// had to itself: times, rates and shares of CPU, not bytes or yes/no.
func timeLike(u string) bool {
	d := units[u].dim
	return d == "time" || d == "rate" || d == "share" || d == "bandwidth" || d == "times" || d == "probes"
}

// Unexplained says whether a result differs with nothing the run knows to
// explain it: a difference that says something about the servers.
func (r ClaimResult) Unexplained() bool { return r.Verdict == Differs && len(r.Causes) == 0 }

// CausesText is the causes joined for a table cell.
func (r ClaimResult) CausesText() string { return strings.Join(r.Causes, "; ") }
