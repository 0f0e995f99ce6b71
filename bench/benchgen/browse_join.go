package benchgen

import (
	"errors"
	"fmt"
	"time"

	"github.com/wptest/wptest/bench/hdr"
	"github.com/wptest/wptest/bench/result"
)

// JoinBrowse makes one browse run of several load generators' shares of
// it, each with Raw (Config.Raw) and its window on one clock, exactly as
// JoinRuns does for runs: page views, outcomes, assets skipped,
// connections, bytes and errors add; the page-view, first-byte and connect
// times and the per-view counts come from the merged histograms, never
// from averaged percentiles. The window is the earliest share's start to
// the latest share's end; its elapsed time ends with the last page view of
// any share, and the rate is over it.
func JoinBrowse(parts []result.Browse) (result.Browse, error) {
	if len(parts) == 0 {
		return result.Browse{}, errors.New("join: no browse runs")
	}
	j := parts[0] // what every share has alike: name, proto, URL, connections per visitor, planned times
	j.Visitors = 0
	j.PageViews, j.PageViewsOK, j.PageViewsFailed, j.WarmupPageViews = 0, 0, 0, 0
	j.SkippedAssets, j.Undecodable, j.Connections, j.KeepAliveCloses = 0, 0, 0, 0
	j.Bytes, j.Negotiated, j.Responses = result.Bytes{}, nil, nil
	j.ClientCPUMs, j.ClientWaitMs, j.ClientCPUs = 0, 0, 0 // all the load generators' (each one's is in its share)
	hs := [6]*hdr.Histogram{hdr.New(), hdr.New(), hdr.New(), hdr.New(), hdr.New(), hdr.New()}
	var page, asset [result.NumOutcomes]int64
	errs := map[errKey]int64{}
	var w shareSpan // from the earliest start to the last page view
	var end time.Time
	for i, p := range parts {
		r := p.Raw
		if r == nil || r.TTFB == nil || r.PageView == nil || r.Connect == nil || r.Assets == nil || r.WireIn == nil || r.WireOut == nil {
			return result.Browse{}, fmt.Errorf("join: share %d of browse run %s has no histograms", i+1, p.Name)
		}
		if err := w.add(i, "browse run", p.Name, p.Start, p.ElapsedMs); err != nil {
			return result.Browse{}, err
		}
		e, err := time.Parse(time.RFC3339Nano, p.End)
		if err != nil {
			return result.Browse{}, fmt.Errorf("join: share %d of browse run %s: end: %w", i+1, p.Name, err)
		}
		if i == 0 || e.After(end) {
			end = e
		}
		j.ClientCPUMs, j.ClientWaitMs, j.ClientCPUs = j.ClientCPUMs+p.ClientCPUMs, j.ClientWaitMs+p.ClientWaitMs, j.ClientCPUs+p.ClientCPUs
		for k, h := range []*hdr.Histogram{r.TTFB, r.PageView, r.Connect, r.Assets, r.WireIn, r.WireOut} {
			hs[k].Merge(h)
		}
		for o, n := range p.PageOutcomes.Array() {
			page[o] += n
		}
		for o, n := range p.AssetOutcomes.Array() {
			asset[o] += n
		}
		j.Visitors += p.Visitors
		j.PageViews += p.PageViews
		j.PageViewsOK += p.PageViewsOK
		j.PageViewsFailed += p.PageViewsFailed
		j.WarmupPageViews += p.WarmupPageViews
		j.SkippedAssets += p.SkippedAssets
		j.Undecodable += p.Undecodable
		j.Connections += p.Connections
		j.KeepAliveCloses += p.KeepAliveCloses
		j.Bytes.WireIn += p.Bytes.WireIn
		j.Bytes.WireOut += p.Bytes.WireOut
		j.Bytes.Headers += p.Bytes.Headers
		j.Bytes.Body += p.Bytes.Body
		j.Negotiated = addCounts(j.Negotiated, p.Negotiated)
		j.Responses = addCounts(j.Responses, p.Responses)
		for _, e := range p.Errors {
			errs[errKey{outcomeNamed(e.Outcome), e.Message}] += e.Count
		}
	}
	elapsed := max(w.to.Sub(w.from), 0)
	j.Start, j.End, j.ElapsedMs = w.from.UTC().Format(time.RFC3339Nano), end.UTC().Format(time.RFC3339Nano), ms(elapsed)
	j.PageOutcomes, j.AssetOutcomes = result.FromArray(page), result.FromArray(asset)
	j.TTFB, j.PageView, j.Connect = Summary(hs[0], true), Summary(hs[1], true), Summary(hs[2], false)
	j.Assets, j.WireIn, j.WireOut = countSummary(hs[3]), countSummary(hs[4]), countSummary(hs[5])
	j.Errors = errorSamples(errs)
	j.PageViewsPerSec = 0
	if sec := elapsed.Seconds(); sec > 0 {
		j.PageViewsPerSec = float64(j.PageViewsOK) / sec
	}
	j.Raw = &result.BrowseRaw{TTFB: hs[0], PageView: hs[1], Connect: hs[2], Assets: hs[3], WireIn: hs[4], WireOut: hs[5]}
	return j, nil
}

// addCounts adds b's counts to a (nil stays nil when b has none).
func addCounts(a, b map[string]int64) map[string]int64 {
	for k, n := range b {
		if a == nil {
			a = map[string]int64{}
		}
		a[k] += n
	}
	return a
}
