package experiment

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/internal/golden"
	"github.com/wptest/wptest/results"
)

const browseHCL = `
experiment "e" {}
fixture "minimal" { seed = 1 }
profile "caddy" {}
variable "pause" { default = "2s" }
scenario "browse-h1" {
  kind     = "browse"
  visitors = [4, 8]
  duration = "5s"
  warmup   = "1s"
}
scenario "browse-h1-2" {
  kind     = "browse"
  visitors = [4]
  conns    = 2
  think    = var.pause
}
scenario "browse-h2" {
  kind     = "browse"
  visitors = [4]
  proto    = "h2"
}
`

// A browse block: h1 visitors open up to 6 connections unless conns says
// otherwise, h2 ones one; think time may come from a variable; one point
// per visitor count; the job is the point's browse run.
func TestBrowseKindBlockAndJob(t *testing.T) {
	sp, err := Load("exp.hcl", []byte(browseHCL), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type settings struct {
		Conns int           `json:"conns"`
		Think time.Duration `json:"think"`
	}
	want := []settings{{Conns: 6}, {Conns: 2, Think: 2 * time.Second}, {Conns: 1}}
	for i, sc := range sp.Scenarios {
		var got settings
		if err := results.OwnOf(sc, &got); err != nil || got != want[i] {
			t.Errorf("%s: its own settings %s (%v), want %+v", sc.Name, sc.Own, err, want[i])
		}
	}
	if got := len(sp.Plan()); got != 4 {
		t.Errorf("plan: %d points, want 4 (two visitor counts, then one each)", got)
	}
	h1 := sp.Scenarios[0]
	if got := kindOf(h1).estimate(h1); got != 6*time.Second+estimateOverhead {
		t.Errorf("estimate %v", got)
	}
	r := &runner{sp: sp, srv: &server{addr: "127.0.0.1"}}
	for i, sc := range sp.Scenarios {
		p := results.Point{Visitors: 4}
		j, finish, err := kindOf(sc).job(context.Background(), r, point{sc: sc, p: p, cfg: r.baseConfig(sc, 4)})
		if err != nil || finish != nil {
			t.Fatalf("%s: job: %v", sc.Name, err)
		}
		var bj benchgen.BrowseJob
		b := &bj
		if err := j.Decode(b); err != nil {
			b = nil
		}
		wantConns := want[i].Conns
		if sc.Proto != "h1" {
			wantConns = 0 // Browse's own: one, multiplexed
		}
		if j.Kind != benchgen.JobBrowse || b == nil || b.Visitors != 4 || b.Conns != wantConns || b.Think != want[i].Think ||
			b.Duration != sc.Duration || b.Warmup != sc.Warmup || j.Config.Proto != sc.Proto || j.Config.Timeout != sc.Timeout {
			t.Errorf("%s: job %+v, browse %+v", sc.Name, j, b)
		}
		if v, _, _, split := j.Load(); v != 4 || !split {
			t.Errorf("%s: load %d, split %v", sc.Name, v, split)
		}
	}
}

// The shipped experiments without a browse scenario plan as they did when
// testdata/plan_hashes.txt was written, so a change to their plans is seen
// and chosen (a run directory from before it no longer resumes). The browse
// kind changed none of them; columns getting ids (Spec.Columns,
// Point.Column) changed every one; quick.hcl's repetitions and
// cpanel_max_request_workers variables changed its own; a source URL no
// longer passed to cPanel's Apache unless -var gives one (operator_only)
// changed quick.hcl's and ab-1k.hcl's; ab-1k.hcl's php_requests variable
// (the PHP document's -n apart, the same 50,000 by default) changed its own;
// contradictions beside every claim (the file's bytes are in the hash)
// changed apache-kit.hcl's and ab-1k.hcl's; the machines block's keys in
// snake_case with each driver's attributes its own (cloud.Machines.Own),
// then each kind's settings its own (results.Scenario.Own), changed every
// one.
func TestPlanHashesWithoutBrowseKept(t *testing.T) {
	var b strings.Builder
	for _, f := range []string{"quick.hcl", "apache-kit.hcl", "ab-1k.hcl"} {
		sp := loadFile(t, filepath.Join("..", "experiments", f), LoadOptions{})
		fmt.Fprintf(&b, "%s %s\n", f, sp.PlanHash())
	}
	golden.File(t, filepath.Join("testdata", "plan_hashes.txt"), []byte(b.String()))
}

// A kind of its own package gets from the runner, through DataPoint, the
// URL of another path on the column's server in the scenario's protocol
// (a crowd's probe_path), as the runner makes its base load's.
func TestOwnKindGetsTheRunnersURLs(t *testing.T) {
	src := "experiment \"e\" {}\nfixture \"minimal\" { seed = 1 }\nprofile \"caddy\" {}\nscenario \"c\" {\n  kind = \"crowd\"\n  proto = \"h2\"\n  path = \"/\"\n  probe_path = \"/p.js\"\n  visitors = [5]\n}\n"
	sp, err := Load("exp.hcl", []byte(src), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc := sp.Scenarios[0]
	r := &runner{sp: sp, srv: &server{addr: "127.0.0.1"}}
	j, _, err := kindOf(sc).job(context.Background(), r, point{sc: sc, p: results.Point{Visitors: 5}, cfg: r.baseConfig(sc, 5)})
	var c benchgen.CrowdJob
	if err != nil || j.Decode(&c) != nil || c.ProbeURL != r.url("/p.js", "h2") || j.Config.URL != r.url("/", "h2") {
		t.Errorf("job %+v, crowd %s, %v: want the probe at %s", j, j.Spec, err, r.url("/p.js", "h2"))
	}
}
