package benchgen

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/wptest/wptest/bench/hdr"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/internal/redact"
)

// SameOrigin is the asset-origin policy that fetches only the assets on the
// page's own origin (scheme, host, port); references to other origins (a
// CDN, fonts, analytics) are counted as skipped, never fetched: the
// measurement is of one server.
const SameOrigin = "same-origin"

// BrowserAcceptEncoding is what browsers send, and browse by default.
const BrowserAcceptEncoding = "gzip, deflate, br"

// DefaultBrowserConns is how many HTTP/1.1 connections a browser opens to
// one host (Chrome, Firefox and Safari: 6).
const DefaultBrowserConns = 6

// maxAssetsPerView bounds the assets one page view fetches (a hostile or
// broken page may reference millions); references past it are counted as
// skipped. A variable for its test.
var maxAssetsPerView = 2000

// maxParsedBody bounds what is kept of a page or stylesheet to find its
// references (the rest is still read and counted).
const maxParsedBody = 16 << 20

// BrowseConfig is the browse scenario: Visitors load Base.URL and every
// asset it references, again and again, as browsers do.
//
// Each visitor is a fresh browser: it starts with no connection and has no
// cache, so every page view fetches every asset (a first visit, or a reload
// with the cache off). Between its page views a visitor keeps its
// connections alive, as a browser following links on one site does, unless
// ViewsPerVisitor says when it is replaced by a new visitor (1: every page
// view is a first visit, handshakes included).
//
// A page view: the page is fetched; once it has arrived whole, its HTML is
// read for assets (pageRefs: stylesheets, scripts, images, icons,
// preloads); they are all requested at once, h1 over up to Conns keep-alive
// connections (each one request at a time; a connection is opened only when
// every open one is busy), h2 and h3 multiplexed over the visitor's one
// connection. Each stylesheet, when it has arrived, is read for its url()s
// and @imports, which are fetched too (one level: what they reference is
// not followed). A page view ends when every asset has answered or failed,
// or at Timeout after its start (what is left fails as timed out). A page
// view whose page or any asset did not answer 2xx whole is failed, and
// counted. Redirects are not followed (give the final URL).
//
// Browsers start assets while the HTML still streams in (their preload
// scanner); here they start when it has all arrived, which for a page of a
// few tens of KB is less than a round trip later.
type BrowseConfig struct {
	// Base: URL, Proto (h1, h2, h2c or h3), ServerName, Insecure, RootCAs,
	// Header, Timeout (per page view, default 30 s), StartAt, Raw, Name.
	// Visitors, Rate, Requests, Duration, Warmup, Method, KeepAlive and
	// HTTP10 of Base are not used.
	Base     Config
	Visitors int // default 1
	// Conns: h1, the most connections per visitor (default 6); h2, h2c, h3: always 1.
	Conns            int
	Duration, Warmup time.Duration // Duration: default 15 s
	// Think: a visitor's pause between two page views (0: closed loop).
	Think           time.Duration
	ViewsPerVisitor int
	// AcceptEncoding: default BrowserAcceptEncoding. Bodies are counted as
	// they come, encoded. Pages and stylesheets must be decoded to be read:
	// gzip and deflate are; br is not (no brotli decoder here): such a page
	// view fails as undecodable (ask for "gzip, deflate" from a server that
	// prefers br).
	AcceptEncoding string
	// AssetOrigins: "" or SameOrigin (the only policy so far).
	AssetOrigins string
	// NoCSSRefs: do not read stylesheets for url()s and @imports.
	NoCSSRefs bool
}

// browseState is what a browse run's visitors share.
type browseState struct {
	t      *target
	cfg    *BrowseConfig
	header http.Header // every request's: read only
	conns  int
}

// browser is one visitor: its connections and what its page view counted.
type browser struct {
	bs   *browseState
	w    wire // every byte of every connection of this visitor
	tr   *http.Transport
	pool *lanePool // h1
	one  *bconn    // h2, h2c, h3
	mu   sync.Mutex
	vc   viewCounts
}

// viewCounts is what happened to a visitor's connections during one page view.
type viewCounts struct {
	connect    []time.Duration
	negotiated map[string]int64
	kaCloses   int64
}

func (b *browser) note(f func(*viewCounts)) {
	b.mu.Lock()
	f(&b.vc)
	b.mu.Unlock()
}

// take returns the page view's connection counts and starts new ones.
func (b *browser) take() viewCounts {
	b.mu.Lock()
	defer b.mu.Unlock()
	vc := b.vc
	b.vc = viewCounts{negotiated: map[string]int64{}}
	return vc
}

func (b *browser) closeAll() {
	if b.pool != nil {
		b.pool.closeAll()
	}
	if b.one != nil {
		b.one.drop()
	}
}

// Browse runs the browse scenario. An error means it could not run (bad
// config), or ctx ended it early (the result then holds what was counted).
func Browse(ctx context.Context, bc BrowseConfig) (result.Browse, error) {
	cfg := bc.Base
	cfg.Method, cfg.KeepAlive, cfg.HTTP10 = "GET", true, false
	t, err := newTarget(&cfg)
	if err != nil {
		return result.Browse{}, err
	}
	if bc.Visitors <= 0 {
		bc.Visitors = 1
	}
	if bc.Duration <= 0 {
		bc.Duration = 15 * time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if bc.Warmup < 0 || bc.Think < 0 || bc.ViewsPerVisitor < 0 || bc.Conns < 0 {
		return result.Browse{}, errors.New("browse: warm-up, think time, views per visitor and connections must not be negative")
	}
	if bc.AssetOrigins == "" {
		bc.AssetOrigins = SameOrigin
	}
	if bc.AssetOrigins != SameOrigin {
		return result.Browse{}, fmt.Errorf("browse: asset origins %q: only %q", bc.AssetOrigins, SameOrigin)
	}
	if bc.AcceptEncoding == "" {
		bc.AcceptEncoding = BrowserAcceptEncoding
	}
	if strings.ContainsAny(bc.AcceptEncoding, "\r\n") {
		return result.Browse{}, errors.New("browse: Accept-Encoding must be one line")
	}
	conns := 1
	if t.proto == "h1" {
		conns = bc.Conns
		if conns == 0 {
			conns = DefaultBrowserConns
		}
	}
	bc.Base = cfg
	h := t.header.Clone()
	if h.Get("Accept-Encoding") == "" {
		h.Set("Accept-Encoding", bc.AcceptEncoding)
	}
	bs := &browseState{t: t, cfg: &bc, header: h, conns: conns}
	if err := ensureFiles(bc.Visitors*conns, fmt.Sprintf("%d visitors with up to %d connections each", bc.Visitors, conns)); err != nil {
		return result.Browse{}, err
	}
	if err := waitUntil(ctx, cfg.StartAt); err != nil {
		return result.Browse{}, err
	}

	start := time.Now()
	use := windowUse(bc.Warmup)
	winStart := start.Add(bc.Warmup)
	winEnd := winStart.Add(bc.Duration)
	shards := make([]*browseStats, numShards(bc.Visitors))
	for i := range shards {
		shards[i] = newBrowseStats()
	}
	var wg sync.WaitGroup
	for i := range bc.Visitors {
		st := shards[i%len(shards)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			bs.visitor(ctx, st, winStart, winEnd)
		}()
	}
	wg.Wait()
	r := mergeBrowse(bs, shards, winStart, winEnd)
	u := use()
	r.ClientCPUMs, r.ClientWaitMs, r.ClientCPUs = ms(u.cpu), ms(u.wait), clientCPUs()
	return r, ctx.Err()
}

func (bs *browseState) newBrowser() *browser {
	b := &browser{bs: bs, vc: viewCounts{negotiated: map[string]int64{}}}
	if bs.t.proto != "h3" {
		b.tr = newBrowseTransport(b)
	}
	if bs.t.proto == "h1" {
		b.pool = newLanePool(b, bs.conns)
	} else {
		b.one = &bconn{b: b}
	}
	return b
}

// visitor browses until the window ends: page view, think, page view...
func (bs *browseState) visitor(ctx context.Context, st *browseStats, winStart, winEnd time.Time) {
	b := bs.newBrowser()
	defer func() { b.closeAll() }()
	views := 0
	for {
		now := time.Now()
		if ctx.Err() != nil || !now.Before(winEnd) {
			return
		}
		in0, out0 := b.w.in.Load(), b.w.out.Load()
		b.take()
		pv := b.view(ctx)
		pv.wireIn, pv.wireOut = b.w.in.Load()-in0, b.w.out.Load()-out0
		pv.counts = b.take()
		if ctx.Err() != nil {
			return // cut short by the caller, not by the server: not counted
		}
		st.mu.Lock()
		if now.Before(winStart) {
			st.warm++
		} else {
			st.add(&pv)
		}
		st.mu.Unlock()
		views++
		if bs.cfg.ViewsPerVisitor > 0 && views%bs.cfg.ViewsPerVisitor == 0 {
			b.closeAll()
			b = bs.newBrowser()
		}
		if bs.cfg.Think > 0 {
			tm := time.NewTimer(min(bs.cfg.Think, time.Until(winEnd)))
			select {
			case <-tm.C:
			case <-ctx.Done():
				tm.Stop()
				return
			}
		}
	}
}

// pageView is one page view's outcome.
type pageView struct {
	start, firstByte, end time.Time
	page                  attempt
	assets                []attempt
	protos                map[string]int64 // responses by HTTP version
	skipped, undecodable  int64
	undecodableErr        string
	wireIn, wireOut       int64
	counts                viewCounts
}

func (pv *pageView) failed() bool {
	if pv.page.outcome != result.OK || pv.undecodable > 0 {
		return true
	}
	for i := range pv.assets {
		if pv.assets[i].outcome != result.OK {
			return true
		}
	}
	return false
}

// view loads the page and its assets once.
func (b *browser) view(ctx context.Context) pageView {
	var pv pageView
	pv.start = time.Now()
	ctx, cancel := context.WithDeadline(ctx, pv.start.Add(b.bs.cfg.Base.Timeout))
	defer cancel()
	page := b.bs.t.url
	tctx := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotFirstResponseByte: func() {
			b.mu.Lock()
			if pv.firstByte.IsZero() {
				pv.firstByte = time.Now()
			}
			b.mu.Unlock()
		},
	})
	f := b.fetch(tctx, page, true)
	b.mu.Lock()
	if pv.firstByte.IsZero() && f.a.gotHead {
		pv.firstByte = f.a.firstByte // no trace event (h3 may not give one): the headers' arrival
	}
	b.mu.Unlock()
	pv.page = f.a
	pv.protos = map[string]int64{}
	if f.proto != "" {
		pv.protos[f.proto]++
	}
	if f.a.outcome == result.OK {
		doc, err := decodeBody(f.body, f.encoding)
		if err != nil {
			pv.undecodable, pv.undecodableErr = 1, "page: "+err.Error()
		} else {
			b.assets(ctx, &pv, pageRefs(doc, page))
		}
	}
	pv.end = time.Now()
	return pv
}

// assets fetches refs (and the url()s of the stylesheets among them) and
// waits for every one.
func (b *browser) assets(ctx context.Context, pv *pageView, refs []assetRef) {
	page := b.bs.t.url
	var mu sync.Mutex
	seen := map[string]bool{page.String(): true} // the page itself is not fetched again
	started := 0
	var wg sync.WaitGroup
	var start func(r assetRef)
	start = func(r assetRef) {
		mu.Lock()
		defer mu.Unlock()
		k := r.url.String()
		if seen[k] {
			return
		}
		seen[k] = true
		if !sameOrigin(page, r.url) || started == maxAssetsPerView {
			pv.skipped++
			return
		}
		started++
		wg.Add(1)
		go func() {
			defer wg.Done()
			parse := r.css && !b.bs.cfg.NoCSSRefs
			f := b.fetch(ctx, r.url, parse)
			mu.Lock()
			pv.assets = append(pv.assets, f.a)
			if f.proto != "" {
				pv.protos[f.proto]++
			}
			mu.Unlock()
			if !parse || f.a.outcome != result.OK {
				return
			}
			css, err := decodeBody(f.body, f.encoding)
			if err != nil {
				mu.Lock()
				pv.undecodable++
				pv.undecodableErr = "stylesheet: " + err.Error()
				mu.Unlock()
				return
			}
			for _, raw := range cssRefs(css) {
				if u := resolveRef(r.url, raw); u != nil {
					start(assetRef{url: u})
				}
			}
		}()
	}
	for _, r := range refs {
		start(r)
	}
	wg.Wait()
}

// fetched is one request's attempt, and its body when it was asked for.
type fetched struct {
	a        attempt
	proto    string // the response's HTTP version
	body     []byte
	encoding string
}

// fetch GETs u on one of the visitor's connections. A request that found
// its kept connection closed by the server before any answer (the server's
// keep-alive timeout racing the request) goes out once more on a new
// connection, as browsers retry it.
func (b *browser) fetch(ctx context.Context, u *url.URL, keep bool) fetched {
	var f fetched
	a := &f.a
	a.start = time.Now()
	for try := 0; ; try++ {
		l := b.one
		if b.pool != nil {
			var err error
			if l, err = b.pool.get(ctx); err != nil {
				a.fail(err, phaseDial)
				if errors.Is(err, context.DeadlineExceeded) {
					// Every connection stayed busy until the page view's deadline.
					a.outcome = result.QueueTimeout
				}
				return f
			}
		}
		retry := b.fetchOn(ctx, l, u, keep, try == 0, &f)
		if b.pool != nil {
			b.pool.put(l)
		}
		if !retry {
			return f
		}
		b.note(func(c *viewCounts) { c.kaCloses++ })
	}
}

// fetchOn makes the request on l; true means it should be retried on a new
// connection (a kept one, closed before it answered).
func (b *browser) fetchOn(ctx context.Context, l *bconn, u *url.URL, keep, mayRetry bool, f *fetched) bool {
	a := &f.a
	reused, err := l.ensure(ctx, a)
	if err != nil {
		a.fail(err, phaseDial)
		return false
	}
	req := (&http.Request{Method: "GET", URL: u, Host: u.Host, Header: b.bs.header,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}).WithContext(ctx)
	a.sent = time.Now()
	resp, err := l.roundTrip(req)
	if err != nil {
		// An h1 connection is done after a failed request; an h2 or h3 one
		// only if it failed as a whole (not a stream).
		dead := b.pool != nil || !l.usable()
		if dead {
			l.drop()
		}
		if dead && reused && mayRetry && ctx.Err() == nil {
			*a = attempt{start: a.start}
			return true
		}
		a.fail(err, phaseHead)
		return false
	}
	a.firstByte = time.Now()
	if b.pool != nil {
		a.firstByte = l.firstByte // h1: the first byte itself, not the parsed head
	}
	a.gotHead = true
	a.status = resp.StatusCode
	a.reused = reused
	f.proto = resp.Proto
	want := map[string]int{"h1": 1, "h2": 2, "h2c": 2, "h3": 3}[b.bs.t.proto]
	if resp.ProtoMajor != want {
		resp.Body.Close()
		if b.pool != nil {
			l.h1Done(nil)
		}
		l.drop()
		a.fail(&errProtocol{fmt.Sprintf("asked for HTTP/%d, got %s", want, resp.Proto)}, phaseHead)
		return false
	}
	var n int64
	if keep {
		var buf bytes.Buffer
		n, err = io.Copy(&buf, io.LimitReader(resp.Body, maxParsedBody))
		if err == nil {
			var m int64
			m, err = io.Copy(io.Discard, resp.Body)
			n += m
		}
		f.body, f.encoding = buf.Bytes(), resp.Header.Get("Content-Encoding")
	} else {
		n, err = io.Copy(io.Discard, resp.Body)
	}
	resp.Body.Close()
	a.bodyBytes = n
	a.end = time.Now()
	if b.pool != nil {
		l.h1Done(resp)
	}
	if err == nil && resp.ContentLength >= 0 && n != resp.ContentLength {
		err = errShort
	}
	if err != nil {
		if b.pool != nil || !l.usable() {
			l.drop()
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = errShort
		}
		a.fail(err, phaseBody)
		return false
	}
	a.finish()
	return false
}

// decodeBody undoes a Content-Encoding browse can read.
func decodeBody(b []byte, enc string) ([]byte, error) {
	var r io.Reader
	switch strings.ToLower(strings.TrimSpace(enc)) {
	case "", "identity":
		return b, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		r = zr
	case "deflate":
		// "deflate" is zlib-wrapped by the standard; some servers send it raw.
		if zr, err := zlib.NewReader(bytes.NewReader(b)); err == nil {
			r = zr
		} else {
			r = flate.NewReader(bytes.NewReader(b))
		}
	default:
		return nil, fmt.Errorf("cannot decode Content-Encoding %q to read its references (ask for gzip or deflate)", enc)
	}
	out, err := io.ReadAll(io.LimitReader(r, maxParsedBody))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", enc, err)
	}
	return out, nil
}

// browseStats is one shard's counts (as stats is for runs).
type browseStats struct {
	mu                                   sync.Mutex
	ttfb, view, conn, assets, wIn, wOut  *hdr.Histogram
	page, asset                          [result.NumOutcomes]int64
	ok, failed, warm, skipped, undecod   int64
	conns, kaCloses, wireIn, wireOut, bd int64
	negotiated, protos                   map[string]int64
	lastEnd                              time.Time
	errs                                 map[errKey]int64
}

func newBrowseStats() *browseStats {
	return &browseStats{ttfb: hdr.New(), view: hdr.New(), conn: hdr.New(), assets: hdr.New(),
		wIn: hdr.New(), wOut: hdr.New(), negotiated: map[string]int64{}, protos: map[string]int64{}, errs: map[errKey]int64{}}
}

func (s *browseStats) add(pv *pageView) {
	s.page[pv.page.outcome]++
	s.sample(&pv.page)
	if pv.page.gotHead {
		s.ttfb.Record(pv.firstByte.Sub(pv.start))
		s.view.Record(pv.end.Sub(pv.start))
	}
	s.bd += pv.page.bodyBytes
	for i := range pv.assets {
		a := &pv.assets[i]
		s.asset[a.outcome]++
		s.bd += a.bodyBytes
		s.sample(a)
	}
	if pv.failed() {
		s.failed++
	} else {
		s.ok++
	}
	s.skipped += pv.skipped
	s.undecod += pv.undecodable
	if pv.undecodable > 0 {
		s.note(result.OtherError, pv.undecodableErr)
	}
	s.assets.RecordN(int64(len(pv.assets)), 1)
	s.wIn.RecordN(pv.wireIn, 1)
	s.wOut.RecordN(pv.wireOut, 1)
	s.wireIn += pv.wireIn
	s.wireOut += pv.wireOut
	for _, d := range pv.counts.connect {
		s.conn.Record(d)
	}
	s.conns += int64(len(pv.counts.connect))
	for p, n := range pv.counts.negotiated {
		s.negotiated[p] += n
	}
	s.kaCloses += pv.counts.kaCloses
	for p, n := range pv.protos {
		s.protos[p] += n
	}
	if pv.end.After(s.lastEnd) {
		s.lastEnd = pv.end
	}
}

func (s *browseStats) sample(a *attempt) {
	if a.err != nil {
		s.note(a.outcome, a.err.Error())
	}
}

func (s *browseStats) note(o result.Outcome, msg string) {
	k := errKey{o, msg}
	if _, ok := s.errs[k]; ok || len(s.errs) < maxErrSamples*int(result.NumOutcomes) {
		s.errs[k]++
	}
}

func mergeBrowse(bs *browseState, shards []*browseStats, winStart, winEnd time.Time) result.Browse {
	m := newBrowseStats()
	for _, s := range shards {
		for _, p := range [][2]*hdr.Histogram{{m.ttfb, s.ttfb}, {m.view, s.view}, {m.conn, s.conn},
			{m.assets, s.assets}, {m.wIn, s.wIn}, {m.wOut, s.wOut}} {
			p[0].Merge(p[1])
		}
		for i := range s.page {
			m.page[i] += s.page[i]
			m.asset[i] += s.asset[i]
		}
		m.ok += s.ok
		m.failed += s.failed
		m.warm += s.warm
		m.skipped += s.skipped
		m.undecod += s.undecod
		m.conns += s.conns
		m.kaCloses += s.kaCloses
		m.wireIn += s.wireIn
		m.wireOut += s.wireOut
		m.bd += s.bd
		for p, n := range s.negotiated {
			m.negotiated[p] += n
		}
		for p, n := range s.protos {
			m.protos[p] += n
		}
		if s.lastEnd.After(m.lastEnd) {
			m.lastEnd = s.lastEnd
		}
		for k, n := range s.errs {
			m.errs[k] += n
		}
	}
	cfg := bs.cfg
	elapsed := max(m.lastEnd.Sub(winStart), 0)
	name := cfg.Base.Name
	if name == "" {
		name = "browse"
	}
	r := result.Browse{
		Name: redact.URLs(name), Proto: bs.t.proto, URL: redact.URLs(cfg.Base.URL),
		Visitors: cfg.Visitors, ConnsPerVisitor: bs.conns, ViewsPerVisitor: cfg.ViewsPerVisitor,
		ThinkMs: ms(cfg.Think), AcceptEncoding: bs.header.Get("Accept-Encoding"), AssetOrigins: cfg.AssetOrigins,
		DurationMs: ms(cfg.Duration), WarmupMs: ms(cfg.Warmup), TimeoutMs: ms(cfg.Base.Timeout),
		Start: winStart.UTC().Format(time.RFC3339Nano), End: winEnd.UTC().Format(time.RFC3339Nano),
		ElapsedMs: ms(elapsed), PageViews: m.ok + m.failed, PageViewsOK: m.ok, PageViewsFailed: m.failed,
		WarmupPageViews: m.warm, PageOutcomes: result.FromArray(m.page), AssetOutcomes: result.FromArray(m.asset),
		SkippedAssets: m.skipped, Undecodable: m.undecod, Connections: m.conns, KeepAliveCloses: m.kaCloses,
		Bytes: result.Bytes{WireIn: m.wireIn, WireOut: m.wireOut, Body: m.bd},
		TTFB:  Summary(m.ttfb, true), PageView: Summary(m.view, true), Connect: Summary(m.conn, false),
		Assets: countSummary(m.assets), WireIn: countSummary(m.wIn), WireOut: countSummary(m.wOut),
		Errors: errorSamples(m.errs),
	}
	if len(m.negotiated) > 0 {
		r.Negotiated = m.negotiated
	}
	if len(m.protos) > 0 {
		r.Responses = m.protos
	}
	if sec := elapsed.Seconds(); sec > 0 {
		r.PageViewsPerSec = float64(m.ok) / sec
	}
	if cfg.Base.Raw {
		r.Raw = &result.BrowseRaw{TTFB: m.ttfb, PageView: m.view, Connect: m.conn, Assets: m.assets, WireIn: m.wIn, WireOut: m.wOut}
	}
	return r
}

// countSummary summarises a histogram of counts (its "nanoseconds" are units).
func countSummary(h *hdr.Histogram) result.Count {
	f := func(d time.Duration) float64 { return float64(d) }
	return result.Count{Count: h.Count(), Min: f(h.Min()), Mean: f(h.Mean()), P50: f(h.Quantile(.5)),
		P90: f(h.Quantile(.9)), P99: f(h.Quantile(.99)), Max: f(h.Max())}
}
