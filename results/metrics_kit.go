package results

import "github.com/wptest/wptest/bench/result"

// kitMetrics are the Apache kit's ten metrics (the report's kit table
// names them; apache-kit.hcl's claims state their targets).
var kitMetrics = []Metric{
	{Name: "startup_ms", Unit: "ms", Value: kitField(func(k *result.Kit) (float64, bool) {
		if k.Startup == nil {
			return 0, false
		}
		return k.Startup.MeanMs, true
	})},
	{Name: "rps", Unit: "req/s", Noise: "throughput (req/s)", Value: kitField(func(k *result.Kit) (float64, bool) { return k.Throughput.RPS, true })},
	{Name: "p95_ms", Unit: "ms", Value: kitField(func(k *result.Kit) (float64, bool) {
		return k.Throughput.Latency.P95, k.Throughput.Latency.Count > 0
	})},
	{Name: "p99_ms", Unit: "ms", Value: kitField(func(k *result.Kit) (float64, bool) {
		return k.Throughput.Latency.P99, k.Throughput.Latency.Count > 0
	})},
	{Name: "scaling_pct", Unit: "%", Value: kitField(func(k *result.Kit) (float64, bool) { return k.ScalingPct, len(k.Scaling) > 0 })},
	{Name: "keep_alive_x", Unit: "x", Value: kitField(func(k *result.Kit) (float64, bool) { return k.KeepAliveX, k.KeepAliveX > 0 })},
	{Name: "transfer_mb_s", Unit: "MB/s", Value: kitField(func(k *result.Kit) (float64, bool) { return k.TransferMBs, k.Transfer != nil })},
	{Name: "error_pct", Unit: "%", Value: kitField(func(k *result.Kit) (float64, bool) { return k.Errors.ErrorRatePct, k.Errors.Attempts > 0 })},
	{Name: "cpu_pct", Unit: "%", Value: kitField(func(k *result.Kit) (float64, bool) {
		c, _, ok := kitServerUse(k)
		return c, ok
	})},
	{Name: "cpu_ms_per_1000", Unit: "ms", Value: kitField(func(k *result.Kit) (float64, bool) {
		if k.Server == nil || k.Throughput.Outcomes.OK == 0 {
			return 0, false
		}
		var ms float64
		for _, g := range WebPHPGroups {
			ms += k.Server.Groups[g].CPUMs
		}
		return 1000 * ms / float64(k.Throughput.Outcomes.OK), true
	})},
	{Name: "pss_mb", Unit: "MB", Value: kitField(func(k *result.Kit) (float64, bool) {
		_, p, ok := kitServerUse(k)
		return float64(p) / 1024, ok
	})},
	{Name: "worker_pct", Unit: "%", Value: kitField(func(k *result.Kit) (float64, bool) {
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
