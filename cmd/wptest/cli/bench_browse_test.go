package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wptest/wptest/bench/result"
)

// bench's browse: visitors load the page and its assets; the text and the
// JSON (the report's browse) say the page views, their times and bytes.
func TestBenchBrowseTextAndJSON(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<html><head><link rel="stylesheet" href="/a.css"></head><body><img src="/b.png"></body></html>`))
		case "/a.css":
			w.Header().Set("Content-Type", "text/css")
			w.Write([]byte(strings.Repeat("p{}", 100)))
		case "/b.png":
			w.Write([]byte(strings.Repeat("x", 5000)))
		default:
			http.NotFound(w, r)
		}
	}))
	defer s.Close()
	code, out, stderr := runCLI(t, nil, "bench", "--scenario", "browse", "-c", "2", "--duration", "300ms", "--warmup", "0s", "--url", s.URL+"/")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"browse " + s.URL + "/ (h1): 2 visitors, up to 6 connections each", "page view (ms):", "2.0 assets"} {
		if !strings.Contains(out, w) {
			t.Errorf("text lacks %q:\n%s", w, out)
		}
	}
	code, out, stderr = runCLI(t, nil, "bench", "--scenario", "browse", "-c", "1", "--duration", "300ms", "--warmup", "0s", "-o", "json", "--url", s.URL+"/")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep result.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	b := rep.Browse
	if rep.Scenario != "browse" || b == nil || b.PageViewsOK == 0 || b.Assets.Mean != 2 || b.WireIn.Mean < 5000 || len(rep.Runs) != 0 {
		t.Fatalf("report: %+v, browse %+v", rep, b)
	}
	// Nothing answers whole: exit 6.
	if code, _, stderr := runCLI(t, nil, "bench", "--scenario", "browse", "--duration", "200ms", "--warmup", "0s", "--url", s.URL+"/missing"); code != 6 {
		t.Fatalf("no page view whole: exit %d: %s", code, stderr)
	}
}
