package benchgen

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/result"
)

// browseSite is a real net/http TLS server (h1, and h2 by ALPN) serving a
// page and its assets, counting what it was asked for and served.
type browseSite struct {
	*httptest.Server
	mu    sync.Mutex
	hits  map[string]int
	conns int   // connections accepted
	body  int64 // body bytes written
	pages int
	// rdv: the two "rendezvous" scripts of the page view in progress each
	// answer only once the other has been asked for, so they are in flight
	// at once: an h1 visitor must have opened a second connection.
	rdv       map[string]chan struct{}
	firstPage chan struct{}
	onceFirst sync.Once
}

// siteFiles: path → (content type, body). The page references each asset
// once or more, other origins, and data: URIs.
func siteFiles(page string) map[string][2]string {
	css := func(n int) string {
		return strings.Repeat(fmt.Sprintf(".s%d { margin: %dpx; }\n", n, n), 40*n)
	}
	return map[string][2]string{
		"/":              {"text/html", page},
		"/css/a.css":     {"text/css", css(1)},
		"/css/b.css":     {"text/css", css(2)},
		"/css/bg.css":    {"text/css", `/* url(/img/commented.png) */ body { background: url("../img/bg.png") } @font-face { src: url(/fonts/f.woff2) format("woff2"), url(data:font/woff;base64,AAAA) } .x { background: url('https://cdn.example.com/x.png') }`},
		"/js/one.js":     {"application/javascript", strings.Repeat("var one = 1;\n", 300)},
		"/js/two.js":     {"application/javascript", strings.Repeat("var two = 2;\n", 500)},
		"/js/rdv-a.js":   {"application/javascript", "a()"},
		"/js/rdv-b.js":   {"application/javascript", "b()"},
		"/img/p1.png":    {"image/png", strings.Repeat("\x89PNG", 2000)},
		"/img/p2.png":    {"image/png", strings.Repeat("\x89PNG", 3000)},
		"/img/p2x.png":   {"image/png", strings.Repeat("\x89PNG", 6000)},
		"/img/lazy.jpg":  {"image/jpeg", strings.Repeat("JFIF", 1000)},
		"/img/bg.png":    {"image/png", strings.Repeat("\x89PNG", 500)},
		"/fonts/f.woff2": {"font/woff2", strings.Repeat("wOF2", 700)},
		"/favicon.ico":   {"image/x-icon", strings.Repeat("ico", 100)},
		"/missing.js":    {"", ""}, // 404
	}
}

// wpLikePage references, in the ways a WordPress theme does, 13
// same-origin assets (bg.css adds 2 more), 3 other-origin ones and a data: image.
const wpLikePage = `<!DOCTYPE html><html><head>
<link rel="stylesheet" href="/css/a.css?ver=6.5" media="all">
<link rel='stylesheet' id='b-css' href='css/b.css' type='text/css'>
<link rel="stylesheet" href="/css/bg.css">
<link rel="alternate stylesheet" href="/css/unused.css">
<link rel="preload" as="script" href="/js/one.js">
<link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="https://fonts.example.com/css?family=X">
<script src="/js/one.js"></script>
<script src="https://www.googletagmanager.com/gtag/js?id=1" async></script>
<style>.hero { background-image: url(/img/bg.png) }</style>
</head><body>
<img src="/img/p1.png" alt="">
<img src="/img/p2.png" srcset="/img/p2x.png 2x, /img/p2.png 1x" alt="">
<img src="data:image/gif;base64,R0lGOD" alt="">
<img src="//cdn.example.com/i.png" alt="">
<img src="/img/lazy.jpg#top" loading="lazy" alt="">
<script src="/js/two.js" defer></script>
<script src="/js/rdv-a.js"></script><script src="/js/rdv-b.js"></script>
<script>document.write('<script src="/js/never.js"></script>')</script>
</body></html>`

// wpLikeAssets is what a page view of wpLikePage fetches (p2.png is not: its
// srcset's first candidate is taken instead), and wpLikeSkipped the
// other-origin references (cdn.example.com/x.png comes from bg.css).
var (
	wpLikeAssets = []string{"/css/a.css", "/css/b.css", "/css/bg.css", "/js/one.js", "/favicon.ico",
		"/img/bg.png", "/img/p1.png", "/img/p2x.png", "/img/lazy.jpg", "/js/two.js", "/js/rdv-a.js",
		"/js/rdv-b.js", "/fonts/f.woff2"}
	wpLikeSkipped = 4
)

// siteOpts shape a browseSite. rdv makes the two rendezvous scripts wait
// for each other: only for one visitor at a time.
// closeAll answers every request with "Connection: close".
type siteOpts struct{ h2, gzip, rdv, closeAll bool }

func startBrowseSite(t *testing.T, page string, o siteOpts) *browseSite {
	t.Helper()
	files := siteFiles(page)
	s := &browseSite{hits: map[string]int{}, firstPage: make(chan struct{})}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		if r.URL.Path == "/" && o.rdv {
			s.pages++
			s.rdv = map[string]chan struct{}{"/js/rdv-a.js": make(chan struct{}), "/js/rdv-b.js": make(chan struct{})}
		}
		rdv := s.rdv
		s.mu.Unlock()
		if r.URL.Path == "/" {
			s.onceFirst.Do(func() { close(s.firstPage) })
		}
		if mine, ok := rdv[r.URL.Path]; ok {
			other := rdv["/js/rdv-a.js"]
			if r.URL.Path == "/js/rdv-a.js" {
				other = rdv["/js/rdv-b.js"]
			}
			close(mine)
			select {
			case <-other:
			case <-r.Context().Done():
				return
			}
		}
		f, ok := files[r.URL.Path]
		if !ok || f[0] == "" {
			http.NotFound(w, r)
			return
		}
		body := []byte(f[1])
		w.Header().Set("Content-Type", f[0])
		if o.closeAll {
			w.Header().Set("Connection", "close")
		}
		if o.gzip && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") && !strings.HasPrefix(f[0], "image/") {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(body)
			zw.Close()
			body = b.Bytes()
			w.Header().Set("Content-Encoding", "gzip")
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		// Counted before it is written: the visitor may have read it all
		// and the test looked before this handler runs again on a busy
		// machine. A short write takes back what was not sent.
		s.mu.Lock()
		s.body += int64(len(body))
		s.mu.Unlock()
		if n, _ := w.Write(body); n < len(body) {
			s.mu.Lock()
			s.body -= int64(len(body) - n)
			s.mu.Unlock()
		}
	})
	s.Server = httptest.NewUnstartedServer(h)
	s.EnableHTTP2 = o.h2
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.mu.Lock()
			s.conns++
			s.mu.Unlock()
		}
	}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

func (s *browseSite) snapshot() (hits map[string]int, conns int, body int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.hits), s.conns, s.body
}

func (s *browseSite) config(proto string) Config {
	return Config{URL: s.URL + "/", Proto: proto, RootCAs: s.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs,
		Timeout: 20 * time.Second}
}

// checkBrowse is what holds for every browse result.
func checkBrowse(t *testing.T, r result.Browse) {
	t.Helper()
	if r.PageViews < 1 || r.PageViewsOK+r.PageViewsFailed != r.PageViews || r.PageOutcomes.Sum() != r.PageViews {
		t.Fatalf("page views %d = ok %d + failed %d, page outcomes %+v", r.PageViews, r.PageViewsOK, r.PageViewsFailed, r.PageOutcomes)
	}
	if r.Assets.Count != uint64(r.PageViews) || int64(r.Assets.Mean*float64(r.PageViews)+0.5) != r.AssetOutcomes.Sum() {
		t.Fatalf("assets per view %+v over %d views, asset outcomes %+v", r.Assets, r.PageViews, r.AssetOutcomes)
	}
	if r.Bytes.WireIn < r.Bytes.Body || r.Bytes.WireOut <= 0 {
		t.Fatalf("bytes %+v", r.Bytes)
	}
	// Its own CPU over the window, for whether it set the pace (results.BenchLimit).
	if r.ClientCPUs < 1 || r.ClientCPUMs <= 0 {
		t.Fatalf("the load generator's CPU: %d CPUs, %.2f ms", r.ClientCPUs, r.ClientCPUMs)
	}
}

// The page and each same-origin asset it references are fetched exactly once
// per page view, whatever the protocol; other origins are skipped and
// counted; h1 spreads the assets over 2 to 6 connections, h2 multiplexes
// them on one; every body byte the server wrote is counted, on the wire too.
func TestBrowseFetchesEveryAssetOnce(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	for _, c := range []struct {
		proto string
		gzip  bool
	}{{"h1", false}, {"h2", false}, {"h1", true}, {"h2", true}} {
		t.Run(fmt.Sprintf("%s-gzip=%v", c.proto, c.gzip), func(t *testing.T) {
			s := startBrowseSite(t, wpLikePage, siteOpts{h2: c.proto == "h2", gzip: c.gzip, rdv: true})
			r, err := Browse(context.Background(), BrowseConfig{Base: s.config(c.proto), Duration: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			checkBrowse(t, r)
			hits, conns, body := s.snapshot()
			n := int(r.PageViews)
			want := map[string]int{"/": n}
			for _, p := range wpLikeAssets {
				want[p] = n
			}
			if fmt.Sprint(hits) != fmt.Sprint(want) {
				t.Fatalf("server was asked for\n%v\nwant\n%v", hits, want)
			}
			if r.PageViewsOK != r.PageViews || r.AssetOutcomes.OK != int64(n*len(wpLikeAssets)) || r.Assets.Max != float64(len(wpLikeAssets)) {
				t.Fatalf("ok %d of %d views, assets %+v, per view %+v, errors %v", r.PageViewsOK, r.PageViews, r.AssetOutcomes, r.Assets, r.Errors)
			}
			if r.SkippedAssets != int64(n*wpLikeSkipped) {
				t.Fatalf("skipped %d, want %d", r.SkippedAssets, n*wpLikeSkipped)
			}
			if r.Bytes.Body != body || r.Bytes.WireIn < body {
				t.Fatalf("body bytes %d (server wrote %d), wire in %d", r.Bytes.Body, body, r.Bytes.WireIn)
			}
			if int64(conns) != r.Connections {
				t.Fatalf("server accepted %d connections, visitor counted %d", conns, r.Connections)
			}
			switch c.proto {
			case "h1":
				if conns < 2 || conns > DefaultBrowserConns || r.Negotiated["http/1.1"] != int64(conns) {
					t.Fatalf("h1: %d connections (want 2..6), negotiated %v", conns, r.Negotiated)
				}
			case "h2":
				if conns != 1 || r.Negotiated["h2"] != 1 {
					t.Fatalf("h2: %d connections, negotiated %v", conns, r.Negotiated)
				}
			}
			t.Logf("%s: %d page views, %d connections, page view p50 %.2f ms, wire in %d / body %d",
				c.proto, n, conns, r.PageView.P50, r.Bytes.WireIn, body)
		})
	}
}

// A new visitor for every page view opens its connections again: one per
// page view over h2.
func TestBrowseFreshVisitorsReconnect(t *testing.T) {
	s := startBrowseSite(t, wpLikePage, siteOpts{h2: true})
	r, err := Browse(context.Background(), BrowseConfig{Base: s.config("h2"), Visitors: 2, Duration: 300 * time.Millisecond, ViewsPerVisitor: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkBrowse(t, r)
	_, conns, _ := s.snapshot()
	if int64(conns) != r.PageViews || r.Connections != r.PageViews || r.Connect.Count != uint64(r.PageViews) {
		t.Fatalf("%d page views by fresh visitors: server saw %d connections, visitors counted %d (connect count %d)",
			r.PageViews, conns, r.Connections, r.Connect.Count)
	}
}

// An asset answering 404 fails its page view (counted, not dropped), and
// is counted by its status; the other assets are still fetched.
func TestBrowseMissingAssetFailsPageView(t *testing.T) {
	page := strings.Replace(wpLikePage, "</body>", `<script src="/missing.js"></script></body>`, 1)
	for _, proto := range []string{"h1", "h2"} {
		t.Run(proto, func(t *testing.T) {
			s := startBrowseSite(t, page, siteOpts{h2: proto == "h2", rdv: true})
			r, err := Browse(context.Background(), BrowseConfig{Base: s.config(proto), Duration: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			checkBrowse(t, r)
			n := r.PageViews
			if r.PageViewsOK != 0 || r.PageViewsFailed != n || r.PageOutcomes.OK != n {
				t.Fatalf("views %d, ok %d, failed %d, page outcomes %+v", n, r.PageViewsOK, r.PageViewsFailed, r.PageOutcomes)
			}
			if r.AssetOutcomes.HTTP4xx != n || r.AssetOutcomes.OK != n*int64(len(wpLikeAssets)) || r.AssetOutcomes.Failed() != n {
				t.Fatalf("asset outcomes %+v over %d views", r.AssetOutcomes, n)
			}
			if r.PageView.Count != uint64(n) {
				t.Fatalf("failed page views must keep their times: %d of %d", r.PageView.Count, n)
			}
		})
	}
}

// A page that references nothing is a page view of one request.
func TestBrowseEmptyPage(t *testing.T) {
	for _, proto := range []string{"h1", "h2"} {
		t.Run(proto, func(t *testing.T) {
			s := startBrowseSite(t, "<!DOCTYPE html><p>Hello", siteOpts{h2: proto == "h2"})
			r, err := Browse(context.Background(), BrowseConfig{Base: s.config(proto), Duration: 100 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			checkBrowse(t, r)
			hits, conns, _ := s.snapshot()
			if r.PageViewsOK != r.PageViews || r.Assets.Max != 0 || r.AssetOutcomes.Sum() != 0 || conns != 1 ||
				fmt.Sprint(hits) != fmt.Sprintf("map[/:%d]", r.PageViews) || r.TTFB.Count != uint64(r.PageViews) {
				t.Fatalf("views %d ok %d, assets %+v, conns %d, hits %v, ttfb %+v", r.PageViews, r.PageViewsOK, r.Assets, conns, hits, r.TTFB)
			}
		})
	}
}

// A page in an encoding browse cannot read fails its page view as
// undecodable, and nothing is guessed of its assets.
func TestBrowseUndecodablePage(t *testing.T) {
	s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "br")
		w.Write([]byte{0x1b, 0x03, 0x00})
	}))
	defer s.Close()
	cfg := Config{URL: s.URL + "/", Proto: "h1", RootCAs: s.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
	r, err := Browse(context.Background(), BrowseConfig{Base: cfg, Duration: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	checkBrowse(t, r)
	if r.Undecodable != r.PageViews || r.PageViewsFailed != r.PageViews || r.PageOutcomes.OK != r.PageViews ||
		len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, `"br"`) {
		t.Fatalf("undecodable %d, failed %d of %d, errors %+v", r.Undecodable, r.PageViewsFailed, r.PageViews, r.Errors)
	}
}

// A cancelled run returns at once with the context's error, whatever its
// planned duration.
func TestBrowseRespectsContext(t *testing.T) {
	s := startBrowseSite(t, wpLikePage, siteOpts{h2: true})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Browse(ctx, BrowseConfig{Base: s.config("h2"), Visitors: 3, Duration: time.Hour})
		done <- err
	}()
	<-s.firstPage
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("Browse after cancel: %v", err)
	}
}

// Bad configurations are refused before anything is dialed.
func TestBrowseRefusesBadConfig(t *testing.T) {
	for _, bc := range []BrowseConfig{
		{Base: Config{URL: "ftp://x/"}},
		{Base: Config{URL: "http://x/", Proto: "h2"}},
		{Base: Config{URL: "https://x/"}, AssetOrigins: "any"},
		{Base: Config{URL: "https://x/"}, Conns: -1},
		{Base: Config{URL: "https://x/"}, AcceptEncoding: "gzip\r\nX-Evil: 1"},
		{Base: Config{URL: "https://x/", Header: []string{"X-Evil: 1\r\nHost: y"}}},
	} {
		if _, err := Browse(context.Background(), bc); err == nil {
			t.Errorf("%+v: no error", bc)
		}
	}
}

func TestPageRefs(t *testing.T) {
	base, _ := url.Parse("https://example.org/blog/post/")
	refs := pageRefs([]byte(`<html><head>
<link rel="STYLESHEET" href="../../a.css"><link rel="preload" as="style" href="/p.css">
<link rel=modulepreload href=/m.js><link rel="apple-touch-icon" href="/t.png"><link rel="next" href="/page/2">
<script src="x.js"></script><script src="x.js#again"></script><script>var s = "<img src=/no.png>"</script>
</head><body><img srcset="  big.jpg 2x, small.jpg 1x"><img src="">
<iframe src="/frame.html"></iframe><a href="/link.html">x</a>
<base href="https://example.org/other/"><img src="after-base.png">
<style>@import "imp.css"; div { background: url( 'q.png' ) } /* url(c.png) */</style>
</body></html>`), base)
	var got []string
	for _, r := range refs {
		s := r.url.String()
		if r.css {
			s += " (css)"
		}
		got = append(got, s)
	}
	want := []string{
		"https://example.org/a.css (css)", "https://example.org/p.css (css)", "https://example.org/m.js",
		"https://example.org/t.png", "https://example.org/blog/post/x.js", "https://example.org/blog/post/big.jpg",
		"https://example.org/other/after-base.png", "https://example.org/other/imp.css", "https://example.org/other/q.png",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("refs\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSameOrigin(t *testing.T) {
	page, _ := url.Parse("https://Example.org/")
	for raw, want := range map[string]bool{
		"https://example.org:443/a": true, "https://EXAMPLE.org/b": true, "http://example.org/": false,
		"https://example.org:8443/": false, "https://cdn.example.org/": false,
	} {
		u, _ := url.Parse(raw)
		if sameOrigin(page, u) != want {
			t.Errorf("%s: same origin %v", raw, !want)
		}
	}
}

// A server that closes every h1 connection after its answer: each request
// after a connection's first finds it closed and opens a new one (a
// keep-alive close, counted), and every page view is still whole.
func TestBrowseServerClosesConnections(t *testing.T) {
	s := startBrowseSite(t, wpLikePage, siteOpts{rdv: true, closeAll: true})
	r, err := Browse(context.Background(), BrowseConfig{Base: s.config("h1"), Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	checkBrowse(t, r)
	_, conns, _ := s.snapshot()
	reqs := r.PageViews * int64(1+len(wpLikeAssets))
	if r.PageViewsOK != r.PageViews || int64(conns) != reqs || r.Connections != reqs {
		t.Fatalf("%d of %d views ok; %d requests, server saw %d connections, visitor counted %d; errors %v",
			r.PageViewsOK, r.PageViews, reqs, conns, r.Connections, r.Errors)
	}
	// Each of the 2 to 6 slots is closed after every use but its first.
	if r.KeepAliveCloses < reqs-DefaultBrowserConns || r.KeepAliveCloses > reqs-2 {
		t.Fatalf("keep-alive closes %d for %d requests", r.KeepAliveCloses, reqs)
	}
}

// A page view fetches at most maxAssetsPerView assets; the references past
// it are skipped and counted.
func TestBrowseBoundsAssetsPerView(t *testing.T) {
	defer func(n int) { maxAssetsPerView = n }(maxAssetsPerView)
	maxAssetsPerView = 5
	s := startBrowseSite(t, wpLikePage, siteOpts{h2: true})
	r, err := Browse(context.Background(), BrowseConfig{Base: s.config("h2"), Duration: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	checkBrowse(t, r)
	hits, _, _ := s.snapshot()
	fetched := 0
	for p, n := range hits {
		if p != "/" {
			fetched += n
		}
	}
	// The other origins and every same-origin asset past the 5th are skipped.
	if r.Assets.Max != 5 || int64(fetched) != 5*r.PageViews || r.SkippedAssets != r.PageViews*int64(len(wpLikeAssets)-5+wpLikeSkipped) {
		t.Fatalf("assets per view %+v, fetched %d in %d views, skipped %d", r.Assets, fetched, r.PageViews, r.SkippedAssets)
	}
}

// A visitor thinks between page views, and the window's end cuts a think
// short: with an hour's think in a short window, each visitor views the
// page once, and the run ends with the window.
func TestBrowseThinkTime(t *testing.T) {
	s := startBrowseSite(t, wpLikePage, siteOpts{h2: true})
	r, err := Browse(context.Background(), BrowseConfig{Base: s.config("h2"), Visitors: 3, Think: time.Hour, Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	checkBrowse(t, r)
	hits, conns, _ := s.snapshot()
	if r.PageViews != 3 || hits["/"] != 3 || conns != 3 || r.ThinkMs != 3.6e6 {
		t.Fatalf("3 visitors thinking an hour: %d page views, %d pages served, %d connections, think %v ms", r.PageViews, hits["/"], conns, r.ThinkMs)
	}
}
