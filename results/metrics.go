package results

import (
	"github.com/wptest/wptest/bench/result"
)

// Metric is one figure a record of a kind holds, by name: what a claim
// names (claim "..." { metric = "rps" }), what the report's repetitions
// section lists (Noise), and the function that reads it. A kind's metric
// is its own entry even where another kind's reads it the same way, so
// each kind lists exactly what it measures.
type Metric struct {
	Kind string
	Name string
	// Unit is what Value gives (one of Units).
	Unit string
	// Noise, if set, is the label the repetitions section shows it under.
	Noise string
	Value func(Record) (float64, bool)
	// Scoped, if set, reads it as the run's machine decides (server_cpu_ms:
	// CPUPerRequest); Of picks it over Value.
	Scoped func(Record, *MachineInfo) (float64, bool)
	// Whole: the figure is the server machine's as a whole (its CPU, kernel
	// included); a claim on it is not measured where the server shared its
	// machine, since the process groups' figure is another thing.
	Whole bool
	// Failures: the figure counts failures (error_pct, gave_up), so a point
	// whose requests failed is still judged on it.
	Failures bool
	// State: the figure is the server's state under the load (memory,
	// processes at once), not of its answers: failed requests do not keep
	// it from being judged either (a load generator at its limit does).
	State bool
	// Answered: the figure is whether the server answered in the point's
	// protocol at all, which one answer proves whatever set the pace.
	Answered bool
}

// NotMeasuredOn says why a claim on m cannot be judged in a run whose
// server machine is mi ("": it can).
func (m Metric) NotMeasuredOn(mi *MachineInfo) string {
	if !m.Whole || CPUScopeOf(mi).Machine {
		return ""
	}
	if mi != nil && mi.SharedWith != "" {
		return "the server shared its machine with " + mi.SharedWith + ": the machine's CPU is not the server's alone, and its process groups' figure leaves out the kernel"
	}
	return "the run did not record whether the server had a machine of its own: the machine's CPU may not be the server's alone"
}

// Of is m's reader for the records of a run whose server machine is mi
// (Manifest.Machine): Scoped bound to mi, else Value.
func (m Metric) Of(mi *MachineInfo) func(Record) (float64, bool) {
	if m.Scoped == nil {
		return m.Value
	}
	return func(rec Record) (float64, bool) { return m.Scoped(rec, mi) }
}

// Metrics is the registry, kind by kind, each kind's repetitions figures
// in the order the report lists them.
var Metrics = join(
	kindMetrics("page", []Metric{
		{Name: "server_cpu_ms", Unit: "ms", Noise: "server CPU/page (ms)", Value: ServerCPU, Scoped: ServerCPUIn, Whole: true},
		{Name: "groups_cpu_ms", Unit: "ms", Value: ServerCPU},
		{Name: "web_php_cpu_ms", Unit: "ms", Noise: "web+PHP CPU/page (ms)", Value: WebPHPCPU},
		{Name: "rps", Unit: "req/s", Noise: "pages/s", Value: RPS},
		{Name: "mean_ms", Unit: "ms", Value: MeanMs},
		{Name: "p99_ms", Unit: "ms", Value: P99Ms},
		{Name: "db_cpu_ms", Unit: "ms", Value: DBCPU},
		{Name: "machine_cpu_ms", Unit: "ms", Value: MachineCPU, Whole: true},
		{Name: "pss_mb", Unit: "MB", Value: PSSMB, State: true},
		{Name: "php_procs_peak", Unit: "processes", Value: PHPProcsPeak, State: true},
		{Name: "wire_bytes", Unit: "B", Value: WireBytes},
		{Name: "error_pct", Unit: "%", Value: ErrPct, Failures: true},
	}),
	kindMetrics("crowd", []Metric{
		{Name: "wait_p50_ms", Unit: "ms", Noise: "wait median (ms)", Value: CrowdWaitP50},
		{Name: "wait_p99_ms", Unit: "ms", Value: CrowdWaitP99},
		{Name: "gave_up", Unit: "probes", Value: CrowdGaveUp, Failures: true},
		{Name: "gave_up_pct", Unit: "%", Value: CrowdGaveUpPct, Failures: true},
		{Name: "server_cpu_pct", Unit: "%", Value: CrowdMachineCPUPct, Whole: true},
		{Name: "groups_cpu_pct", Unit: "%", Value: CrowdCPUPct},
		{Name: "pss_mb", Unit: "MB", Value: PSSMB, State: true},
	}),
	kindMetrics("static", runMetrics("requests/s")),
	kindMetrics("compression", append(runMetrics("requests/s"), Metric{Name: "body_bytes", Unit: "B", Value: ProbeBody})),
	kindMetrics("ab", append(runMetrics("requests/s"),
		Metric{Name: "html_bytes", Unit: "B", Value: runField(func(r *result.Run) float64 { return float64(r.Bytes.Body) })},
		Metric{Name: "html_bytes_per_request", Unit: "B", Value: HTMLPerRequest},
		Metric{Name: "html_bytes_beyond_documents", Unit: "B", Value: HTMLBeyondDocuments},
		Metric{Name: "total_bytes", Unit: "B", Value: runField(func(r *result.Run) float64 { return float64(r.Bytes.WireIn) })},
		Metric{Name: "failed", Unit: "requests", Value: runField(func(r *result.Run) float64 { return float64(r.Outcomes.Failed()) }), Failures: true},
	)),
	kindMetrics("browse", []Metric{
		{Name: "view_p50_ms", Unit: "ms", Noise: "page view p50 (ms)", Value: BrowseViewP50},
		{Name: "wire_bytes_per_view", Unit: "B", Noise: "bytes per view", Value: BrowseWirePerView},
		{Name: "view_p99_ms", Unit: "ms", Value: BrowseViewP99},
		{Name: "views_per_sec", Unit: "req/s", Value: BrowseViewsPerSec},
		{Name: "served", Unit: "yes/no", Value: Served, Answered: true},
	}),
	kindMetrics("kit", kitMetrics),
)

// runMetrics are the figures of a kind measured as one run of requests
// (static, compression, ab); rps is listed under label in the repetitions.
func runMetrics(label string) []Metric {
	return []Metric{
		{Name: "rps", Unit: "req/s", Noise: label, Value: RPS},
		{Name: "server_cpu_ms", Unit: "ms", Noise: "server CPU/request (ms)", Value: ServerCPU, Scoped: ServerCPUIn, Whole: true},
		{Name: "groups_cpu_ms", Unit: "ms", Value: ServerCPU},
		{Name: "web_php_cpu_ms", Unit: "ms", Value: WebPHPCPU},
		{Name: "machine_cpu_ms", Unit: "ms", Value: MachineCPU, Whole: true},
		{Name: "mean_ms", Unit: "ms", Value: MeanMs},
		{Name: "p99_ms", Unit: "ms", Value: P99Ms},
		{Name: "max_ms", Unit: "ms", Value: MaxMs},
		{Name: "wire_bytes", Unit: "B", Value: WireBytes},
		{Name: "error_pct", Unit: "%", Value: ErrPct, Failures: true},
		{Name: "served", Unit: "yes/no", Value: Served, Answered: true},
	}
}

func kindMetrics(kind string, ms []Metric) []Metric {
	for i := range ms {
		ms[i].Kind = kind
	}
	return ms
}

func join(lists ...[]Metric) []Metric {
	var out []Metric
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// MetricOf is the metric called name of kind.
func MetricOf(kind, name string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Kind == kind && m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// MetricsOf are kind's metrics in the registry's order.
func MetricsOf(kind string) []Metric {
	var out []Metric
	for _, m := range Metrics {
		if m.Kind == kind {
			out = append(out, m)
		}
	}
	return out
}

// runField is f of the record's run, where it has one.
func runField(f func(*result.Run) float64) func(Record) (float64, bool) {
	return func(rec Record) (float64, bool) {
		if rec.Run == nil {
			return 0, false
		}
		return f(rec.Run), true
	}
}
