package results

import (
	"github.com/wptest/wptest/bench/result"
)

// Metric is one figure a record of a kind holds, declared once: its key
// (what a claim names, claim "..." { metric = "rps" }, and what compare
// -o json carries), the label every reader sees (the report's rows, its
// repetitions section, compare's lines, the kit's table), which way is
// better, and the function that reads it. A kind's metric is its own
// entry even where another kind's reads it the same way, so each kind
// lists exactly what it measures, in the words that fit it ("pages per
// second" for a page, ab's own "Requests per second").
type Metric struct {
	Kind string
	Name string
	// Label is what a reader sees, unit included: "page time, p99 (ms)".
	Label string
	// Unit is what Value gives (one of Units): a claim's figures are in it.
	Unit   string
	Better Better
	// Headline: compare sets it side by side for each point, in the
	// kind's order.
	Headline bool
	// Noise: the repetitions section lists its spread.
	Noise bool
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
	// Bench: the figure is the bench's own, not the server's (the load
	// generator's link as a share of its stated bandwidth): a point that
	// measured the bench is judged and shown on it, since it says how.
	Bench bool
}

// Better is which way a figure improves.
type Better int

const (
	// Neither: a count or a size that is neither better nor worse higher.
	Neither Better = iota
	Higher
	Lower
)

// String is "higher is better", "lower is better" or "".
func (b Better) String() string {
	switch b {
	case Higher:
		return "higher is better"
	case Lower:
		return "lower is better"
	}
	return ""
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

// Metrics is the registry, kind by kind in Registered's order, each
// kind's figures in its own: the report's rows and repetitions section,
// compare's lines. Every kind's package adds its own (Register).
var Metrics []Metric

// RunMetrics are the figures of a kind measured as one run of requests
// (static, compression, ab, a kind of its own package whose result is a
// run): rps is labelled rate, CPU per what, then more.
func RunMetrics(rate, what string, more []Metric) []Metric {
	return append([]Metric{
		{Name: "rps", Label: rate, Unit: "req/s", Better: Higher, Headline: true, Noise: true, Value: RPS},
		{Name: "mean_ms", Label: "latency, mean (ms)", Unit: "ms", Better: Lower, Value: MeanMs},
		{Name: "p50_ms", Label: "latency p50 (ms)", Unit: "ms", Better: Lower, Headline: true, Value: P50Ms},
		{Name: "p99_ms", Label: "latency p99 (ms)", Unit: "ms", Better: Lower, Headline: true, Value: P99Ms},
		{Name: "max_ms", Label: "latency, slowest (ms)", Unit: "ms", Better: Lower, Value: MaxMs},
		{Name: "error_pct", Label: "failed (%)", Unit: "%", Better: Lower, Headline: true, Value: ErrPct, Failures: true},
		{Name: "server_cpu_ms", Label: "server CPU per " + what + " (ms)", Unit: "ms", Better: Lower, Headline: true, Noise: true, Value: ServerCPU, Scoped: ServerCPUIn, Whole: true},
		{Name: "web_php_cpu_ms", Label: "web server + PHP CPU per " + what + " (ms)", Unit: "ms", Better: Lower, Headline: true, Value: WebPHPCPU},
		{Name: "groups_cpu_ms", Label: GroupsCPULabel + " CPU per " + what + " (ms)", Unit: "ms", Better: Lower, Value: ServerCPU},
		{Name: "machine_cpu_ms", Label: "machine CPU per " + what + " (ms)", Unit: "ms", Better: Lower, Value: MachineCPU, Whole: true},
		{Name: "pss_mb", Label: "memory: web server + PHP, peak PSS (MB)", Unit: "MB", Better: Lower, Headline: true, Value: PSSMB, State: true},
		{Name: "wire_bytes", Label: "bytes on the wire per response", Unit: "B", Better: Lower, Value: WireBytes},
		{Name: "served", Label: "answered in the protocol", Unit: "yes/no", Value: Served, Answered: true},
	}, more...)
}

// Relabel gives the metrics named in labels those labels (a kind's own
// words for a run's figures: ab's "Requests per second").
func Relabel(ms []Metric, labels map[string]string) []Metric {
	for i := range ms {
		if l, ok := labels[ms[i].Name]; ok {
			ms[i].Label = l
		}
	}
	return ms
}

func kindMetrics(kind string, ms []Metric) []Metric {
	for i := range ms {
		ms[i].Kind = kind
	}
	return ms
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

// RunField is f of the record's run, where it has one (and, with ok, where
// ok says the run has the figure).
func RunField(f func(*result.Run) float64, ok ...func(*result.Run) bool) func(Record) (float64, bool) {
	return func(rec Record) (float64, bool) {
		if rec.Run == nil || (len(ok) > 0 && !ok[0](rec.Run)) {
			return 0, false
		}
		return f(rec.Run), true
	}
}
