package results

import (
	"fmt"
	"slices"
	"strings"
)

// Kind is what the schema knows of a scenario kind: its name, and its
// data points. Each kind's other halves are registered under the same name
// in their layers: its HCL block, job and estimate in experiment
// (experiment.Register), its report section and chart in report
// (report.Register); its job's run, split and merge are benchgen's job
// kinds (a kind measured as runs uses benchgen's run job). Its result is a
// field of result.Set: a kind of its own package's is a run (Record.Run).
type Kind struct {
	Name string
	// OneStep: one data point, at the first visitor count (the kit: its
	// throughput concurrency; its levels are runs inside the point).
	// Otherwise one data point per visitor count.
	OneStep bool
	// PHP: its requests run the site's PHP, so the site's deviations from
	// the source (plugins, WordPress version) may explain its figures.
	PHP bool
	// Order is where users see it among the kinds (lowest first): a kind's
	// packages initialize in their import paths' order, not the readers'.
	Order int
	// Settings makes a new value of the kind's own settings type (what
	// Scenario.Own holds, a pointer), so a manifest's are checked when it
	// is read (CheckOwn); nil: the kind has none.
	Settings func() any
}

// Registered are the scenario kinds, in the order they are listed to users
// (Order): each kind's package (kinds/...) adds itself from its init.
var Registered []Kind

// Kinds are the registered kinds' names: the kinds a record may be of.
var Kinds = kindNames()

// Register adds a kind of its own package (kinds/...) with its figures,
// among the kinds above by its Order: the package calls it from its init, as it
// registers its other halves in experiment and report. A name taken, a
// figure's key or label given twice, a key with a space, a figure without
// a label, reader or unit a claim can be written in, or a kind without a
// headline and a noise figure is a programming error and panics: the
// rules TestMetricsVocabulary holds every kind to.
func Register(k Kind, metrics []Metric) {
	if _, ok := KindOf(k.Name); ok || k.Name == "" {
		panic(fmt.Sprintf("results: kind %q registered twice", k.Name))
	}
	keys, labels := map[string]bool{}, map[string]bool{}
	var head, noise bool
	for _, m := range metrics {
		if m.Name == "" || strings.ContainsAny(m.Name, " /()") || m.Label == "" || keys[m.Name] || labels[m.Label] || m.Value == nil || units[m.Unit] == (unit{}) {
			panic(fmt.Sprintf("results: kind %q: figure %q has no key, label, reader or unit a claim can be written in, or is given twice", k.Name, m.Name))
		}
		keys[m.Name], labels[m.Label] = true, true
		head, noise = head || m.Headline, noise || m.Noise
	}
	if !head || !noise {
		panic(fmt.Sprintf("results: kind %q: no headline (compare's) or noise (the repetitions section's) figure", k.Name))
	}
	at := slices.IndexFunc(Registered, func(r Kind) bool { return r.Order > k.Order })
	if at < 0 {
		at = len(Registered)
	}
	Registered = slices.Insert(Registered, at, k)
	Kinds = kindNames()
	Metrics = append(Metrics, kindMetrics(k.Name, slices.Clone(metrics))...)
	// Kind by kind in Registered's order, each kind's figures in its own.
	pos := map[string]int{}
	for i, r := range Registered {
		pos[r.Name] = i
	}
	slices.SortStableFunc(Metrics, func(a, b Metric) int { return pos[a.Kind] - pos[b.Kind] })
}

func kindNames() []string {
	out := make([]string, len(Registered))
	for i, k := range Registered {
		out[i] = k.Name
	}
	return out
}

// KindOf is the registered kind called name.
func KindOf(name string) (Kind, bool) {
	for _, k := range Registered {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}
