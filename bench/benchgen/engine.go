// Package benchgen is wptest's load generator. Every visitor owns one
// connection (h1: a hand-written HTTP/1.1 client on net.Conn; h2/h2c: a
// hand-written HTTP/2 client, one stream at a time; h3: quic-go http3
// ClientConn); no connection is pooled and nothing is retried. Counts and
// HDR histograms are kept per shard of visitors and merged exactly. Every
// attempt started in the measured window ends in exactly one outcome
// bucket, and an attempt still in flight when the window closes is waited
// for (up to its timeout) and counted. Closed loop (N visitors, each sends
// when its answer came) and open loop (a constant arrival rate, latency
// from the intended send time, so no coordinated omission) are both
// available, and every result names its model. An open-loop visitor
// between attempts holds its connection and a timer, not a goroutine or a
// read buffer (h1, h2/h2c), so a crowd of idle visitors is cheap.
package benchgen

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/wptest/wptest/bench/hdr"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/internal/redact"
)

// idleCheckAfter: a kept h1 connection over TLS idle longer than this is
// checked for a server-side close before it is used (only after a gap, so it
// costs nothing in a tight closed loop; cleartext is checked every time, at
// the cost of one read).
const idleCheckAfter = 50 * time.Millisecond

// DefaultTimeout bounds one attempt: no complete answer within it is a
// failure (the cPanel vs corehttpd post's "no answer within 30 s = gave up").
const DefaultTimeout = 30 * time.Second

// Config is one load run.
type Config struct {
	Name   string
	URL    string
	Method string   // GET (default) or HEAD
	Proto  string   // h1 (default), h2, h2c, h3
	Header []string // extra request headers, "Name: value"
	// HTTP10 sends h1 requests as HTTP/1.0, as ab does (with keep-alive,
	// "Connection: Keep-Alive"), so the server does ab's work; a connection
	// is then kept only when the answer says keep-alive.
	HTTP10 bool
	// Visitors: closed loop, the N; open loop, the connections the rate is spread over.
	Visitors  int
	KeepAlive bool
	// Stop after Requests attempts (counted in the window), or after Duration.
	Requests int64
	Duration time.Duration
	Warmup   time.Duration
	// Rate > 0 makes the run open loop: Rate attempts per second, spread over
	// Visitors connections (each visitor sends at Rate/Visitors).
	Rate    float64
	Timeout time.Duration // per attempt (default 30 s)
	// TLS for https URLs: ServerName is always set (from the URL host, or
	// ServerName here); Insecure skips certificate verification (a test CA).
	ServerName string
	Insecure   bool
	RootCAs    *x509.CertPool // verify against these instead of the system roots
	// Progress, if set, is called about once a second with the attempts ended so far.
	Progress func(done int64, elapsed time.Duration)
	// StartAt, if set, is when the run starts (its warm-up first), on this
	// machine's clock: several load generators start one run together.
	StartAt time.Time
	// Raw keeps the run's histograms in the result (result.Run.Raw), for
	// merging with other load generators' shares of the same run.
	Raw bool
	// hooks: the crowd's say over its background run (nil: none).
	hooks *runHooks
}

// target is the parsed, prebuilt request.
type target struct {
	url       *url.URL
	proto     string
	addr      string
	method    string
	h1req     []byte
	header    http.Header
	tls       *tls.Config
	keepAlive bool
	http10    bool
}

func newTarget(cfg *Config) (*target, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("url %q: want http:// or https:// with a host: %s", redact.URLs(cfg.URL), redact.URLs(err.Error()))
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("url %q: want http:// or https:// with a host", redact.URLs(cfg.URL))
	}
	t := &target{url: u, proto: cfg.Proto, method: cfg.Method, keepAlive: cfg.KeepAlive, http10: cfg.HTTP10, header: http.Header{}}
	if t.proto == "" {
		t.proto = "h1"
	}
	if t.method == "" {
		t.method = "GET"
	}
	if t.method != "GET" && t.method != "HEAD" {
		return nil, fmt.Errorf("method %q: only GET and HEAD", t.method)
	}
	if t.http10 && t.proto != "h1" {
		return nil, fmt.Errorf("HTTP/1.0 requests only with proto h1, not %s", t.proto)
	}
	switch t.proto {
	case "h1":
	case "h2", "h3":
		if u.Scheme != "https" {
			return nil, fmt.Errorf("proto %s needs an https:// URL (use h2c for cleartext HTTP/2)", t.proto)
		}
	case "h2c":
		if u.Scheme != "http" {
			return nil, fmt.Errorf("proto h2c needs an http:// URL")
		}
	default:
		return nil, fmt.Errorf("proto %q: want h1, h2, h2c or h3", t.proto)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	t.addr = net.JoinHostPort(u.Hostname(), port)
	if u.Scheme == "https" {
		sn := cfg.ServerName
		if sn == "" {
			sn = u.Hostname()
		}
		// SNI always set: Caddy picks its certificate by it, and an IP URL
		// would otherwise send none.
		t.tls = &tls.Config{ServerName: sn, InsecureSkipVerify: cfg.Insecure, MinVersion: tls.VersionTLS12}
		if cfg.RootCAs != nil {
			t.tls.RootCAs = cfg.RootCAs
		}
	}
	var b strings.Builder
	path := u.RequestURI()
	version := "1.1"
	if t.http10 {
		version = "1.0"
	}
	fmt.Fprintf(&b, "%s %s HTTP/%s\r\nHost: %s\r\nUser-Agent: wptest-bench\r\n", t.method, path, version, u.Host)
	switch {
	case t.http10 && cfg.KeepAlive:
		b.WriteString("Connection: Keep-Alive\r\n") // ab's spelling
	case !t.http10 && !cfg.KeepAlive:
		b.WriteString("Connection: close\r\n") // HTTP/1.0 closes by default
	}
	t.header.Set("User-Agent", "wptest-bench")
	for _, h := range cfg.Header {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" || strings.ContainsAny(h, "\r\n") {
			return nil, fmt.Errorf("header %q: want \"Name: value\"", h)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		t.header.Add(k, v)
	}
	b.WriteString("\r\n")
	t.h1req = []byte(b.String())
	return t, nil
}

// client is one visitor's connection, whatever the protocol.
type client interface {
	do(ctx context.Context, deadline time.Time, a *attempt)
	close()
	wire() (in, out int64)
}

func (t *target) newClient() client {
	switch t.proto {
	case "h2", "h2c":
		return newH2(t)
	case "h3":
		return newH3(t)
	}
	return newH1(t)
}

// attempt is one request from start to its single outcome.
type attempt struct {
	outcome                result.Outcome
	err                    error
	status                 int
	start                  time.Time // closed loop: when sent; open loop: intended send time
	sent, firstByte, end   time.Time
	connect                time.Duration
	newConn, reused        bool
	gotHead                bool
	kaClose, kaCloseBefore bool
	headerBytes, bodyBytes int64
	// onSent, if set, is told when the request is sent (its connection open).
	onSent func(time.Time)
}

func (a *attempt) markSent(t time.Time) {
	a.sent = t
	if a.onSent != nil {
		a.onSent(t)
	}
}

func (a *attempt) fail(err error, ph phase) {
	a.err = err
	a.outcome = classify(err, ph)
	if a.end.IsZero() {
		a.end = time.Now()
	}
}

func (a *attempt) finish() {
	if a.end.IsZero() {
		a.end = time.Now()
	}
	switch s := a.status; {
	case s >= 200 && s < 300:
		a.outcome = result.OK
	case s >= 300 && s < 400:
		a.outcome = result.HTTP3xx
	case s >= 400 && s < 500:
		a.outcome = result.HTTP4xx
	case s >= 500 && s < 600:
		a.outcome = result.HTTP5xx
	default:
		a.outcome = result.HTTP1xx
	}
}

// stats is one shard's counts: a few visitors share it (shardFor), so a
// crowd of idle visitors does not carry a set of histograms each; merged
// exactly after the run (counts add, histograms merge bucket by bucket).
type stats struct {
	mu                     sync.Mutex
	lat, conn, ttfb, queue *hdr.Histogram
	out                    [result.NumOutcomes]int64
	wireIn, wireOut        int64
	headers, body          int64
	conns, kaCloses, kaReq int64
	warm                   int64
	lastEnd                time.Time
	errs                   map[errKey]int64
}

type errKey struct {
	o   result.Outcome
	msg string
}

func newStats() *stats {
	return &stats{lat: hdr.New(), conn: hdr.New(), ttfb: hdr.New(), queue: hdr.New(), errs: map[errKey]int64{}}
}

const maxErrSamples = 4

func (s *stats) add(a *attempt, wIn, wOut int64, open bool) {
	s.out[a.outcome]++
	s.wireIn += wIn
	s.wireOut += wOut
	s.headers += a.headerBytes
	s.body += a.bodyBytes
	if a.newConn {
		s.conns++
		s.conn.Record(a.connect)
	}
	if a.kaClose {
		s.kaCloses++
	}
	if a.kaCloseBefore {
		s.kaCloses++
	}
	if a.gotHead {
		s.lat.Record(a.end.Sub(a.start))
		if !a.firstByte.IsZero() {
			s.ttfb.Record(a.firstByte.Sub(a.sent))
		}
		if a.reused {
			s.kaReq++
		}
	}
	if open && !a.sent.IsZero() {
		s.queue.Record(a.sent.Sub(a.start))
	}
	if a.end.After(s.lastEnd) {
		s.lastEnd = a.end
	}
	if a.err != nil {
		k := errKey{a.outcome, a.err.Error()}
		if _, ok := s.errs[k]; ok || len(s.errs) < maxErrSamples*int(result.NumOutcomes) {
			s.errs[k]++
		}
	}
}

// Run runs one load run and returns its result. An error means the run could
// not run at all (bad config); failed attempts are counted, not returned.
func Run(ctx context.Context, cfg Config) (result.Run, error) {
	t, err := prepare(&cfg)
	if err != nil {
		return result.Run{}, err
	}
	if err := waitUntil(ctx, cfg.StartAt); err != nil {
		return result.Run{}, err
	}
	rs := newRunState(ctx, t, &cfg, time.Now())
	if h := cfg.hooks; h != nil && h.started != nil {
		h.started(rs.start)
	}
	cpu := rs.windowCPU()
	shards := make([]*stats, numShards(cfg.Visitors))
	for i := range shards {
		shards[i] = newStats()
	}
	waiting := rs.startVisitors(shards)
	if rs.open {
		// A cancelled run ends its waiting visitors at once.
		stop := context.AfterFunc(ctx, func() { stopWaiting(waiting) })
		defer stop()
	}
	endWatch := rs.watchStop(waiting)
	endProgress := rs.progress()
	rs.wg.Wait()
	endProgress()
	endWatch()
	return merge(&cfg, t, rs.open, shards, rs.winStart, cpu()), nil
}

// runHooks let the crowd steer its background run: started is told the
// schedule's origin, firstClick each visitor's first send (once each: its
// connection open, its first click on the way; or its end, if it failed
// unsent), and a close of stop ends the window then: nothing intended
// after it is sent, waiting visitors end at once, clicks in flight are
// waited for.
type runHooks struct {
	started    func(origin time.Time)
	firstClick func(at time.Time)
	stop       <-chan struct{}
	stoppedAt  time.Time // set by the run: its window's end, once stop ended it
}

// prepare checks cfg and fills in its defaults; the target is its request.
func prepare(cfg *Config) (*target, error) {
	t, err := newTarget(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Visitors <= 0 {
		cfg.Visitors = 1
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Requests <= 0 && cfg.Duration <= 0 && (cfg.hooks == nil || cfg.hooks.stop == nil) {
		return nil, errors.New("give a number of requests or a duration")
	}
	if err := checkNumbers(*cfg); err != nil {
		return nil, err
	}
	if err := ensureFiles(cfg.Visitors, fmt.Sprintf("%d connections", cfg.Visitors)); err != nil {
		return nil, err
	}
	if cfg.Rate > 0 && cfg.Requests > 0 && cfg.Duration <= 0 {
		cfg.Duration = time.Duration(float64(cfg.Requests) / cfg.Rate * float64(time.Second))
	}
	return t, nil
}

// newRunState is the state a run's visitors share, the run starting at start.
func newRunState(ctx context.Context, t *target, cfg *Config, start time.Time) *runState {
	rs := &runState{t: t, cfg: cfg, ctx: ctx, open: cfg.Rate > 0, done: new(atomic.Int64), winStart: start.Add(cfg.Warmup),
		budget: new(atomic.Int64), start: start, wg: new(sync.WaitGroup)}
	rs.budget.Store(cfg.Requests)
	if cfg.Duration > 0 {
		end := rs.winStart.Add(cfg.Duration)
		rs.end.Store(&end)
	}
	if rs.open {
		// No two intended sends of a visitor closer than a nanosecond
		// (time's unit): at any higher rate the schedule is that dense,
		// and still advances, so it ends with its window.
		rs.step = max(float64(time.Second)/cfg.Rate, 1)
	}
	return rs
}

// windowCPU snapshots the client's CPU when the warm-up ends; the function
// it returns is the CPU used and waited for since (call it once the run is
// over).
func (rs *runState) windowCPU() func() clientUse { return windowUse(rs.cfg.Warmup) }

// windowUse is windowCPU for a window that starts warmup from now.
func windowUse(warmup time.Duration) func() clientUse {
	var u0 clientUse
	var once sync.Once
	snap := func() { once.Do(func() { u0 = selfUse() }) }
	if warmup <= 0 {
		snap()
		return func() clientUse { return selfUse().since(u0) }
	}
	tm := time.AfterFunc(warmup, snap)
	return func() clientUse {
		tm.Stop()
		snap()
		return selfUse().since(u0)
	}
}

// startVisitors starts every visitor: closed loop, a goroutine each; open
// loop, a timer each, returned (the visitors that wait on their timers).
func (rs *runState) startVisitors(shards []*stats) []*visitor {
	rs.wg.Add(rs.cfg.Visitors)
	var waiting []*visitor
	for i := range rs.cfg.Visitors {
		v := &visitor{runState: rs, c: rs.t.newClient(), st: shards[i%len(shards)], i: i}
		if rs.open {
			waiting = append(waiting, v)
			// Made first, started after: its run may come at once and uses v.timer.
			v.timer = time.AfterFunc(time.Duration(math.MaxInt64), v.wake)
			v.timer.Reset(time.Until(v.at(0)))
			continue
		}
		go func() {
			defer rs.wg.Done()
			defer v.c.close()
			v.closedLoop(rs.ctx)
		}()
	}
	return waiting
}

// stopWaiting ends the visitors waiting on their timers: a timer stopped
// before it fired leaves its visitor to us (nobody else runs it).
func stopWaiting(waiting []*visitor) {
	for _, v := range waiting {
		if v.timer.Stop() {
			v.abandon()
		}
	}
}

// watchStop ends the window when the hooks' stop closes; the function it
// returns ends the watch.
func (rs *runState) watchStop(waiting []*visitor) func() {
	h := rs.cfg.hooks
	if h == nil || h.stop == nil {
		return func() {}
	}
	over := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-h.stop:
			rs.endNow()
			h.stoppedAt = rs.winEnd()
			stopWaiting(waiting)
		case <-over:
		}
	}()
	return func() { close(over); wg.Wait() }
}

// progress calls cfg.Progress about once a second; the function it returns
// stops it.
func (rs *runState) progress() func() {
	if rs.cfg.Progress == nil {
		return func() {}
	}
	stop := make(chan struct{})
	go func() {
		tk := time.NewTicker(time.Second)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-tk.C:
				rs.cfg.Progress(rs.done.Load(), now.Sub(rs.start))
			}
		}
	}()
	return func() { close(stop) }
}

// numShards: how many sets of counts a run keeps. Up to 4 per CPU every
// visitor has its own (a closed loop's visitors never wait on each other's
// lock); beyond that visitors share them, so a crowd of 100,000 costs the
// same few sets of histograms as one of 16.
func numShards(visitors int) int {
	return max(1, min(visitors, 4*runtime.GOMAXPROCS(0)))
}

// runState is what a run's visitors share.
type runState struct {
	t        *target
	cfg      *Config
	ctx      context.Context
	open     bool
	done     *atomic.Int64
	winStart time.Time
	end      atomic.Pointer[time.Time] // the window's end (winEnd)
	budget   *atomic.Int64
	wg       *sync.WaitGroup
	start    time.Time // open loop: the schedule's origin
	step     float64   // open loop: ns between two intended sends (1/rate)
}

// winEnd is the window's end: planned (Duration), or earlier once the run
// was stopped (runHooks.stop); zero: -n mode without a time limit.
func (rs *runState) winEnd() time.Time {
	if e := rs.end.Load(); e != nil {
		return *e
	}
	return time.Time{}
}

// ended says whether an attempt intended at at falls after the window.
func (rs *runState) ended(at time.Time) bool {
	e := rs.winEnd()
	return !e.IsZero() && !at.Before(e)
}

// endNow ends the window now, unless it ended before.
func (rs *runState) endNow() {
	now := time.Now()
	for {
		old := rs.end.Load()
		if old != nil && !old.After(now) || rs.end.CompareAndSwap(old, &now) {
			return
		}
	}
}

// visitor is one connection and its place in the schedule. A closed-loop
// visitor is a goroutine that sends as soon as its answer came. An
// open-loop visitor waits for its next intended time on a runtime timer,
// not in a goroutine: while it only holds its connection it costs the
// connection and this struct, and a goroutine runs (started by the timer)
// only while its attempts do.
type visitor struct {
	*runState
	c  client
	st *stats
	i  int // its index among the visitors
	// clicked: its first attempt was made (runHooks.firstClick was told).
	clicked bool

	// Open loop only.
	timer *time.Timer
	k     int       // the next intended send is the k-th of this visitor
	due   time.Time // the admitted intended time the timer waits for
	// waiting says the timer waits for an admitted attempt (waitCounted:
	// one in the window); whoever takes it (the timer's run, or a cancel
	// that stopped the timer) takes it with a Swap, so exactly once.
	waiting atomic.Int32
}

const (
	waitNone = iota
	waitWarm
	waitCounted
)

// admit decides whether an attempt starting at at is made, and whether it
// counts (false during warm-up).
func (v *visitor) admit(ctx context.Context, at time.Time) (run, counted bool) {
	if ctx.Err() != nil {
		return false, false
	}
	if at.Before(v.winStart) {
		return true, false
	}
	if v.ended(at) {
		return false, false
	}
	if v.cfg.Requests > 0 && v.budget.Add(-1) < 0 {
		return false, false
	}
	return true, true
}

func (v *visitor) closedLoop(ctx context.Context) {
	a := new(attempt) // reused: one allocation per visitor, not per request
	for {
		now := time.Now()
		run, counted := v.admit(ctx, now)
		if !run {
			return
		}
		*a = attempt{start: now}
		v.one(ctx, a, now.Add(v.cfg.Timeout), counted)
	}
}

// at is the open loop's k-th intended send of this visitor: visitor i of N
// sends at start + (i + k·N)/rate.
func (v *visitor) at(k int) time.Time {
	return v.start.Add(time.Duration(float64(v.i+k*v.cfg.Visitors) * v.step))
}

// wake is the open loop, run by the visitor's timer in a goroutine of its
// own: the attempt it waited for, any others already due, then the timer
// again for the next one (or the visitor's end). When the connection is
// still busy at an intended time the attempt waits, and its latency runs
// from the intended time.
func (v *visitor) wake() {
	if w := v.waiting.Swap(waitNone); w != waitNone {
		if v.ctx.Err() != nil || v.ended(v.due) {
			// Not yet due when the run was cancelled or stopped: never started.
			v.giveBack(w)
			v.finish()
			return
		}
		v.attemptAt(v.due, w == waitCounted)
	}
	for {
		at := v.at(v.k)
		if v.skipExpired(at) {
			continue
		}
		run, counted := v.admit(v.ctx, at)
		if !run {
			v.finish()
			return
		}
		if v.windowOver(counted) {
			continue
		}
		v.k++
		if d := time.Until(at); d > 0 {
			v.due = at
			w := int32(waitWarm)
			if counted {
				w = waitCounted
			}
			v.waiting.Store(w)
			v.timer.Reset(d)
			// A cancel or stop that came before the Reset found no timer to stop.
			if (v.ctx.Err() != nil || v.ended(at)) && v.timer.Stop() {
				v.abandon()
			}
			return
		}
		v.attemptAt(at, counted)
	}
}

// index is the first k whose intended send at(k) is not before t.
func (v *visitor) index(t time.Time) int {
	k := int(math.Ceil((float64(t.Sub(v.start))/v.step - float64(v.i)) / float64(v.cfg.Visitors)))
	k = max(k, 0)
	for k > 0 && !v.at(k-1).Before(t) {
		k--
	}
	for v.at(k).Before(t) {
		k++
	}
	return k
}

// skipExpired moves a visitor that is behind its schedule past the sends it
// can no longer make, all at once: intended warm-up sends once the warm-up
// is over (not counted), and sends whose deadline (intended time plus the
// timeout) has passed, each a queue timeout as attemptAt would count it.
// One at a time, a dense schedule (a rate no machine keeps) would take
// longer than any window to count; this way the run ends by its window's
// end plus the timeout whatever the rate. It says whether it moved.
func (v *visitor) skipExpired(at time.Time) bool {
	now := time.Now()
	if at.After(now) {
		return false
	}
	if at.Before(v.winStart) {
		if now.Before(v.winStart) {
			// Warm-up: drop only the expired sends (attemptAt would not
			// count them either).
			if k := v.index(now.Add(-v.cfg.Timeout)); k > v.k {
				v.k = k
				return true
			}
			return false
		}
		v.k = max(v.k+1, v.index(v.winStart))
		return true
	}
	if !at.Add(v.cfg.Timeout).Before(now) {
		return false
	}
	k := v.index(now.Add(-v.cfg.Timeout))
	if end := v.winEnd(); !end.IsZero() {
		k = min(k, v.index(end))
	}
	n := int64(k - v.k)
	if n <= 0 {
		return false
	}
	v.k = k
	if v.cfg.Requests > 0 {
		// Only as many as the -n budget has left.
		if left := v.budget.Add(-n); left < 0 {
			n = max(0, n+left)
		}
	}
	v.countUnsent(n, errNoConnection)
	return true
}

// countUnsent counts n sends the schedule intended that never left this
// machine, queue timeouts (err says why), all at once.
func (v *visitor) countUnsent(n int64, err error) {
	if n <= 0 {
		return
	}
	now := time.Now()
	key := errKey{result.QueueTimeout, err.Error()}
	v.st.mu.Lock()
	v.st.out[result.QueueTimeout] += n
	if now.After(v.st.lastEnd) {
		v.st.lastEnd = now
	}
	if _, ok := v.st.errs[key]; ok || len(v.st.errs) < maxErrSamples*int(result.NumOutcomes) {
		v.st.errs[key] += n
	}
	v.st.mu.Unlock()
	v.done.Add(n)
}

// windowGrace is how long after its window a visitor behind its schedule
// still sends what the window intended (at most the attempt's timeout): a
// visitor that keeps its rate but was held up a moment (a busy machine)
// sends its last few late, with their lateness in their latency, rather
// than dropping them.
const windowGrace = time.Second

// pastGrace says whether the window, and the grace after it, are over.
func (v *visitor) pastGrace() bool {
	e := v.winEnd()
	return !e.IsZero() && !time.Now().Before(e.Add(min(windowGrace, v.cfg.Timeout)))
}

// windowOver decides about the send at v.k, due and intended in the
// window (admitted, counted as admit said), once the window and its grace
// are over (windowGrace): the visitor is still behind its schedule. That
// send and every other of the window it has not started count at once,
// queue timeouts that never left this machine, and it says so (true: v.k
// moved past them). So a run ends within its window, the grace and one
// attempt, whatever the rate: before, a rate this machine could not keep
// (1e308/s) made it send on for its whole timeout after the window,
// sending all it could (30 s; against a port that refuses, one refused
// dial after another).
func (v *visitor) windowOver(counted bool) bool {
	if !v.pastGrace() {
		return false
	}
	k := v.index(v.winEnd())
	extra := int64(k - v.k - 1) // the others after this one, which admit already took
	v.k = k
	if extra > 0 && v.cfg.Requests > 0 {
		if left := v.budget.Add(-extra); left < 0 {
			extra = max(0, extra+left)
		}
	}
	n := extra
	if counted {
		n++
	}
	v.countUnsent(n, errWindowOver)
	return true
}

// abandon ends an open-loop visitor whose timer was stopped before it fired.
func (v *visitor) abandon() {
	v.giveBack(v.waiting.Swap(waitNone))
	v.finish()
}

// giveBack returns an admitted attempt that never started to the -n budget.
func (v *visitor) giveBack(w int32) {
	if w == waitCounted && v.cfg.Requests > 0 {
		v.budget.Add(1)
	}
}

func (v *visitor) finish() {
	v.c.close()
	v.wg.Done()
}

// errNoConnection and errWindowOver are a queue timeout's errors.
var (
	errNoConnection = errors.New("no free connection before the attempt's deadline")
	errWindowOver   = errors.New("not sent: the window ended with this machine behind its schedule")
)

// attemptAt makes the open loop's attempt intended for at.
func (v *visitor) attemptAt(at time.Time, counted bool) {
	a := attempt{start: at}
	deadline := at.Add(v.cfg.Timeout)
	// Due, but the connection was busy until past the deadline (rare: the
	// previous attempt ends by its own, earlier deadline).
	if time.Now().After(deadline) {
		a.outcome, a.end = result.QueueTimeout, time.Now()
		a.err = errNoConnection
		if counted {
			v.record(&a, 0, 0)
		}
		return
	}
	v.one(v.ctx, &a, deadline, counted)
}

func (v *visitor) one(ctx context.Context, a *attempt, deadline time.Time, counted bool) {
	first := v.firstClick()
	a.onSent = first
	in0, out0 := v.c.wire()
	v.c.do(ctx, deadline, a)
	if first != nil && a.sent.IsZero() {
		first(a.end) // failed unsent: its first click is over all the same
	}
	if !v.t.keepAlive {
		v.c.close()
	}
	in1, out1 := v.c.wire()
	if a.outcome != result.OK && a.sent.IsZero() && ctx.Err() != nil && errors.Is(a.err, context.Canceled) {
		// Cut short by the caller before it reached the server (a dial
		// the cancel ended): not an attempt the server failed, so not
		// counted, as browse does.
		return
	}
	if counted {
		v.record(a, in1-in0, out1-out0)
		return
	}
	v.st.mu.Lock()
	v.st.warm++
	v.st.mu.Unlock()
}

// firstClick is the hook for this visitor's first attempt (nil after it,
// or without one).
func (v *visitor) firstClick() func(time.Time) {
	if v.clicked || v.cfg.hooks == nil {
		return nil
	}
	v.clicked = true
	return v.cfg.hooks.firstClick
}

func (v *visitor) record(a *attempt, wIn, wOut int64) {
	v.st.mu.Lock()
	v.st.add(a, wIn, wOut, v.open)
	v.st.mu.Unlock()
	v.done.Add(1)
}

func merge(cfg *Config, t *target, open bool, shards []*stats, winStart time.Time, use clientUse) result.Run {
	cpu := use.cpu
	m := newStats()
	var lastEnd time.Time
	errs := map[errKey]int64{}
	for _, s := range shards {
		m.lat.Merge(s.lat)
		m.conn.Merge(s.conn)
		m.ttfb.Merge(s.ttfb)
		m.queue.Merge(s.queue)
		for i := range s.out {
			m.out[i] += s.out[i]
		}
		m.wireIn += s.wireIn
		m.wireOut += s.wireOut
		m.headers += s.headers
		m.body += s.body
		m.conns += s.conns
		m.kaCloses += s.kaCloses
		m.kaReq += s.kaReq
		m.warm += s.warm
		if s.lastEnd.After(lastEnd) {
			lastEnd = s.lastEnd
		}
		for k, n := range s.errs {
			errs[k] += n
		}
	}
	elapsed := lastEnd.Sub(winStart)
	if elapsed < 0 {
		elapsed = 0
	}
	model := "closed"
	if open {
		model = "open"
	}
	out := result.FromArray(m.out)
	r := result.Run{
		// A result never holds a URL's userinfo (bench -o json, results.jsonl).
		Name: redact.URLs(cfg.Name), Model: model, Proto: t.proto, URL: redact.URLs(cfg.URL), Method: t.method, HTTP10: t.http10,
		Visitors: cfg.Visitors, KeepAlive: cfg.KeepAlive, Rate: cfg.Rate, Requests: cfg.Requests,
		DurationMs: ms(cfg.Duration), WarmupMs: ms(cfg.Warmup), TimeoutMs: ms(cfg.Timeout),
		Start: winStart.UTC().Format(time.RFC3339Nano), ElapsedMs: ms(elapsed),
		Attempts: out.Sum(), Outcomes: out, ABErrors: out.AB(), WarmupAttempts: m.warm,
		Connections: m.conns, KeepAliveCloses: m.kaCloses, KeepAliveReqs: m.kaReq,
		Bytes:   result.Bytes{WireIn: m.wireIn, WireOut: m.wireOut, Headers: m.headers, Body: m.body},
		Latency: Summary(m.lat, true), Connect: Summary(m.conn, false), TTFB: Summary(m.ttfb, false),
		ClientCPUMs: ms(cpu), ClientWaitMs: ms(use.wait), ClientCPUs: clientCPUs(),
	}
	if open {
		q := Summary(m.queue, false)
		r.Queue = &q
	}
	if cfg.Raw {
		r.Raw = &result.RunRaw{Latency: m.lat, Connect: m.conn, TTFB: m.ttfb}
		if open {
			r.Raw.Queue = m.queue
		}
	}
	setRates(&r, elapsed)
	if r.Attempts > 0 {
		r.ClientCPUPerReqUs = float64(cpu.Microseconds()) / float64(r.Attempts)
	}
	r.Errors = errorSamples(errs)
	r.SetLimit()
	return r
}

// setRates sets r's rates from its counts over elapsed.
func setRates(r *result.Run, elapsed time.Duration) {
	if sec := elapsed.Seconds(); sec > 0 {
		r.RPS = float64(r.Outcomes.OK) / sec
		r.AttemptRate = float64(r.Attempts) / sec
		r.WireInBps = float64(r.Bytes.WireIn) / sec
	}
	if r.Attempts > 0 {
		r.ErrorRatePct = 100 * float64(r.Attempts-r.Outcomes.OK) / float64(r.Attempts)
	}
}

// errorSamples keeps the most frequent messages per bucket, in a fixed order.
func errorSamples(errs map[errKey]int64) []result.ErrorSample {
	var out []result.ErrorSample
	for k, n := range errs {
		out = append(out, result.ErrorSample{Outcome: k.o.String(), Message: redact.URLs(k.msg), Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Outcome != out[j].Outcome {
			return out[i].Outcome < out[j].Outcome
		}
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Message < out[j].Message
	})
	var kept []result.ErrorSample
	per := map[string]int{}
	for _, e := range out {
		if per[e.Outcome] < maxErrSamples {
			per[e.Outcome]++
			kept = append(kept, e)
		}
	}
	return kept
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

var abPcts = []float64{50, 66, 75, 80, 90, 95, 98, 99, 100}

// Summary turns a histogram into its JSON summary; table adds ab's percentile rows.
func Summary(h *hdr.Histogram, table bool) result.Latency {
	l := result.Latency{
		Count: h.Count(), Min: ms(h.Min()), Mean: ms(h.Mean()),
		P50: ms(h.Quantile(.5)), P90: ms(h.Quantile(.9)), P95: ms(h.Quantile(.95)),
		P99: ms(h.Quantile(.99)), P999: ms(h.Quantile(.999)), Max: ms(h.Max()),
	}
	if table && h.Count() > 0 {
		for _, p := range abPcts {
			l.Percentiles = append(l.Percentiles, result.Percentile{Pct: p, Ms: ms(h.Quantile(p / 100))})
		}
	}
	return l
}

// waitUntil returns at t (at once for a zero or past t), or with ctx's
// error if ctx ends first.
func waitUntil(ctx context.Context, t time.Time) error {
	if t.IsZero() {
		return nil
	}
	tm := time.NewTimer(time.Until(t))
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// clientUse is the CPU this process used, and the time its threads were
// ready to run but waited for a CPU (a starved load generator waits: its
// own CPU alone would not show that it set the pace).
type clientUse struct{ cpu, wait time.Duration }

func (u clientUse) since(u0 clientUse) clientUse {
	return clientUse{u.cpu - u0.cpu, max(u.wait-u0.wait, 0)}
}

// clientCPUs is how many CPUs this process may use at once: those its
// affinity allows, or fewer where the runtime's GOMAXPROCS (which follows
// a cgroup's CPU quota) says so.
func clientCPUs() int { return min(runtime.NumCPU(), runtime.GOMAXPROCS(0)) }

func selfUse() clientUse { return clientUse{cpu: selfCPU(), wait: selfWait()} }

// selfWait is the run-queue wait of this process's threads so far
// (/proc/self/task/*/schedstat, second field, ns); 0 where the kernel does
// not keep it. A thread that exits takes its count with it: the Go runtime
// keeps its threads, so the window's difference stands.
func selfWait() time.Duration {
	dirs, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0
	}
	var sum time.Duration
	for _, d := range dirs {
		b, err := os.ReadFile("/proc/self/task/" + d.Name() + "/schedstat")
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) >= 2 {
			if ns, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				sum += time.Duration(ns)
			}
		}
	}
	return sum
}

// selfCPU is this process's user+system CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
