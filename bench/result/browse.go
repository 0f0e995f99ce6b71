package result

import "github.com/wptest/wptest/bench/hdr"

// Browse is the result of the browse scenario: visitors who each load a page
// and every asset it references (stylesheets, scripts, images, icons, and
// the url()s of the stylesheets), as a browser does, over up to
// ConnsPerVisitor HTTP/1.1 connections or one HTTP/2 or HTTP/3 connection.
// Its figures are per page view: the time to the page's first byte and to
// the last asset's end (what a browser reports as the page-view time), and
// the bytes on the wire.
type Browse struct {
	Name  string `json:"name"`
	Proto string `json:"proto"` // asked for: "h1", "h2", "h2c", "h3"
	URL   string `json:"url"`
	// Visitors browse at once, each its own fresh browser: no connection and
	// no cache when it starts. ConnsPerVisitor is the most connections a
	// visitor opens (h1: 6 by default, as browsers; h2, h2c, h3: 1,
	// multiplexed).
	Visitors        int `json:"visitors"`
	ConnsPerVisitor int `json:"conns_per_visitor"`
	// ViewsPerVisitor: after this many page views a visitor closes its
	// connections and starts again as a new one (1: every page view is a
	// first visit); 0: a visitor keeps its connections for the whole run.
	ViewsPerVisitor int     `json:"views_per_visitor"`
	ThinkMs         float64 `json:"think_ms"` // between a visitor's page views (0: closed loop)
	AcceptEncoding  string  `json:"accept_encoding"`
	AssetOrigins    string  `json:"asset_origins"` // "same-origin": assets on other hosts are skipped, never fetched
	DurationMs      float64 `json:"duration_ms"`
	WarmupMs        float64 `json:"warmup_ms"`
	TimeoutMs       float64 `json:"timeout_ms"` // a page view not over within it gives up on what is left
	// Start and End are the measured window (RFC 3339, UTC): page views that
	// started in it are counted, and waited for. ElapsedMs is from Start
	// until the last counted page view ended.
	Start     string  `json:"start"`
	End       string  `json:"end"`
	ElapsedMs float64 `json:"elapsed_ms"`
	// PageViews started in the window; PageViewsOK + PageViewsFailed ==
	// PageViews. A page view failed when its page or any of its assets did
	// not answer 2xx whole (or the page could not be decoded to be read).
	PageViews       int64   `json:"page_views"`
	PageViewsOK     int64   `json:"page_views_ok"`
	PageViewsFailed int64   `json:"page_views_failed"`
	WarmupPageViews int64   `json:"warmup_page_views"`  // started during the warm-up; counted nowhere else
	PageViewsPerSec float64 `json:"page_views_per_sec"` // PageViewsOK / elapsed
	// PageOutcomes: the page's own requests (Sum() == PageViews);
	// AssetOutcomes: every asset request of the counted page views.
	PageOutcomes  Outcomes `json:"page_outcomes"`
	AssetOutcomes Outcomes `json:"asset_outcomes"`
	// SkippedAssets: references to other origins, and past the 2,000th
	// asset of a page view, never fetched (per page view, so a page with 3
	// of them seen 10 times counts 30).
	SkippedAssets int64 `json:"skipped_assets"`
	// Undecodable: pages or stylesheets in a Content-Encoding that could not
	// be decoded to find their references (br: no brotli decoder here); the
	// page view is failed.
	Undecodable int64 `json:"undecodable"`
	// Connections opened during counted page views, by the protocol the
	// server chose (ALPN: "http/1.1", "h2", "h3"; cleartext: "http/1.1", "h2c").
	Connections int64            `json:"connections"`
	Negotiated  map[string]int64 `json:"negotiated,omitempty"`
	// Responses: the answers of counted page views by the HTTP version they
	// came in ("HTTP/1.1", "HTTP/2.0", "HTTP/3.0"), whenever their
	// connections were opened.
	Responses map[string]int64 `json:"responses,omitempty"`
	// KeepAliveCloses: a kept connection the server had closed, found when
	// the visitor came back to it; the request went out on a new one (as a
	// browser retries it), and is counted once.
	KeepAliveCloses int64 `json:"keep_alive_closes"`
	Bytes           Bytes `json:"bytes"` // Headers: 0 (not counted apart); Body: as received, still encoded
	// The load generator's CPU over the window, as Run has it.
	ClientCPUMs  float64 `json:"client_cpu_ms,omitempty"`
	ClientWaitMs float64 `json:"client_wait_ms,omitempty"`
	ClientCPUs   int     `json:"client_cpus,omitempty"`
	// TTFB: page-view start to the page's first response byte (h2, h3: its
	// headers), connecting included, as a browser's responseStart. PageView:
	// page-view start until every asset answered or failed, over page views
	// whose page answered (any status). Connect: dial + handshake, per new
	// connection.
	TTFB     Latency `json:"ttfb"`
	PageView Latency `json:"page_view"`
	Connect  Latency `json:"connect"`
	// Per counted page view: assets requested, and bytes on the wire.
	Assets  Count         `json:"assets"`
	WireIn  Count         `json:"wire_in"`
	WireOut Count         `json:"wire_out"`
	Errors  []ErrorSample `json:"errors,omitempty"`
	// Raw: the histograms themselves, when asked for (Run.Raw).
	Raw *BrowseRaw `json:"raw,omitempty"`
}

// Count summarises an HDR histogram of counts (assets, bytes): values are
// kept to three significant digits.
type Count struct {
	Count uint64  `json:"count"`
	Min   float64 `json:"min"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

// BrowseRaw is a browse run's HDR histograms (hdr's exact JSON), one per
// summary; Assets, WireIn and WireOut hold counts, not nanoseconds.
type BrowseRaw struct {
	TTFB     *hdr.Histogram `json:"ttfb"`
	PageView *hdr.Histogram `json:"page_view"`
	Connect  *hdr.Histogram `json:"connect"`
	Assets   *hdr.Histogram `json:"assets"`
	WireIn   *hdr.Histogram `json:"wire_in"`
	WireOut  *hdr.Histogram `json:"wire_out"`
}
