package results

import "github.com/wptest/wptest/bench/result"

// kitMetrics are the Apache kit's ten metrics (the report's kit table
// names them; apache-kit.hcl's claims state their targets).
var kitMetrics = []Metric{
	{Name: "startup_ms", Label: "Startup time (ms)", Better: Lower, Unit: "ms", Value: kitField(func(k *result.Kit) (float64, bool) {
		if k.Startup == nil {
			return 0, false
		}
		return k.Startup.MeanMs, true
	})},
	{Name: "rps", Label: "Throughput (req/s)", Better: Higher, Headline: true, Unit: "req/s", Noise: true, Value: kitField(func(k *result.Kit) (float64, bool) { return k.Throughput.RPS, true })},
	{Name: "server_cpu_ms", Label: "server CPU per request (ms)", Better: Lower, Headline: true, Unit: "ms", Value: ServerCPU, Scoped: ServerCPUIn, Whole: true},
	{Name: "p95_ms", Label: "Latency p95 (ms)", Better: Lower, Unit: "ms", Value: kitField(func(k *result.Kit) (float64, bool) {
		return k.Throughput.Latency.P95, k.Throughput.Latency.Count > 0
	})},
	{Name: "p99_ms", Label: "Latency p99 (ms)", Better: Lower, Headline: true, Unit: "ms", Value: kitField(func(k *result.Kit) (float64, bool) {
		return k.Throughput.Latency.P99, k.Throughput.Latency.Count > 0
	})},
	{Name: "scaling_pct", Label: "Concurrency scaling (% of peak)", Better: Higher, Unit: "%", Value: kitField(func(k *result.Kit) (float64, bool) { return k.ScalingPct, len(k.Scaling) > 0 })},
	{Name: "keep_alive_x", Label: "Keep-alive effect (x)", Headline: true, Unit: "x", Value: kitField(func(k *result.Kit) (float64, bool) { return k.KeepAliveX, k.KeepAliveX > 0 })},
	{Name: "transfer_mb_s", Label: "Transfer rate (MB/s)", Better: Higher, Unit: "MB/s", Value: kitField(func(k *result.Kit) (float64, bool) { return k.TransferMBs, k.Transfer != nil })},
	{Name: "error_pct", Label: "Error rate (%)", Better: Lower, Headline: true, Failures: true, Unit: "%", Value: kitField(func(k *result.Kit) (float64, bool) { return k.Errors.ErrorRatePct, k.Errors.Attempts > 0 })},
	{Name: "cpu_pct", Label: "CPU usage, web server + PHP (% of all CPUs)", Better: Lower, Unit: "%", Value: kitField(func(k *result.Kit) (float64, bool) {
		c, _, ok := kitServerUse(k)
		return c, ok
	})},
	{Name: "cpu_ms_per_1000", Label: "CPU time per 1,000 answered requests, web server + PHP (ms)", Better: Lower, Headline: true, Unit: "ms", Value: kitField(func(k *result.Kit) (float64, bool) {
		if k.Server == nil || k.Throughput.Outcomes.OK == 0 {
			return 0, false
		}
		var ms float64
		for _, g := range WebPHPGroups {
			ms += k.Server.Groups[g].CPUMs
		}
		return 1000 * ms / float64(k.Throughput.Outcomes.OK), true
	})},
	{Name: "pss_mb", Label: "Memory usage, peak PSS (MB)", Better: Lower, Headline: true, State: true, Unit: "MB", Value: kitField(func(k *result.Kit) (float64, bool) {
		_, p, ok := kitServerUse(k)
		return float64(p) / 1024, ok
	})},
	{Name: "worker_pct", Label: "Worker usage (% of MaxRequestWorkers)", Better: Lower, Unit: "%", Value: kitField(func(k *result.Kit) (float64, bool) {
		if k.Server == nil || k.Server.WorkerLimit == 0 {
			return 0, false
		}
		return k.Server.WorkerUsagePct, true
	})},
}

func kitField(f func(*result.Kit) (float64, bool)) func(Record) (float64, bool) {
	return func(rec Record) (float64, bool) {
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
	for _, g := range WebPHPGroups {
		cpuPct += k.Server.Groups[g].CPUPct
		pssKB += k.Server.Groups[g].PSSPeakKB
	}
	return cpuPct, pssKB, true
}
