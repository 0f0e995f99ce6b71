package ab

import (
	"context"
	"testing"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/results"
)

// Over h1 the load is ab's HTTP/1.0 requests, so the server does the work
// it did under ab; over h2 there is no HTTP/1.0 to send.
func TestJobSendsHTTP10OverH1(t *testing.T) {
	for _, c := range []struct {
		proto  string
		http10 bool
	}{{"h1", true}, {"h2", false}} {
		p := experiment.DataPoint{Scenario: results.Scenario{Kind: Name, Proto: c.proto},
			Config: benchgen.Config{URL: "http://127.0.0.1/wptest-1k.html", Proto: c.proto, Visitors: 5, Requests: 100}}
		j, finish, err := kind{}.Job(context.Background(), p)
		if err != nil || finish != nil || j.Kind != benchgen.JobRun || j.Config.HTTP10 != c.http10 || j.Config.Requests != 100 {
			t.Errorf("%s: job %+v, %v; want a run of 100 requests, HTTP/1.0 %v", c.proto, j, err, c.http10)
		}
	}
}

// ab's figures are its own words for what it prints.
func TestFiguresInAbsWords(t *testing.T) {
	for key, label := range map[string]string{"rps": "Requests per second", "mean_ms": "Time per request, mean (ms)", "html_bytes": "HTML transferred (bytes)"} {
		if m, ok := results.MetricOf(Name, key); !ok || m.Label != label {
			t.Errorf("%s: %+v, want the label %q", key, m, label)
		}
	}
}
