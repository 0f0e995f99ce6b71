package benchgen

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/wptest/wptest/bench/hdr"
	"github.com/wptest/wptest/bench/result"
)

// JoinRuns makes one run of several load generators' shares of it, each
// run with Raw (Config.Raw) and its Start already on one clock. Exactly:
// counts, bytes and client CPU add; latencies come from the merged
// histograms, never from averaged percentiles. The joined window is the
// earliest share's start to the latest share's end, so rates are over the
// time the load as a whole took.
func JoinRuns(parts []result.Run) (result.Run, error) {
	if len(parts) == 0 {
		return result.Run{}, errors.New("join: no runs")
	}
	from, to, err := span(parts)
	if err != nil {
		return result.Run{}, err
	}
	m := newStats()
	errs := map[errKey]int64{}
	j := parts[0] // what every share has alike: name, model, URL, proto, planned times
	j.Visitors, j.Rate, j.Requests, j.ClientCPUMs = 0, 0, 0, 0
	j.ClientWaitMs, j.ClientCPUs = 0, 0 // all the load generators' (each one's is in its share)
	for i, p := range parts {
		if p.Raw == nil || p.Raw.Latency == nil || p.Raw.Connect == nil || p.Raw.TTFB == nil {
			return result.Run{}, fmt.Errorf("join: share %d of run %s has no histograms", i+1, p.Name)
		}
		addShare(m, p, errs)
		j.Visitors += p.Visitors
		j.Rate += p.Rate
		j.Requests += p.Requests
		j.ClientCPUMs += p.ClientCPUMs
		j.ClientWaitMs += p.ClientWaitMs
		j.ClientCPUs += p.ClientCPUs
	}
	fillJoined(&j, m, errs, from, to.Sub(from))
	return j, nil
}

// span is the earliest start and the latest end of parts.
func span(parts []result.Run) (from, to time.Time, err error) {
	var w shareSpan
	for i, p := range parts {
		if err := w.add(i, "run", p.Name, p.Start, p.ElapsedMs); err != nil {
			return from, to, err
		}
	}
	return w.from, w.to, nil
}

// shareSpan is the joined window of a run's shares: the earliest start and
// the latest end of the time each share's load took (its start plus its
// elapsed time).
type shareSpan struct{ from, to time.Time }

// add takes share i (counted from 0) of kind run name.
func (w *shareSpan) add(i int, kind, name, start string, elapsedMs float64) error {
	s, err := time.Parse(time.RFC3339Nano, start)
	if err != nil {
		return fmt.Errorf("join: share %d of %s %s: start: %w", i+1, kind, name, err)
	}
	e := s.Add(time.Duration(elapsedMs * float64(time.Millisecond)))
	if i == 0 || s.Before(w.from) {
		w.from = s
	}
	if i == 0 || e.After(w.to) {
		w.to = e
	}
	return nil
}

// addShare adds one share's counts and histograms to m.
func addShare(m *stats, p result.Run, errs map[errKey]int64) {
	m.lat.Merge(p.Raw.Latency)
	m.conn.Merge(p.Raw.Connect)
	m.ttfb.Merge(p.Raw.TTFB)
	m.queue.Merge(p.Raw.Queue)
	for o, n := range p.Outcomes.Array() {
		m.out[o] += n
	}
	m.wireIn += p.Bytes.WireIn
	m.wireOut += p.Bytes.WireOut
	m.headers += p.Bytes.Headers
	m.body += p.Bytes.Body
	m.conns += p.Connections
	m.kaCloses += p.KeepAliveCloses
	m.kaReq += p.KeepAliveReqs
	m.warm += p.WarmupAttempts
	for _, e := range p.Errors {
		errs[errKey{outcomeNamed(e.Outcome), e.Message}] += e.Count
	}
}

// fillJoined sets j's counts, summaries and rates from the merged m, as
// merge does for one load generator's shards.
func fillJoined(j *result.Run, m *stats, errs map[errKey]int64, from time.Time, elapsed time.Duration) {
	out := result.FromArray(m.out)
	j.Start, j.ElapsedMs = from.UTC().Format(time.RFC3339Nano), ms(elapsed)
	j.Attempts, j.Outcomes, j.ABErrors, j.WarmupAttempts = out.Sum(), out, out.AB(), m.warm
	j.Connections, j.KeepAliveCloses, j.KeepAliveReqs = m.conns, m.kaCloses, m.kaReq
	j.Bytes = result.Bytes{WireIn: m.wireIn, WireOut: m.wireOut, Headers: m.headers, Body: m.body}
	j.Latency, j.Connect, j.TTFB = Summary(m.lat, true), Summary(m.conn, false), Summary(m.ttfb, false)
	j.Queue = nil
	j.Raw = &result.RunRaw{Latency: m.lat, Connect: m.conn, TTFB: m.ttfb}
	if j.Model == "open" {
		q := Summary(m.queue, false)
		j.Queue, j.Raw.Queue = &q, m.queue
	}
	j.RPS, j.AttemptRate, j.WireInBps, j.ErrorRatePct, j.ClientCPUPerReqUs = 0, 0, 0, 0, 0
	setRates(j, elapsed)
	if j.Attempts > 0 {
		j.ClientCPUPerReqUs = j.ClientCPUMs * 1000 / float64(j.Attempts)
	}
	j.Errors = errorSamples(errs)
	j.SetLimit()
}

// outcomeNamed is the outcome whose String is name (OtherError if none).
func outcomeNamed(name string) result.Outcome {
	for o := range result.NumOutcomes {
		if o.String() == name {
			return o
		}
	}
	return result.OtherError
}

// JoinCrowds makes one crowd of several load generators' shares (each
// with Raw, its background's Start on one clock): the background runs
// join as JoinRuns does; the newcomers, which the shares took turns to
// send (CrowdConfig.ProbeSlot), are put back in their schedule's order;
// their wait histograms merge; the load generators' memory (ClientRSSKB)
// adds, being what the whole crowd cost on the load side.
func JoinCrowds(parts []result.Crowd) (result.Crowd, error) {
	if len(parts) == 0 {
		return result.Crowd{}, errors.New("join: no crowds")
	}
	bgs := make([]result.Run, len(parts))
	j := parts[0]
	j.Visitors, j.Probes, j.GaveUp, j.ClientRSSKB = 0, nil, 0, 0
	wait, conn := hdr.New(), hdr.New()
	var outs [result.NumOutcomes]int64
	for i, p := range parts {
		if p.Raw == nil || p.Raw.Wait == nil || p.Raw.Connect == nil {
			return result.Crowd{}, fmt.Errorf("join: share %d of the crowd has no histograms", i+1)
		}
		bgs[i] = p.Background
		j.Visitors += p.Visitors
		j.Probes = append(j.Probes, p.Probes...)
		j.GaveUp += p.GaveUp
		j.ClientRSSKB += p.ClientRSSKB
		for o, n := range p.ProbeOutcomes.Array() {
			outs[o] += n
		}
		wait.Merge(p.Raw.Wait)
		conn.Merge(p.Raw.Connect)
	}
	bg, err := JoinRuns(bgs)
	if err != nil {
		return result.Crowd{}, err
	}
	sort.SliceStable(j.Probes, func(a, b int) bool { return j.Probes[a].At < j.Probes[b].At })
	j.Background, j.ProbeOutcomes = bg, result.FromArray(outs)
	j.Window = joinWindows(parts, bg)
	j.Wait, j.ConnectWait = Summary(wait, true), Summary(conn, false)
	j.Raw = &result.CrowdRaw{Wait: wait, Connect: conn}
	return j, nil
}

// joinWindows is the crowd's window of its shares, each moved from its own
// start to the joined one: complete when the last share was, stopped when
// the first did, newcomers from the first share's to the last one's end.
// Nil if a share has none (recorded before it was).
func joinWindows(parts []result.Crowd, joined result.Run) *result.CrowdWindow {
	origin := func(r result.Run) (time.Time, bool) {
		s, err := time.Parse(time.RFC3339Nano, r.Start)
		return s.Add(-time.Duration(r.WarmupMs * float64(time.Millisecond))), err == nil
	}
	o, ok := origin(joined)
	if !ok {
		return nil
	}
	var j *result.CrowdWindow
	for _, p := range parts {
		po, ok := origin(p.Background)
		if p.Window == nil || !ok {
			return nil
		}
		w := *p.Window
		d := ms(po.Sub(o))
		w.CompleteMs, w.ProbeStartMs, w.FirstProbeMs, w.LastProbeEndMs, w.StoppedMs = w.CompleteMs+d, w.ProbeStartMs+d, w.FirstProbeMs+d, w.LastProbeEndMs+d, w.StoppedMs+d
		if j == nil {
			j = &w
			continue
		}
		j.CompleteMs, j.LastProbeEndMs = max(j.CompleteMs, w.CompleteMs), max(j.LastProbeEndMs, w.LastProbeEndMs)
		j.ProbeStartMs, j.FirstProbeMs, j.StoppedMs = min(j.ProbeStartMs, w.ProbeStartMs), min(j.FirstProbeMs, w.FirstProbeMs), min(j.StoppedMs, w.StoppedMs)
	}
	return j
}
