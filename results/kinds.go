package results

// Kind is what the schema knows of a scenario kind: its name, and its
// data points. Each kind's other halves are registered under the same name
// in their layers: its HCL block, job and estimate in experiment
// (scenarioKinds), its job's run, split and merge in bench/benchgen
// (jobKinds), its report section and chart in report (reportKinds); its
// result is a field of result.Set.
type Kind struct {
	Name string
	// OneStep: one data point, at the first visitor count (the kit: its
	// throughput concurrency; its levels are runs inside the point).
	// Otherwise one data point per visitor count.
	OneStep bool
	// PHP: its requests run the site's PHP, so the site's deviations from
	// the source (plugins, WordPress version) may explain its figures.
	PHP bool
}

// Registered are the scenario kinds, in the order they are listed to users.
var Registered = []Kind{
	{Name: "page", PHP: true},
	{Name: "static"},
	{Name: "compression"},
	{Name: "crowd"},
	{Name: "kit", OneStep: true},
	{Name: "ab"},
	{Name: "browse", PHP: true},
}

// Kinds are the registered kinds' names: the kinds a record may be of.
var Kinds = kindNames()

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
