package crowd_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/experiment"
	_ "github.com/wptest/wptest/kinds/all" // the shipped file's other kinds
	"github.com/wptest/wptest/kinds/crowd"
	_ "github.com/wptest/wptest/provision/cloud/drivers" // the shipped file names its machines' driver
	"github.com/wptest/wptest/results"
)

// A crowd's warm-up is at least one click_every: the common default (3 s)
// is raised for the crowd's job and its estimate; a longer one is kept.
// (One written shorter is refused: experiment/testdata/errors/crowd-warmup.txtar.)
func TestWarmupIsAtLeastOneClick(t *testing.T) {
	file := filepath.Join("..", "..", "experiments", "corehttpd-vs-cpanel.hcl")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := experiment.Load(file, src, experiment.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var post results.Scenario
	for _, sc := range sp.Scenarios {
		if sc.Kind == crowd.Name {
			post = sc
		}
	}
	var own map[string]json.RawMessage
	if err := json.Unmarshal(post.Own, &own); err != nil || string(own["click_every"]) != "10000000000" || post.Warmup >= 10*time.Second {
		t.Fatalf("the post's crowd: click_every %s (%v), warmup %s (want the default 10s, the warm-up shorter)", own["click_every"], err, post.Warmup)
	}
	long := post
	long.Warmup = 12 * time.Second
	for _, tc := range []struct {
		sc   results.Scenario
		want time.Duration
	}{{post, 10 * time.Second}, {long, 12 * time.Second}} {
		p := experiment.DataPoint{Scenario: tc.sc, Point: results.Point{Visitors: 5},
			Config: benchgen.Config{URL: "http://127.0.0.1/wptest-probe.js", Visitors: 5, Warmup: tc.sc.Warmup, Duration: tc.sc.Duration},
			URL:    func(path string) string { return "http://127.0.0.1" + path }}
		j, _, err := crowd.Kind.Job(context.Background(), p)
		var c benchgen.CrowdJob
		if err != nil || j.Decode(&c) != nil || c.Warmup != tc.want {
			t.Errorf("warmup %s: job %s, %v; want the crowd's warm-up %s", tc.sc.Warmup, j.Spec, err, tc.want)
		}
		at := tc.sc
		at.Warmup = tc.want
		if e := crowd.Kind.Estimate(tc.sc); e != experiment.SweepEstimate(at)+c.GiveUp/2 || c.GiveUp != 30*time.Second {
			t.Errorf("warmup %s: estimate %s", tc.sc.Warmup, e)
		}
	}
}
