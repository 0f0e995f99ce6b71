package experiment

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/results"
)

const estimateHCL = `
experiment "est" {
  repetitions = 2
  warmup      = "2s"
}
machines "local" {}
fixture "minimal" {
  seed = 1
}
profile "tuned-apache" {}
profile "caddy" {}
scenario "static" {
  kind     = "static"
  path     = "/wptest-probe.js"
  visitors = [10, 50]
  duration = "%s"
  warmup   = "1s"
}
scenario "page" {
  kind     = "page"
  path     = "/"
  visitors = [4]
  requests = 66
  duration = "0s"
  warmup   = "0s"
}
`

func estimateFor(t *testing.T, window string) Estimate {
	t.Helper()
	sp, err := Load("est.hcl", []byte(fmt.Sprintf(estimateHCL, window)), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return EstimateOf(sp)
}

func partOf(t *testing.T, e Estimate, what string) EstimatePart {
	t.Helper()
	for _, p := range e.Parts {
		if p.What == what {
			return p
		}
	}
	t.Fatalf("no part %q in %+v", what, e.Parts)
	return EstimatePart{}
}

// The plan's estimate is its parts: two repetitions of two profiles are
// four swaps (two first applies, two back), a warm-up each, one seed; the
// windowed scenario's points at their windows, the request-count one's at
// the default page rate; the total is their sum, and a longer window adds
// exactly its difference for each of the scenario's points.
func TestPlanEstimateFromParts(t *testing.T) {
	e := estimateFor(t, "4s")
	var sum time.Duration
	for _, p := range e.Parts {
		if p.Total != time.Duration(p.N)*p.Each || p.From == "" {
			t.Errorf("part %+v: total is not N × each, or says not where it comes from", p)
		}
		sum += p.Total
	}
	if sum != e.Total {
		t.Errorf("total %s, parts sum to %s", e.Total, sum)
	}
	for what, n := range map[string]int{"first apply on the server": 1, "first apply of each other profile": 1,
		"swaps back to a profile applied before": 2, "seed and verify the fixture": 1, "warm-up after each swap": 4,
		"scenario static": 8, "scenario page": 4} {
		if p := partOf(t, e, what); p.N != n {
			t.Errorf("%s: %d, want %d", what, p.N, n)
		}
	}
	if p := partOf(t, e, "warm-up after each swap"); p.Each != 2*time.Second {
		t.Errorf("warm-up each %s, want the experiment's 2s", p.Each)
	}
	if p := partOf(t, e, "scenario static"); p.Each != 5*time.Second+estimateOverhead {
		t.Errorf("static point %s, want warmup 1s + duration 4s + overhead", p.Each)
	}
	// 66 requests at 4 visitors × the default page rate per visitor.
	want := estimateOverhead + time.Duration(66/(4*estPageRate.perSec)*float64(time.Second))
	if p := partOf(t, e, "scenario page"); p.Each != want || !strings.Contains(p.From, "66 requests") {
		t.Errorf("page point %s (%s), want %s from the default rate", p.Each, p.From, want)
	}
	if longer := estimateFor(t, "9s"); longer.Total-e.Total != 8*5*time.Second {
		t.Errorf("a window 5s longer adds %s to the total, want 8 points × 5s", longer.Total-e.Total)
	}
	if strings.Contains(fmt.Sprint(e.Parts), "machines made") {
		t.Errorf("the local driver makes no machines, yet the estimate counts them: %+v", e.Parts)
	}
}

// During the run a request-count point's time is its requests at the
// rate measured for its column and scenario; others keep the default.
func TestPointTimeUsesMeasuredRate(t *testing.T) {
	sc := results.Scenario{Name: "php", Kind: "ab", Requests: 1000}
	p := results.Point{Column: "caddy", Profile: "caddy", Scenario: "php", Visitors: 5}
	def := pointTime(sc, p, nil)
	if want := estimateOverhead + time.Duration(1000/estStaticRate.perSec*float64(time.Second)); def != want {
		t.Errorf("default %s, want %s", def, want)
	}
	rates := Rates{"caddy/php": 40} // per visitor: 200 req/s at 5
	if got := pointTime(sc, p, rates); got != estimateOverhead+5*time.Second {
		t.Errorf("measured: %s, want 1000 requests at 200/s + overhead", got)
	}
	other := p
	other.Column = "tuned-apache"
	if got := pointTime(sc, other, rates); got != def {
		t.Errorf("another column's rate was used: %s", got)
	}
	win := results.Scenario{Name: "w", Kind: "static", Duration: 3 * time.Second, Warmup: time.Second}
	if got := pointTime(win, results.Point{Column: "caddy", Scenario: "w"}, Rates{"caddy/w": 1}); got != 4*time.Second+estimateOverhead {
		t.Errorf("a windowed point %s, want its windows", got)
	}
}

// The run's first line says on which machines when --target picked
// another driver than the file's block: the post's file, whose block is
// Hetzner's, on netns names netns's image and what of the block it left;
// as the file says, it adds nothing.
func TestEstimateShortSaysWhatTargetLeft(t *testing.T) {
	on := EstimateOf(loadFile(t, "../experiments/corehttpd-vs-cpanel.hcl", LoadOptions{Target: "netns"})).Short()
	for _, want := range []string{`; machines netns: image "debian-13", load_generators 1`, `block's server_type "ccx23", image "alma-9", location "fsn1" are for hetzner, not used)`} {
		if !strings.Contains(on, want) {
			t.Errorf("--target netns: %q lacks %q", on, want)
		}
	}
	if s := EstimateOf(loadFile(t, "../experiments/corehttpd-vs-cpanel.hcl", LoadOptions{})).Short(); strings.Contains(s, "machines") {
		t.Errorf("the file's own machines: %q names them", s)
	}
}

// Without the provider's API, the cost is the list price for the
// estimated time and, at worst, for the machines' whole ttl, said to be a
// list price with its source and date and why the API was not asked.
func TestEstimateListPrice(t *testing.T) {
	e := Estimate{Total: 30 * time.Minute, TTL: 6 * time.Hour, PriceErr: "no Hetzner API token"}
	e.PriceList(cloud.ListPrice{ServerType: "cx99", HourlyGross: "0.0100", Currency: "EUR", Source: "https://example.com/prices", Date: "2026-12-07"}, 2)
	if e.Hourly != "0.0200" || e.Machines != 2 || e.Cost < 0.00999 || e.Cost > 0.01001 || e.TTLCost < 0.11999 || e.TTLCost > 0.12001 {
		t.Fatalf("priced %+v: want 0.0200/h for 2, 0.01 for 30m, 0.12 for 6h", e)
	}
	var b strings.Builder
	e.WriteText(&b)
	for _, want := range []string{
		"cost ≈ 0.0100 EUR: 0.0200 EUR per hour for 2 machines (gross; list price of cx99: 0.0100 EUR per hour each, published at https://example.com/prices, read 2026-12-07) for 30m0s\n",
		"cost at worst ≈ 0.1200 EUR: the machines living their whole ttl, 6h0m0s",
		"  list prices, not read from the provider's API (no Hetzner API token)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("estimate lacks %q:\n%s", want, b.String())
		}
	}
}
