package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/wptest/wptest/results"
)

// The kit kind: the Apache kit's ten metrics, after the cost section.
var kitReport = reportKind{Section: kitSection, afterCost: true,
	charts: func(r *Report, sc results.Scenario, add AddChart) error {
		p, err := r.kitScaling(sc)
		return add("kit-scaling-"+sc.Name, "Kit: throughput by concurrency step, median", p, err)
	}}

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
	mt, _ := results.MetricOf("kit", m.Metric)
	return mt
}

// KitValue is a kit metric over the repetitions of a kit point.
func (r *Report) KitValue(profile, scenario, step string, m KitMetric) Stat {
	return r.Metric(profile, scenario, step, m.figure().Value)
}

// kitTarget is m's target on a column of scenario sc: the experiment's
// claim that bounds m there (apache-kit.hcl writes the kit's settings.conf
// defaults as claims, so a user who moves a target edits it once, and the
// table and "Does it reproduce?" agree), else the kit's default.
func (r *Report) kitTarget(sc, column string, m KitMetric) KitMetric {
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
func Verdict(m KitMetric, s Stat) string {
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

func kitSection(r *Report, sc results.Scenario) Section {
	ps := r.ColumnsOf(sc)
	st := sc.Steps()[0]
	s := Section{ID: "kit-" + sc.Name, Title: "The Apache kit's ten metrics (" + sc.Name + ")",
		Text: []string{fmt.Sprintf("%s at %d clients with keep-alive for throughput, latency, CPU and memory; scaling over %v; errors at %d clients without keep-alive; %s per run. Verdicts on the median over repetitions, against the experiment's claims where it states a bound (the target names the claim), else the kit's default. Worker usage is the peak of busy workers as the server's status page reported them (the page its profile declares, on the server's loopback, sampled every %s during the throughput run; the worker answering the status request counts) as %% of the worker limit the profile declares (Apache's MaxRequestWorkers); n/a for servers that declare no status page.",
			sc.Path, sc.Visitors[0], sc.Levels, sc.ErrorClients, sc.Duration, results.SampleEvery)}}
	head := []string{"#", "metric", "target"}
	for _, p := range ps {
		head = append(head, r.Labels[p])
	}
	t := Table{Caption: "PASS / FAIL against the kit's targets", Head: head}
	for _, m := range KitMetrics {
		row := []string{fmt.Sprint(m.N), m.figure().Label, r.targetText(sc.Name, ps, m)}
		for _, p := range ps {
			m := r.kitTarget(sc.Name, p, m)
			v := r.KitValue(p, sc.Name, st, m)
			c := cell(v) + " " + Verdict(m, v)
			if m.N == 10 {
				c = r.workerCell(p, sc.Name, st, v, Verdict(m, v))
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
func (r *Report) targetText(sc string, ps []string, m KitMetric) string {
	var ts []string
	for _, p := range ps {
		t := r.kitTarget(sc, p, m).Target
		if !slices.Contains(ts, t) {
			ts = append(ts, t)
		}
	}
	if len(ts) == 1 {
		return ts[0]
	}
	ts = ts[:0]
	for _, p := range ps {
		ts = append(ts, r.Labels[p]+": "+r.kitTarget(sc, p, m).Target)
	}
	return strings.Join(ts, "; ")
}

// workerCell is the worker usage with the numbers behind it (the peak busy
// workers of MaxRequestWorkers), or why there is none.
func (r *Report) workerCell(profile, scenario, step string, v Stat, verdict string) string {
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
	return fmt.Sprintf("%s %s (peak %s busy of %s)", cell(v), verdict, count(busy), count(limit))
}

// count is a Stat of whole numbers: "12", or "12 (10–14)" over
// repetitions (a median of two may end in .5).
func count(s Stat) string {
	n := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	if s.N == 1 || s.Min == s.Max {
		return n(s.Med)
	}
	return fmt.Sprintf("%s (%s–%s)", n(s.Med), n(s.Min), n(s.Max))
}
