package results

import "github.com/wptest/wptest/bench/result"

// The metrics' functions, shared by the registry, the report's tables and
// charts, and tests. Each returns ok=false where the record has no such
// number (another kind's record, a point not measured).
var (
	RPS = func(rec Record) (float64, bool) {
		if rec.Run == nil {
			return 0, false
		}
		return rec.Run.RPS, true
	}
	MeanMs = func(rec Record) (float64, bool) {
		if rec.Run == nil || rec.Run.Latency.Count == 0 {
			return 0, false
		}
		return rec.Run.Latency.Mean, true
	}
	P50Ms = func(rec Record) (float64, bool) {
		if rec.Run == nil || rec.Run.Latency.Count == 0 {
			return 0, false
		}
		return rec.Run.Latency.P50, true
	}
	P99Ms = func(rec Record) (float64, bool) {
		if rec.Run == nil || rec.Run.Latency.Count == 0 {
			return 0, false
		}
		return rec.Run.Latency.P99, true
	}
	// MaxMs is the slowest answered request (the source's "slowest visitor").
	MaxMs = func(rec Record) (float64, bool) {
		if rec.Run == nil || rec.Run.Latency.Count == 0 {
			return 0, false
		}
		return rec.Run.Latency.Max, true
	}
	// ServerCPU is CPU ms per answered request of the server's own
	// processes (web, PHP, database).
	ServerCPU = func(rec Record) (float64, bool) {
		if rec.Server == nil || rec.ServerCPUMsPerReq == 0 {
			return 0, false
		}
		return rec.ServerCPUMsPerReq, true
	}
	// WebPHPCPU is the web server's and PHP's CPU ms per answered request.
	WebPHPCPU = func(rec Record) (float64, bool) {
		if rec.Server == nil || rec.WebPHPCPUMsPerReq == 0 {
			return 0, false
		}
		return rec.WebPHPCPUMsPerReq, true
	}
	DBCPU = func(rec Record) (float64, bool) {
		if rec.Server == nil || rec.ServerCPUMsPerReq == 0 {
			return 0, false
		}
		return rec.DBCPUMsPerReq, true
	}
	// MachineCPU is the whole machine's CPU ms per answered request.
	MachineCPU = func(rec Record) (float64, bool) {
		if rec.Server == nil || rec.Server.CPUMsPerRequest == 0 {
			return 0, false
		}
		return rec.Server.CPUMsPerRequest, true
	}
	// PHPProcsPeak is the most PHP processes the sampler saw at once in
	// the window ("Apache ran 150 php-cgi processes at once").
	PHPProcsPeak = func(rec Record) (float64, bool) {
		if rec.Server == nil {
			return 0, false
		}
		g := rec.Server.Groups["php"]
		return float64(g.ProcsPeak), g.ProcsPeak > 0 // 0: a record from before the sampler counted them
	}
	PSSMB = func(rec Record) (float64, bool) {
		if rec.PSSKB == 0 {
			return 0, false
		}
		return float64(rec.PSSKB) / 1024, true
	}
	// WireBytes is bytes received per answered request (headers included).
	WireBytes = func(rec Record) (float64, bool) {
		if rec.Run == nil || rec.Run.Outcomes.OK == 0 {
			return 0, false
		}
		return float64(rec.Run.Bytes.WireIn) / float64(rec.Run.Attempts), true
	}
	ErrPct = func(rec Record) (float64, bool) {
		if rec.Run == nil || rec.Run.Attempts == 0 {
			return 0, false
		}
		return rec.Run.ErrorRatePct, true
	}
	// HTMLPerRequest is the body bytes per answered request (ab's "HTML
	// transferred" over its "Complete requests").
	HTMLPerRequest = func(rec Record) (float64, bool) {
		if rec.Run == nil || rec.Run.Outcomes.OK == 0 {
			return 0, false
		}
		return float64(rec.Run.Bytes.Body) / float64(rec.Run.Outcomes.OK), true
	}
	// ProbeBody is the body of the point's probe, as sent (compressed or not).
	ProbeBody = func(rec Record) (float64, bool) {
		if rec.Probe == nil || rec.Probe.Error != "" {
			return 0, false
		}
		return float64(rec.Probe.BodyBytes), true
	}
	// Served is 1 where the server answered over the point's protocol, 0
	// where the protocol check found it does not serve it (the point n/a);
	// a point with no answer at all says nothing either way.
	Served = func(rec Record) (float64, bool) {
		switch {
		case rec.NotApplicable != "":
			return 0, true
		case rec.Run != nil && rec.Run.Outcomes.OK > 0:
			return 1, true
		case rec.Browse != nil && rec.Browse.PageViewsOK > 0:
			return 1, true
		}
		return 0, false
	}
	CrowdWaitP50 = func(rec Record) (float64, bool) {
		if rec.Crowd == nil || rec.Crowd.Wait.Count == 0 {
			return 0, false
		}
		return rec.Crowd.Wait.P50, true
	}
	CrowdWaitP99 = func(rec Record) (float64, bool) {
		if rec.Crowd == nil || rec.Crowd.Wait.Count == 0 {
			return 0, false
		}
		return rec.Crowd.Wait.P99, true
	}
	CrowdGaveUp = func(rec Record) (float64, bool) {
		if rec.Crowd == nil {
			return 0, false
		}
		return float64(rec.Crowd.GaveUp), true
	}
	// CrowdGaveUpPct is the new visitors who gave up, in % of them.
	CrowdGaveUpPct = func(rec Record) (float64, bool) {
		if rec.Crowd == nil || len(rec.Crowd.Probes) == 0 {
			return 0, false
		}
		return 100 * float64(rec.Crowd.GaveUp) / float64(len(rec.Crowd.Probes)), true
	}
	// CrowdMachineCPUPct is the server machine's busy share of all its CPUs
	// over the crowd's window ("the server's CPU sat at 3%").
	CrowdMachineCPUPct = func(rec Record) (float64, bool) {
		if rec.Server == nil || rec.Server.WindowMs == 0 {
			return 0, false
		}
		return rec.Server.CPUBusyPct, true
	}
	// CrowdCPUPct is the profile's process groups' share of all CPUs.
	CrowdCPUPct = func(rec Record) (float64, bool) {
		if rec.Server == nil {
			return 0, false
		}
		var p float64
		for _, g := range ServerGroups {
			p += rec.Server.Groups[g].CPUPct
		}
		return p, true
	}
)

// Browse metrics: per page view, over the page views of a point.
var (
	BrowseViewP50     = browseMetric(func(b *result.Browse) float64 { return b.PageView.P50 })
	BrowseViewP90     = browseMetric(func(b *result.Browse) float64 { return b.PageView.P90 })
	BrowseViewP99     = browseMetric(func(b *result.Browse) float64 { return b.PageView.P99 })
	BrowseTTFBP50     = browseMetric(func(b *result.Browse) float64 { return b.TTFB.P50 })
	BrowseWirePerView = browseMetric(func(b *result.Browse) float64 { return b.WireIn.Mean })
	BrowseAssets      = browseMetric(func(b *result.Browse) float64 { return b.Assets.Mean })
	BrowseViewsPerSec = browseMetric(func(b *result.Browse) float64 { return b.PageViewsPerSec })
	BrowseFailedPct   = func(rec Record) (float64, bool) {
		if rec.Browse == nil || rec.Browse.PageViews == 0 {
			return 0, false
		}
		return 100 * float64(rec.Browse.PageViewsFailed) / float64(rec.Browse.PageViews), true
	}
)

// browseMetric is f over records with a browse run that has page views.
func browseMetric(f func(*result.Browse) float64) func(Record) (float64, bool) {
	return func(rec Record) (float64, bool) {
		if rec.Browse == nil || rec.Browse.PageView.Count == 0 {
			return 0, false
		}
		return f(rec.Browse), true
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
