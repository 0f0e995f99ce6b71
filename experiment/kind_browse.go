package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/results"
)

// browseKind is a visitor who loads a page and every asset it references,
// as a browser does (benchgen.Browse): over up to conns HTTP/1.1
// connections (default 6, as browsers), or one multiplexed h2/h2c/h3
// connection. One point per visitor count; its figures are per page view.
//
//	scenario "browse-h1" {
//	  kind     = "browse"
//	  path     = "/"
//	  visitors = [10]
//	  proto    = "h1"   # h1, h2, h2c or h3
//	  conns    = 6      # h1 only; h2, h2c, h3: 1
//	  think    = "0s"   # a visitor's pause between page views
//	}
//
// duration, warmup and timeout (per page view) are the common attributes.
type browseKind struct{}

func init() { scenarioKinds["browse"] = browseKind{} }

// maxBrowseConns bounds conns: far above any browser's, and far below a
// count that would make one visitor a crowd.
const maxBrowseConns = 64

func (browseKind) attrs() []hcl.AttributeSchema {
	return []hcl.AttributeSchema{{Name: "conns"}, {Name: "think"}}
}

func (browseKind) decode(l *loader, sc scenarioHCL, s *results.Scenario, r func(string) hcl.Range) {
	bs := &results.BrowseSpec{Conns: 1}
	if s.Proto == "h1" {
		bs.Conns = benchgen.DefaultBrowserConns
	}
	content, _ := sc.Body.Content(&hcl.BodySchema{Attributes: browseKind{}.attrs()}) // noBlocks reported the rest
	if a, ok := content.Attributes["conns"]; ok {
		var n int
		if d := gohcl.DecodeExpression(a.Expr, l.ctx, &n); d.HasErrors() {
			l.ds = append(l.ds, d...)
		} else if n < 1 || n > maxBrowseConns {
			l.bad(a.Expr.Range(), "Invalid conns", fmt.Sprintf("conns = %d: want 1 to %d (browsers open 6).", n, maxBrowseConns))
		} else if s.Proto != "h1" && n != 1 {
			l.bad(a.Expr.Range(), "Invalid conns", fmt.Sprintf("conns = %d: over %s a visitor multiplexes its requests on one connection; conns is for h1.", n, s.Proto))
		} else {
			bs.Conns = n
		}
	}
	if a, ok := content.Attributes["think"]; ok {
		var t string
		if d := gohcl.DecodeExpression(a.Expr, l.ctx, &t); d.HasErrors() {
			l.ds = append(l.ds, d...)
		} else {
			bs.Think = dur(t, 0, a.Expr.Range(), &l.ds)
		}
	}
	if s.Requests > 0 || s.Rate > 0 {
		l.bad(r("requests"), "Browse measures a time window", "A browse scenario's visitors browse for duration (closed loop, with think time between page views): no requests or rate.")
	}
	s.Browse = bs
}

func (browseKind) estimate(sc results.Scenario) time.Duration {
	return sc.Warmup + sc.Duration + estimateOverhead
}

func (browseKind) job(ctx context.Context, r *runner, m point) (benchgen.Job, func(*results.Record, *result.Server), error) {
	bc := benchgen.BrowseConfig{Base: m.cfg, Visitors: m.p.Visitors, Duration: m.sc.Duration, Warmup: m.sc.Warmup}
	if bs := m.sc.Browse; bs != nil {
		bc.Conns, bc.Think = bs.Conns, bs.Think
	}
	if m.sc.Proto != "h1" {
		bc.Conns = 0 // multiplexed: one
	}
	j, err := benchgen.NewBrowseJob(bc)
	return j, nil, err
}
