package results

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wptest/wptest/bench/result"
)

// A point measured the bench, not the server, when its load generator was
// what limited it or when the server did not answer: its figures then say
// nothing about the server and no claim is judged on them.
const (
	// MaxFailedPct is the share of requests that may fail at a point that
	// still measures the server (beyond it, the figures are those of errors).
	MaxFailedPct = 10.0
	// MaxLoadPct is the share of its CPUs a load generator may have used or
	// waited for: above it, the load generator, not the server, set the pace.
	MaxLoadPct = 90.0
	// MaxLoadWaitPct is how long, as a share of the window, a load
	// generator with CPUs of its own may have waited for them with work
	// ready: beyond it, something else on its CPUs starved it.
	MaxLoadWaitPct = 20.0
	// MaxLinkPct is the share of the bandwidth the machines block states
	// for a load generator's link (load_generator_link_mbps) its sockets
	// may have carried in its busier direction (a link's bandwidth is each
	// way's): beyond it, the link, not the server, set the pace. Sockets
	// see payload, about 94% of a 1,500-byte-MTU link's line rate at most,
	// so a full link reads above 90%.
	MaxLinkPct = 90.0
)

// BenchLimit says why rec measured the bench rather than the server ("":
// it measured the server), and whether the reason is failed requests. mi
// is the run's server machine: where the load generator ran on it (or the
// server shared its CPUs otherwise, or the run did not record whether it
// did), the time it waited for a CPU may be the server's use of the same
// CPUs, not a sign that the load generator set the pace, so only its own
// CPU counts.
func BenchLimit(rec Record, mi *MachineInfo) (why string, failures bool) {
	if why, failures = benchLimit(rec, mi); why == "" && rec.Broken != "" {
		return rec.Broken, true // the figures' own reason first: it says more
	}
	return why, failures
}

func benchLimit(rec Record, mi *MachineInfo) (why string, failures bool) {
	if why := loadLimit(rec, mi); why != "" {
		return why, false
	}
	if rec.Run != nil && rec.Run.Attempts > 0 {
		if pct := 100 * float64(rec.Run.Outcomes.Failed()) / float64(rec.Run.Attempts); pct > MaxFailedPct {
			return fmt.Sprintf("%s of requests failed (%s)", pctText(pct), mostFailed(rec.Run.Outcomes)), true
		}
	}
	if c := rec.Crowd; c != nil {
		return crowdLimit(c)
	}
	if b := rec.Browse; b != nil && b.PageViews > 0 {
		if pct := 100 * float64(b.PageViews-b.PageViewsOK) / float64(b.PageViews); pct > MaxFailedPct {
			return fmt.Sprintf("%s of page views failed", pctText(pct)), true
		}
	}
	return "", false
}

// crowdLimit: a crowd measures a full server, whose newcomers and clicks
// wait, time out, are refused or reset; all of that is its figure. It
// measured the bench only where the server answered nothing at all, or
// where connections failed on the load generator's own side (out of
// ports: connect_error) for more than MaxFailedPct of them.
func crowdLimit(c *result.Crowd) (string, bool) {
	bg := c.Background
	if n := int64(len(c.Probes)) + bg.Attempts; n > 0 {
		if c.ProbeOutcomes.OK == 0 && bg.Outcomes.OK == 0 && c.Wait.Count == 0 {
			return fmt.Sprintf("the server answered no newcomer and no click (%s)", mostFailed(bg.Outcomes)), true
		}
		if pct := 100 * float64(c.ProbeOutcomes.ConnectError+bg.Outcomes.ConnectError) / float64(n); pct > MaxFailedPct {
			return fmt.Sprintf("%s of the crowd's connections failed on the load generator's side (connect error)", pctText(pct)), false
		}
	}
	return "", false
}

// Unsound is BenchLimit for a claim on mt: failed requests do not keep a
// figure of failures (error_pct, gave_up) from being judged, since they are
// what it measures.
func Unsound(rec Record, mt Metric, mi *MachineInfo) string {
	if mt.Answered {
		return ""
	}
	if mt.Bench {
		return benchUnsound(rec, mi)
	}
	why, failures := BenchLimit(rec, mi)
	if failures && (mt.Failures || mt.State) {
		return ""
	}
	return why
}

// loadLimit names the load generator that set the pace, if one did: with
// its CPUs, or with its link where mi states its bandwidth (a load
// generator on the server's machine crosses no link).
func loadLimit(rec Record, mi *MachineInfo) string {
	shared := mi == nil || mi.LoadLocal || mi.SharedWith != "" || mi.CPUsSharedWith != ""
	link := 0
	if mi != nil && !mi.LoadLocal {
		link = mi.LoadGenLinkMbps
	}
	if len(rec.Generators) > 0 {
		for _, g := range rec.Generators {
			if why := setLimit(g.Set, shared, link, "the load generator "+g.Host); why != "" {
				return why
			}
		}
		return ""
	}
	return setLimit(rec.Set, shared, link, "the load generator")
}

// setLimit is how s's load generator (who) set the pace in one of its
// runs, or "".
func setLimit(s result.Set, shared bool, linkMbps int, who string) string {
	for _, r := range runsOf(s) {
		if why := loadLimitOf(r.run, shared); why != "" {
			return who + why + r.in
		}
		if why := linkLimitOf(r.run, linkMbps); why != "" {
			return who + "'s link" + why + r.in
		}
	}
	return ""
}

// loadLimitOf is how r's load generator set the pace (" was the
// bottleneck (...)"), or "".
func loadLimitOf(r *result.Run, shared bool) string {
	pct, ok := LoadPct(r, shared)
	switch {
	case !ok:
		return ""
	case pct > MaxLoadPct:
		return fmt.Sprintf(" was the bottleneck (%s of its CPUs)", pctText(pct))
	case !shared && 100*r.ClientWaitMs/(r.ElapsedMs*float64(r.ClientCPUs)) > MaxLoadWaitPct:
		return fmt.Sprintf(" was the bottleneck: it waited for its CPUs, with work ready, %s of the window (something else ran on them)",
			pctText(100*r.ClientWaitMs/(r.ElapsedMs*float64(r.ClientCPUs))))
	}
	return ""
}

// linkLimitOf is how r's load generator's link set the pace (" carried
// ..."), or "" (and where no bandwidth is stated).
func linkLimitOf(r *result.Run, mbps int) string {
	got, ok := LinkMbps(r)
	if !ok || mbps <= 0 {
		return ""
	}
	if pct := 100 * got / float64(mbps); pct > MaxLinkPct {
		return fmt.Sprintf(" carried %s Mbit/s, %s of its stated %s Mbit/s", Num(got), pctText(pct), Num(float64(mbps)))
	}
	return ""
}

// benchUnsound is why a figure of the bench's own link (Metric.Bench)
// says nothing at rec: a load generator's CPUs or failed requests set the
// pace before the link could (BeyondLink), or its sockets carried more
// than the bandwidth stated for it, which is then not the link's.
func benchUnsound(rec Record, mi *MachineInfo) string {
	if why := BeyondLink(rec, mi); why != "" {
		return why
	}
	if pct, ok := LinkPct(rec, mi); ok && pct > 100 {
		return fmt.Sprintf("the load generator's sockets carried %s of the %s Mbit/s stated for its link: the stated bandwidth is below what the link carried, not the link's", pctText(pct), Num(float64(mi.LoadGenLinkMbps)))
	}
	return ""
}

// BeyondLink is BenchLimit but for the link: why rec measured the bench
// other than by filling its load generator's link (its CPUs, failed
// requests, a broken server), or "". A figure of the link itself is read
// where this is "".
func BeyondLink(rec Record, mi *MachineInfo) string {
	if mi != nil {
		noLink := *mi
		noLink.LoadGenLinkMbps = 0
		mi = &noLink
	}
	why, _ := BenchLimit(rec, mi)
	return why
}

// LinkPct is the busiest load generator's link over a point's window as a
// percentage of the bandwidth mi states for each (load_generator_link_mbps);
// false where none is stated, or where the load came from the server's own
// machine and crossed no link. A point split over several load generators
// is its busiest one's: each has its own link.
func LinkPct(rec Record, mi *MachineInfo) (float64, bool) {
	if mi == nil || mi.LoadLocal || mi.LoadGenLinkMbps <= 0 {
		return 0, false
	}
	sets := []result.Set{rec.Set}
	if len(rec.Generators) > 0 {
		sets = sets[:0]
		for _, g := range rec.Generators {
			sets = append(sets, g.Set)
		}
	}
	busiest, ok := 0.0, false
	for _, s := range sets {
		for _, r := range runsOf(s) {
			if v, k := LinkMbps(r.run); k {
				busiest, ok = max(busiest, v), true
			}
		}
	}
	return 100 * busiest / float64(mi.LoadGenLinkMbps), ok
}

// LinkMbps is the rate r's load generator's sockets carried over the
// window in the busier direction (Bytes.WireIn or WireOut, TLS included),
// in Mbit/s; false where it is not known. A link's stated bandwidth is
// each way's (full duplex): responses coming in at 600 Mbit/s while
// requests go out at 400 do not fill a 1,000 Mbit/s link.
func LinkMbps(r *result.Run) (float64, bool) {
	if r == nil || r.ElapsedMs <= 0 {
		return 0, false
	}
	return float64(max(r.Bytes.WireIn, r.Bytes.WireOut)) * 8 / (r.ElapsedMs * 1000), true
}

// setRun is one run of a set whose load generator's CPU and link are
// judged; in says which, where the set has several (" in the kit's c=400
// run").
type setRun struct {
	run *result.Run
	in  string
}

// runsOf are the runs whose load generator a set records: its run, a
// crowd's background clicks, a browse's page views, or every run of the
// kit (each of its figures comes from one of them).
func runsOf(s result.Set) []setRun {
	switch {
	case s.Run != nil:
		return []setRun{{run: s.Run}}
	case s.Crowd != nil:
		return []setRun{{run: &s.Crowd.Background}}
	case s.Browse != nil:
		b := s.Browse
		return []setRun{{run: &result.Run{ClientCPUMs: b.ClientCPUMs, ClientWaitMs: b.ClientWaitMs, ClientCPUs: b.ClientCPUs, ElapsedMs: b.ElapsedMs, Bytes: b.Bytes}}}
	case s.Kit != nil:
		k := s.Kit
		out := []setRun{{run: &k.Throughput}}
		for i := range k.Scaling {
			out = append(out, setRun{&k.Scaling[i], ""})
		}
		out = append(out, setRun{&k.KeepAliveOff, ""})
		if k.Transfer != nil {
			out = append(out, setRun{k.Transfer, ""})
		}
		out = append(out, setRun{&k.Errors, ""})
		for i := range out[1:] {
			out[i+1].in = " in the kit's " + out[i+1].run.Name + " run"
		}
		return out
	}
	return nil
}

// LoadPct is the share of its CPUs the load generator of r used or waited
// to use over the window (used only, where it shared the server's CPUs);
// false where it was not recorded.
func LoadPct(r *result.Run, shared bool) (float64, bool) {
	if r == nil || r.ClientCPUs <= 0 || r.ElapsedMs <= 0 {
		return 0, false
	}
	want := r.ClientCPUMs + r.ClientWaitMs
	if shared {
		want = r.ClientCPUMs
	}
	return 100 * want / (r.ElapsedMs * float64(r.ClientCPUs)), true
}

// mostFailed names the outcome most failed requests ended in.
func mostFailed(o result.Outcomes) string {
	a := o.Array()
	best := result.Outcome(-1)
	for i := result.Outcome(1); i < result.NumOutcomes; i++ {
		if a[i] > 0 && (best < 0 || a[i] > a[best]) {
			best = i
		}
	}
	if best < 0 {
		return "none"
	}
	s := best.String()
	if strings.HasPrefix(s, "http_") {
		return "HTTP " + strings.TrimPrefix(s, "http_")
	}
	return strings.ReplaceAll(s, "_", " ")
}

// pctText is a share as a reader takes it: never rounded onto a limit it
// is beyond (90.04% is not "90.0%"), nor up to all when short of it, and
// "all" where waits of several threads add up past it.
func pctText(p float64) string {
	switch {
	case p > 100:
		return "more than all"
	case p >= 99.5 && p < 100:
		return "99%" // never round a share short of all up to all
	}
	s := Num(p)
	for _, limit := range []float64{MaxFailedPct, MaxLoadPct, MaxLoadWaitPct, MaxLinkPct} {
		if p != limit && s == Num(limit) {
			return strconv.FormatFloat(p, 'f', 2, 64) + "%"
		}
	}
	return s + "%"
}

// BenchLimited are the points of recs that measured the bench, each as
// "KEY: why", in the records' order.
func BenchLimited(recs []Record, mi *MachineInfo) []string {
	var out []string
	for _, r := range recs {
		if why, _ := BenchLimit(r, mi); why != "" {
			out = append(out, r.Key+": "+why)
		}
	}
	return out
}
