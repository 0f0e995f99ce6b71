package experiment

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/wptest/wptest/results"
)

// A crowd's warm-up is at least one click_every: the common default (3 s)
// is raised for the crowd's job and its estimate; a longer one is kept.
// (One written shorter is refused: testdata/errors/crowd-warmup.txtar.)
func TestCrowdWarmupIsAtLeastOneClick(t *testing.T) {
	sp := loadFile(t, filepath.Join("..", "experiments", "corehttpd-vs-cpanel.hcl"), LoadOptions{})
	var crowd results.Scenario
	for _, sc := range sp.Scenarios {
		if sc.Kind == "crowd" {
			crowd = sc
		}
	}
	if crowd.ClickEvery != 10*time.Second || crowd.Warmup >= crowd.ClickEvery {
		t.Fatalf("the post's crowd: click_every %s, warmup %s (want the common default, shorter)", crowd.ClickEvery, crowd.Warmup)
	}
	long := crowd
	long.Warmup = 12 * time.Second
	r := &runner{sp: sp, addr: "127.0.0.1"}
	for _, tc := range []struct {
		sc   results.Scenario
		want time.Duration
	}{{crowd, 10 * time.Second}, {long, 12 * time.Second}} {
		j, _, err := crowdKind{}.job(context.Background(), r, point{sc: tc.sc, p: results.Point{Visitors: 5}, cfg: r.baseConfig(tc.sc, 5)})
		if err != nil || j.Crowd == nil || j.Crowd.Warmup != tc.want {
			t.Errorf("warmup %s: job %+v, %v; want the crowd's warm-up %s", tc.sc.Warmup, j.Crowd, err, tc.want)
		}
		if e := (crowdKind{}).estimate(tc.sc); e != tc.want+tc.sc.Duration+tc.sc.GiveUp/2+estimateOverhead {
			t.Errorf("warmup %s: estimate %s", tc.sc.Warmup, e)
		}
	}
}
