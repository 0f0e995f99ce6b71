package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// bench against a URL with userinfo, text and -o json, the ab scenario
// (whose run is named by its URL) and the page one: the output shows the
// URL without it. (bench sends no Authorization from a URL's userinfo;
// the server counts requests, to be sure each run reached it.)
func TestBenchOutputHidesUserinfo(t *testing.T) {
	const pw = "Pa55-w0rd-b"
	var authed atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		authed.Add(1)
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	u := strings.Replace(srv.URL, "http://", "http://carol:"+pw+"@", 1) + "/page"
	for _, args := range [][]string{
		{"bench", "--scenario", "ab", "-c", "2", "-n", "20", "--url", u},
		{"bench", "--scenario", "ab", "-c", "2", "-n", "20", "-o", "json", "--url", u},
		{"bench", "--scenario", "page", "-c", "2", "--duration", "200ms", "--warmup", "50ms", "--url", u},
		{"bench", "--scenario", "page", "-c", "2", "--duration", "200ms", "--warmup", "50ms", "-o", "json", "--url", u},
	} {
		before := authed.Load()
		code, out, stderr := runCLI(t, nil, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		for _, bad := range []string{pw, "carol"} {
			if strings.Contains(out, bad) || strings.Contains(stderr, bad) {
				t.Errorf("%v shows %q:\n%s\n%s", args, bad, out, stderr)
			}
		}
		if (args[2] == "ab" || args[len(args)-3] == "json") && !strings.Contains(out, "127.0.0.1") {
			t.Errorf("%v does not name the server:\n%s", args, out)
		}
		if authed.Load() == before {
			t.Errorf("%v: no request reached the server", args)
		}
	}
}
