package benchgen

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/wptest/wptest/bench/hdr"
	"github.com/wptest/wptest/bench/result"
)

// CrowdConfig is the crowd scenario: Visitors hold keep-alive connections and
// click every ClickEvery (paced from their intended click times); every
// ProbeEvery a new visitor opens a fresh connection and asks for ProbeURL; a
// probe with no answer within GiveUp gave up, and is counted.
type CrowdConfig struct {
	Base       Config // URL, Proto, TLS settings, headers for the background clicks
	ProbeURL   string // "" = Base.URL
	Visitors   int
	ClickEvery time.Duration // default 10 s
	ProbeEvery time.Duration // default 0.5 s
	GiveUp     time.Duration // default 30 s
	// Warmup lets the crowd connect before probes start: each visitor's
	// first click falls in the first ClickEvery, so a warm-up shorter than
	// that is raised to it (the record says so:
	// CrowdWindow.WarmupRaisedFromMs); default ClickEvery. Duration is the
	// newcomers' schedule (default 30 s); the crowd keeps clicking until
	// the last newcomer has been answered or has given up.
	Warmup, Duration time.Duration
	// ProbeSlot of ProbeSlots: with several load generators, this one sends
	// newcomers ProbeSlot, ProbeSlot+ProbeSlots, ... of the schedule, so
	// together they keep one newcomer every ProbeEvery (0 of 0: all).
	ProbeSlot, ProbeSlots int
	// Hold, with several load generators, waits at a stage (HoldComplete,
	// HoldProbed) until every share has come to it: the newcomers of any
	// share start once every share's crowd is complete, and every share's
	// crowd clicks until the last newcomer of any share has been answered
	// or has given up. nil: this share is the whole crowd.
	Hold func(ctx context.Context, stage string) error
}

// withDefaults is cc with its defaults, and the warm-up asked for if it
// was raised to ClickEvery (else 0).
func (cc CrowdConfig) withDefaults() (CrowdConfig, time.Duration) {
	if cc.ClickEvery <= 0 {
		cc.ClickEvery = 10 * time.Second
	}
	if cc.ProbeEvery <= 0 {
		cc.ProbeEvery = 500 * time.Millisecond
	}
	if cc.GiveUp <= 0 {
		cc.GiveUp = DefaultTimeout
	}
	if cc.Duration <= 0 {
		cc.Duration = 30 * time.Second
	}
	var raisedFrom time.Duration
	switch {
	case cc.Warmup <= 0:
		cc.Warmup = cc.ClickEvery
	case cc.Warmup < cc.ClickEvery:
		raisedFrom, cc.Warmup = cc.Warmup, cc.ClickEvery
	}
	return cc, raisedFrom
}

// plan is cc's background run (open loop, one click per visitor every
// ClickEvery, ended by the crowd) and its newcomers' request.
func (cc CrowdConfig) plan() (Config, *target, error) {
	if cc.Visitors <= 0 {
		return Config{}, nil, fmt.Errorf("crowd: need at least one background visitor")
	}
	if cc.ProbeSlots < 0 || cc.ProbeSlot < 0 || cc.ProbeSlot >= max(cc.ProbeSlots, 1) {
		return Config{}, nil, fmt.Errorf("crowd: probe slot %d of %d", cc.ProbeSlot, cc.ProbeSlots)
	}
	bg := cc.Base
	bg.StartAt = time.Time{} // waited for by Crowd
	bg.Name = "background"
	bg.Visitors = cc.Visitors
	bg.KeepAlive = true
	bg.Rate = float64(cc.Visitors) / cc.ClickEvery.Seconds()
	bg.Warmup, bg.Duration, bg.Requests = cc.Warmup, 0, 0 // its window ends when the crowd stops it
	bg.Timeout = cc.GiveUp
	pb := cc.Base
	if cc.ProbeURL != "" {
		pb.URL = cc.ProbeURL
	}
	pb.KeepAlive = false
	pt, err := newTarget(&pb)
	if err != nil {
		return Config{}, nil, err
	}
	if _, err := newTarget(&bg); err != nil {
		return Config{}, nil, err
	}
	// The crowd's connections and the newcomers that may be waiting at once.
	waiting := int(cc.GiveUp/cc.ProbeEvery) + 1
	if err := ensureFiles(cc.Visitors+waiting, fmt.Sprintf("%d visitors and up to %d newcomers waiting at once", cc.Visitors, waiting)); err != nil {
		return Config{}, nil, err
	}
	return bg, pt, nil
}

// Crowd runs the crowd scenario. The crowd connects first, each visitor's
// first click spread over one ClickEvery; the newcomers' schedule starts
// once the warm-up is over and every visitor has clicked once (on every
// share: Hold), and the crowd keeps clicking until the last newcomer (of
// every share) has been answered or has given up. It returns when the
// crowd's clicks in flight have ended too.
func Crowd(ctx context.Context, cc CrowdConfig) (result.Crowd, error) {
	cc, raisedFrom := cc.withDefaults()
	bg, pt, err := cc.plan()
	if err != nil {
		return result.Crowd{}, err
	}
	if err := waitUntil(ctx, cc.Base.StartAt); err != nil {
		return result.Crowd{}, err
	}
	c := startCrowd(ctx, cc, bg)
	var ps probeSet
	p0, ok := c.awaitComplete(ctx)
	if ok {
		ps = sendProbes(ctx, cc, pt, p0)
		// The other shares' newcomers may not have ended: this crowd is
		// theirs too. A cancel ends the wait, and the run.
		_ = cc.hold(ctx, HoldProbed)
	}
	c.end()
	if c.err != nil {
		return result.Crowd{}, c.err
	}
	cr := c.result(ps)
	if ok && !c.hooks.stoppedAt.IsZero() { // not cut short by a cancel
		cr.Window = c.window(ps, p0, raisedFrom)
	}
	return cr, nil
}

// crowdRun is the crowd's background run and what it told of its start.
type crowdRun struct {
	cc      CrowdConfig
	hooks   runHooks
	started chan struct{} // closed once origin is set
	origin  time.Time     // the background schedule's origin

	mu       sync.Mutex
	clicked  int           // visitors that made their first click
	complete time.Time     // the latest of their first clicks
	all      chan struct{} // closed when every visitor has clicked once

	stop chan struct{}
	done chan struct{} // closed when the background run returned run, err
	run  result.Run
	err  error
}

func startCrowd(ctx context.Context, cc CrowdConfig, bg Config) *crowdRun {
	c := &crowdRun{cc: cc, started: make(chan struct{}), all: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	c.hooks = runHooks{started: c.setOrigin, firstClick: c.firstClick, stop: c.stop}
	bg.hooks = &c.hooks
	go func() {
		defer close(c.done)
		c.run, c.err = Run(ctx, bg)
	}()
	return c
}

func (c *crowdRun) setOrigin(t time.Time) {
	c.origin = t
	close(c.started)
}

func (c *crowdRun) firstClick(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clicked++
	if at.After(c.complete) {
		c.complete = at
	}
	if c.clicked == c.cc.Visitors {
		close(c.all)
	}
}

// awaitComplete waits for the newcomers' schedule start: the warm-up over,
// every visitor clicked once, and every other share's too (Hold). Not ok:
// the run was cancelled, or the background run ended first (its error).
func (c *crowdRun) awaitComplete(ctx context.Context) (time.Time, bool) {
	select {
	case <-c.started:
	case <-c.done:
		return time.Time{}, false
	}
	select {
	case <-c.all:
	case <-c.done:
		return time.Time{}, false
	case <-ctx.Done():
		return time.Time{}, false
	}
	if c.cc.hold(ctx, HoldComplete) != nil {
		return time.Time{}, false
	}
	held := time.Now()
	p0 := c.origin.Add(c.cc.Warmup)
	c.mu.Lock()
	if c.complete.After(p0) {
		p0 = c.complete
	}
	c.mu.Unlock()
	if c.cc.Hold != nil && held.After(p0) {
		p0 = held // another share's crowd was complete later
	}
	return p0, waitUntil(ctx, p0) == nil
}

// hold waits at stage for the other shares (none: at once).
func (cc CrowdConfig) hold(ctx context.Context, stage string) error {
	if cc.Hold == nil {
		return nil
	}
	if err := cc.Hold(ctx, stage); err != nil {
		return fmt.Errorf("crowd: wait for the other load generators (%s): %w", stage, err)
	}
	return nil
}

// end stops the crowd and waits for its clicks in flight.
func (c *crowdRun) end() {
	close(c.stop)
	<-c.done
}

// probeSet is the newcomers a load generator sent, in schedule order.
type probeSet struct {
	probes     []result.Probe
	outs       []result.Outcome
	wait, conn *hdr.Histogram
	lastEnd    time.Time
}

// sendProbes sends this load generator's share of the newcomers, one
// every ProbeEvery from p0 for Duration, and waits for the last.
func sendProbes(ctx context.Context, cc CrowdConfig, pt *target, p0 time.Time) probeSet {
	slots := max(cc.ProbeSlots, 1)
	n := (int(cc.Duration/cc.ProbeEvery) - cc.ProbeSlot + slots - 1) / slots // this generator's share of the schedule
	n = max(n, 0)
	ps := probeSet{probes: make([]result.Probe, n), outs: make([]result.Outcome, n), wait: hdr.New(), conn: hdr.New()}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range n {
		at := p0.Add(time.Duration(cc.ProbeSlot+i*slots) * cc.ProbeEvery)
		if waitUntil(ctx, at) != nil {
			n = i
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, a := probe(ctx, cc, pt, at, p0)
			mu.Lock()
			defer mu.Unlock()
			ps.probes[i], ps.outs[i] = p, a.outcome
			if a.gotHead {
				ps.wait.Record(a.end.Sub(at))
			}
			if a.newConn {
				ps.conn.Record(a.connect)
			}
			if a.end.After(ps.lastEnd) {
				ps.lastEnd = a.end
			}
		}()
	}
	wg.Wait()
	ps.probes, ps.outs = ps.probes[:n], ps.outs[:n]
	return ps
}

// probe is one newcomer, intended at at: a fresh connection, one request,
// GiveUp to be answered (a cancel does not cut it short: it is counted).
func probe(ctx context.Context, cc CrowdConfig, pt *target, at, p0 time.Time) (result.Probe, attempt) {
	c := pt.newClient()
	defer c.close()
	a := attempt{start: at}
	c.do(context.WithoutCancel(ctx), at.Add(cc.GiveUp), &a)
	p := result.Probe{At: ms(at.Sub(p0)), Outcome: a.outcome.String(), Status: a.status,
		ConnectMs: ms(a.connect), TotalMs: ms(a.end.Sub(at))}
	if !a.firstByte.IsZero() {
		p.TTFBMs = ms(a.firstByte.Sub(a.sent))
	}
	return p, a
}

// result is the crowd's record: its background run and the newcomers.
func (c *crowdRun) result(ps probeSet) result.Crowd {
	var counts [result.NumOutcomes]int64
	var gaveUp int64
	for _, o := range ps.outs {
		counts[o]++
		if o == result.ReadTimeout || o == result.ConnectTimeout {
			gaveUp++
		}
	}
	cc := c.cc
	if ps.wait == nil {
		ps.wait, ps.conn = hdr.New(), hdr.New()
	}
	cr := result.Crowd{
		Visitors: cc.Visitors, ClickEveryMs: ms(cc.ClickEvery), ProbeEveryMs: ms(cc.ProbeEvery), GiveUpMs: ms(cc.GiveUp),
		Background: c.run, Probes: ps.probes, ProbeOutcomes: result.FromArray(counts), GaveUp: gaveUp,
		Wait: Summary(ps.wait, true), ConnectWait: Summary(ps.conn, false), ClientRSSKB: selfHWM(),
	}
	if cc.Base.Raw {
		cr.Raw = &result.CrowdRaw{Wait: ps.wait, Connect: ps.conn}
	}
	return cr
}

// window is when the crowd was on the site, beside the newcomers' times.
func (c *crowdRun) window(ps probeSet, p0 time.Time, raisedFrom time.Duration) *result.CrowdWindow {
	from := func(t time.Time) float64 { return ms(t.Sub(c.origin)) }
	w := &result.CrowdWindow{WarmupMs: ms(c.cc.Warmup), WarmupRaisedFromMs: ms(raisedFrom), CompleteMs: from(c.complete),
		ProbeStartMs: from(p0), FirstProbeMs: from(p0), LastProbeEndMs: from(p0), StoppedMs: from(c.hooks.stoppedAt)}
	if len(ps.probes) > 0 {
		w.FirstProbeMs = w.ProbeStartMs + ps.probes[0].At
		w.LastProbeEndMs = from(ps.lastEnd)
	}
	return w
}
