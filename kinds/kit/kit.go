// Package kit is the Apache kit's ten metrics as a scenario kind (the
// kit's test-apache.sh, its settings.conf defaults as claims in
// experiments/apache-kit.hcl): one point at its throughput concurrency,
// whose runs are the kit's (throughput, scaling levels, keep-alive on and
// off, transfer of a large file, errors at error_clients without
// keep-alive), its startup timed by restarting the server, and its CPU,
// memory and workers from the server's samples.
//
//	scenario "kit" {
//	  kind          = "kit"
//	  path          = "/wp-includes/blocks/comments-pagination/style.min.css"
//	  transfer_path = "/wptest-1m.bin"
//	  visitors      = [50]
//	  levels        = [1, 10, 50, 100, 200, 400]
//	  error_clients = 400
//	}
package kit

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/wptest/wptest/bench/benchcmd"
	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/report"
	"github.com/wptest/wptest/results"
)

// Name is the kind's name in an experiment file (kind = "kit").
const Name = "kit"

func init() {
	results.Register(results.Kind{Name: Name, OneStep: true, Order: 50, Settings: func() any { return new(settings) }}, figures)
	experiment.Register(Name, kind{})
	report.Register(Name, report.Kind{Section: section, Charts: charts, AfterCost: true, Order: 70})
	benchcmd.Register(Name, benchcmd.Kind{Order: 50, Visitors: "50", Levels: true, Load: benchLoad,
		Text: func(w io.Writer, rep *result.Report) { benchgen.WriteKit(w, *rep.Kit) },
		Help: "the Apache kit's metrics: throughput, latency, scaling, keep-alive\neffect, transfer (--transfer-url), errors at 400 without keep-alive,\nstartup (--restart), CPU/memory/workers (--sample-local)"})
}

func benchLoad(ctx context.Context, f *benchcmd.Flags, rep *result.Report, base benchgen.Config) error {
	kc := benchgen.KitConfig{Base: base, TransferURL: f.TransferURL, Concurrency: f.Visitors[0], Levels: f.Levels}
	if f.Kit != nil {
		f.Kit(ctx, &kc)
	}
	k, err := benchgen.Kit(ctx, kc)
	rep.Kit = &k
	return err
}

// figures are the Apache kit's ten metrics (its table names them;
// apache-kit.hcl's claims state their targets).
var figures = []results.Metric{
	{Name: "startup_ms", Label: "Startup time (ms)", Better: results.Lower, Unit: "ms", Value: kitField(func(k *result.Kit) (float64, bool) {
		if k.Startup == nil {
			return 0, false
		}
		return k.Startup.MeanMs, true
	})},
	{Name: "rps", Label: "Throughput (req/s)", Better: results.Higher, Headline: true, Unit: "req/s", Noise: true, Value: kitField(func(k *result.Kit) (float64, bool) { return k.Throughput.RPS, true })},
	{Name: "server_cpu_ms", Label: "server CPU per request (ms)", Better: results.Lower, Headline: true, Unit: "ms", Value: results.ServerCPU, Scoped: results.ServerCPUIn, Whole: true},
	{Name: "p95_ms", Label: "Latency p95 (ms)", Better: results.Lower, Unit: "ms", Value: kitField(func(k *result.Kit) (float64, bool) {
		return k.Throughput.Latency.P95, k.Throughput.Latency.Count > 0
	})},
	{Name: "p99_ms", Label: "Latency p99 (ms)", Better: results.Lower, Headline: true, Unit: "ms", Value: kitField(func(k *result.Kit) (float64, bool) {
		return k.Throughput.Latency.P99, k.Throughput.Latency.Count > 0
	})},
	{Name: "scaling_pct", Label: "Concurrency scaling (% of peak)", Better: results.Higher, Unit: "%", Value: kitField(func(k *result.Kit) (float64, bool) { return k.ScalingPct, len(k.Scaling) > 0 })},
	{Name: "keep_alive_x", Label: "Keep-alive effect (x)", Headline: true, Unit: "x", Value: kitField(func(k *result.Kit) (float64, bool) { return k.KeepAliveX, k.KeepAliveX > 0 })},
	{Name: "transfer_mb_s", Label: "Transfer rate (MB/s)", Better: results.Higher, Unit: "MB/s", Value: kitField(func(k *result.Kit) (float64, bool) { return k.TransferMBs, k.Transfer != nil })},
	{Name: "error_pct", Label: "Error rate (%)", Better: results.Lower, Headline: true, Failures: true, Unit: "%", Value: kitField(func(k *result.Kit) (float64, bool) { return k.Errors.ErrorRatePct, k.Errors.Attempts > 0 })},
	{Name: "cpu_pct", Label: "CPU usage, web server + PHP (% of all CPUs)", Better: results.Lower, Unit: "%", Value: kitField(func(k *result.Kit) (float64, bool) {
		c, _, ok := kitServerUse(k)
		return c, ok
	})},
	{Name: "cpu_ms_per_1000", Label: "CPU time per 1,000 answered requests, web server + PHP (ms)", Better: results.Lower, Headline: true, Unit: "ms", Value: kitField(func(k *result.Kit) (float64, bool) {
		if k.Server == nil || k.Throughput.Outcomes.OK == 0 {
			return 0, false
		}
		var ms float64
		for _, g := range results.WebPHPGroups {
			ms += k.Server.Groups[g].CPUMs
		}
		return 1000 * ms / float64(k.Throughput.Outcomes.OK), true
	})},
	{Name: "pss_mb", Label: "Memory usage, peak PSS (MB)", Better: results.Lower, Headline: true, State: true, Unit: "MB", Value: kitField(func(k *result.Kit) (float64, bool) {
		_, p, ok := kitServerUse(k)
		return float64(p) / 1024, ok
	})},
	{Name: "worker_pct", Label: "Worker usage (% of MaxRequestWorkers)", Better: results.Lower, Unit: "%", Value: kitField(func(k *result.Kit) (float64, bool) {
		if k.Server == nil || k.Server.WorkerLimit == 0 {
			return 0, false
		}
		return k.Server.WorkerUsagePct, true
	})},
}

func kitField(f func(*result.Kit) (float64, bool)) func(results.Record) (float64, bool) {
	return func(rec results.Record) (float64, bool) {
		if rec.Kit == nil {
			return 0, false
		}
		return f(rec.Kit)
	}
}

// kitServerUse sums the web server's and PHP's share of the throughput window.
func kitServerUse(k *result.Kit) (cpuPct float64, pssKB int64, ok bool) {
	if k.Server == nil {
		return 0, 0, false
	}
	for _, g := range results.WebPHPGroups {
		cpuPct += k.Server.Groups[g].CPUPct
		pssKB += k.Server.Groups[g].PSSPeakKB
	}
	return cpuPct, pssKB, true
}

type kind struct{}

// settings are the kit's own attributes.
type settings struct {
	// TransferPath is its transfer rate's large file ("": none measured).
	TransferPath string `json:"transfer_path,omitempty"`
	// Levels are its scaling steps' concurrencies; ErrorClients its errors
	// run's (0: benchgen's default).
	Levels       []int `json:"levels,omitempty"`
	ErrorClients int   `json:"error_clients,omitempty"`
}

// settingsOf are sc's settings.
func settingsOf(sc results.Scenario) settings {
	var st settings
	_ = results.OwnOf(sc, &st) // the run wrote them: a stranger's bad JSON leaves none
	return st
}

func (kind) Attrs() []hcl.AttributeSchema {
	return []hcl.AttributeSchema{{Name: "transfer_path"}, {Name: "levels"}, {Name: "error_clients"}}
}

func (kind) Decode(b experiment.Block, s *results.Scenario) hcl.Diagnostics {
	var st settings
	ds := b.Decode("levels", &st.Levels)
	if err := experiment.CheckVisitors(st.Levels); err != nil {
		r := b.Range("levels")
		ds = append(ds, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid visitor count", Detail: err.Error(), Subject: &r})
	}
	ds = append(ds, b.Decode("error_clients", &st.ErrorClients)...)
	p, d := b.Path("transfer_path")
	st.TransferPath = p
	ds = append(ds, d...)
	results.SetOwn(s, st)
	if len(s.Visitors) != 1 {
		r := b.Range("visitors")
		ds = append(ds, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Kit takes one concurrency", Subject: &r,
			Detail: "visitors = [50]: the kit's throughput concurrency; its scaling steps are levels = [...]."})
	}
	return ds
}

// Estimate: a window per level and four more runs (throughput, keep-alive
// off, transfer, errors).
func (kind) Estimate(sc results.Scenario) time.Duration {
	return experiment.SweepEstimate(sc) + time.Duration(len(settingsOf(sc).Levels)+3)*(sc.Warmup+sc.Duration)
}

// Job: startup first, as benchgen.Kit orders it, measured on the server
// (DataPoint.Startup); the srvstat join over the throughput window after,
// as for the other kinds: the sampler keeps every sample.
func (kind) Job(ctx context.Context, p experiment.DataPoint) (benchgen.Job, func(*results.Record, *result.Server), error) {
	st, err := p.Startup(ctx)
	if err != nil {
		return benchgen.Job{}, nil, err
	}
	own := settingsOf(p.Scenario)
	kc := benchgen.KitConfig{Base: p.Config, Concurrency: p.Point.Visitors, Levels: own.Levels, ErrorClients: own.ErrorClients}
	if own.TransferPath != "" {
		kc.TransferURL = p.URL(own.TransferPath)
	}
	j, err := benchgen.NewKitJob(kc)
	finish := func(rec *results.Record, srv *result.Server) {
		if rec.Kit != nil {
			rec.Kit.Startup = st
			rec.Kit.Server = srv
		}
	}
	return j, finish, err
}

func charts(r *report.Report, sc results.Scenario, add report.AddChart) error {
	st := sc.Steps()[0]
	p, err := r.SweepChart(sc, report.Sweep{Title: fmt.Sprintf("%s scaling (%s)", sc.Name, sc.Path), XLabel: "clients (concurrent)", XUnit: "clients",
		Xs: settingsOf(sc).Levels, Axis: report.Axis{Label: "throughput (requests/s)"}, Point: func(i int) (string, func(results.Record) (float64, bool)) {
			return st, func(rec results.Record) (float64, bool) {
				if rec.Kit == nil || i >= len(rec.Kit.Scaling) {
					return 0, false
				}
				return rec.Kit.Scaling[i].RPS, true
			}
		}})
	return add("kit-scaling-"+sc.Name, "Kit: throughput by concurrency step, median", p, err)
}

// KitMetric is one of the Apache kit's ten metrics (the Apache performance
// kit) with its target: Metric is its key in results' registry (kind kit,
// where apache-kit.hcl's claims name it too, and where its label is); Pass
// says whether a value meets the target; nil Pass is information only.
type KitMetric struct {
	N      int
	Metric string
	Target string
	Pass   func(v float64) bool
}

// KitMetrics are the kit's ten metrics with its default targets.
var KitMetrics = []KitMetric{
	{1, "startup_ms", "≤ 5,000 (under 500 normal)", func(v float64) bool { return v <= 5000 }},
	{2, "rps", "≥ 2,000", func(v float64) bool { return v >= 2000 }},
	{3, "p95_ms", "≤ 50", func(v float64) bool { return v <= 50 }},
	{3, "p99_ms", "≤ 100", func(v float64) bool { return v <= 100 }},
	{4, "scaling_pct", "≥ 50", func(v float64) bool { return v >= 50 }},
	{5, "keep_alive_x", "information", nil},
	{6, "transfer_mb_s", "≥ 100", func(v float64) bool { return v >= 100 }},
	{7, "error_pct", "≤ 0.1", func(v float64) bool { return v <= 0.1 }},
	{8, "cpu_pct", "≤ 90", func(v float64) bool { return v <= 90 }},
	{8, "cpu_ms_per_1000", "information", nil},
	{9, "pss_mb", "≤ 1,024", func(v float64) bool { return v <= 1024 }},
	{10, "worker_pct", "≤ 90", func(v float64) bool { return v <= 90 }},
}

// figure is m's entry in results' registry.
func (m KitMetric) figure() results.Metric {
	mt, _ := results.MetricOf(Name, m.Metric)
	return mt
}

// KitValue is a kit metric over the repetitions of a kit point.
func KitValue(r *report.Report, profile, scenario, step string, m KitMetric) report.Stat {
	return r.Metric(profile, scenario, step, m.figure().Value)
}

// kitTarget is m's target on a column of scenario sc: the experiment's
// claim that bounds m there (apache-kit.hcl writes the kit's settings.conf
// defaults as claims, so a user who moves a target edits it once, and the
// table and "Does it reproduce?" agree), else the kit's default.
func kitTarget(r *report.Report, sc, column string, m KitMetric) KitMetric {
	for _, c := range r.Manifest.Claims {
		if c.Scenario != sc || len(c.Scenarios) > 0 || c.Metric != m.Metric || (c.AtLeast == nil && c.AtMost == nil) {
			continue
		}
		if len(c.Columns) > 0 && !slices.Contains(c.Columns, column) {
			continue
		}
		lo, hi := c.AtLeast, c.AtMost
		var parts []string
		if lo != nil {
			parts = append(parts, "≥ "+lo.Text)
		}
		if hi != nil {
			parts = append(parts, "≤ "+hi.Text)
		}
		m.Target = strings.Join(parts, ", ") + " (claim " + c.ID + ")"
		m.Pass = func(v float64) bool { return (lo == nil || v >= lo.Value) && (hi == nil || v <= hi.Value) }
		return m
	}
	return m
}

// Verdict is PASS, FAIL (on the median), "info" or "n/a".
func Verdict(m KitMetric, s report.Stat) string {
	switch {
	case s.N == 0:
		return "n/a"
	case m.Pass == nil:
		return "info"
	case m.Pass(s.Med):
		return "PASS"
	}
	return "FAIL"
}

func section(r *report.Report, sc results.Scenario) report.Section {
	ps, own := r.ColumnsOf(sc), settingsOf(sc)
	st := sc.Steps()[0]
	s := report.Section{ID: "kit-" + sc.Name, Title: "The Apache kit's ten metrics (" + sc.Name + ")",
		Text: []string{fmt.Sprintf("%s at %d clients with keep-alive for throughput, latency, CPU and memory; scaling over %v; errors at %d clients without keep-alive; %s per run. Verdicts on the median over repetitions, against the experiment's claims where it states a bound (the target names the claim), else the kit's default. Worker usage is the peak of busy workers as the server's status page reported them (the page its profile declares, on the server's loopback, sampled every %s during the throughput run; the worker answering the status request counts) as %% of the worker limit the profile declares (Apache's MaxRequestWorkers); n/a for servers that declare no status page.",
			sc.Path, sc.Visitors[0], own.Levels, own.ErrorClients, sc.Duration, results.SampleEvery)}}
	head := []string{"#", "metric", "target"}
	for _, p := range ps {
		head = append(head, r.Labels[p])
	}
	t := report.Table{Caption: "PASS / FAIL against the kit's targets", Head: head}
	for _, m := range KitMetrics {
		row := []string{fmt.Sprint(m.N), m.figure().Label, targetText(r, sc.Name, ps, m)}
		for _, p := range ps {
			m := kitTarget(r, sc.Name, p, m)
			v := KitValue(r, p, sc.Name, st, m)
			c := report.Cell(v) + " " + Verdict(m, v)
			if m.N == 10 {
				c = workerCell(r, p, sc.Name, st, v, Verdict(m, v))
			}
			row = append(row, c)
		}
		t.Rows = append(t.Rows, row)
	}
	s.Tables = append(s.Tables, t)
	s.Charts = []string{"kit-scaling-" + sc.Name}
	return s
}

// targetText is the target column's text: the one target every column has,
// or each column's where claims give columns their own.
func targetText(r *report.Report, sc string, ps []string, m KitMetric) string {
	var ts []string
	for _, p := range ps {
		t := kitTarget(r, sc, p, m).Target
		if !slices.Contains(ts, t) {
			ts = append(ts, t)
		}
	}
	if len(ts) == 1 {
		return ts[0]
	}
	ts = ts[:0]
	for _, p := range ps {
		ts = append(ts, r.Labels[p]+": "+kitTarget(r, sc, p, m).Target)
	}
	return strings.Join(ts, "; ")
}

// workerCell is the worker usage with the numbers behind it (the peak busy
// workers of MaxRequestWorkers), or why there is none.
func workerCell(r *report.Report, profile, scenario, step string, v report.Stat, verdict string) string {
	if v.N == 0 {
		hm := r.Manifest.Hosts[profile]
		why := results.WorkersOf(hm).Why
		if why == "" {
			why = "mod_status gave no reading during the throughput run (the run log says why)"
		}
		return "n/a: " + why
	}
	busy := r.Metric(profile, scenario, step, func(rec results.Record) (float64, bool) {
		if rec.Kit == nil || rec.Kit.Server == nil || rec.Kit.Server.WorkerLimit == 0 {
			return 0, false
		}
		return float64(rec.Kit.Server.MaxBusyWorkers), true
	})
	limit := r.Metric(profile, scenario, step, func(rec results.Record) (float64, bool) {
		if rec.Kit == nil || rec.Kit.Server == nil || rec.Kit.Server.WorkerLimit == 0 {
			return 0, false
		}
		return float64(rec.Kit.Server.WorkerLimit), true
	})
	return fmt.Sprintf("%s %s (peak %s busy of %s)", report.Cell(v), verdict, count(busy), count(limit))
}

// count is a Stat of whole numbers: "12", or "12 (10–14)" over
// repetitions (a median of two may end in .5).
func count(s report.Stat) string {
	n := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	if s.N == 1 || s.Min == s.Max {
		return n(s.Med)
	}
	return fmt.Sprintf("%s (%s–%s)", n(s.Med), n(s.Min), n(s.Max))
}
