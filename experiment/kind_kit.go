package experiment

import (
	"context"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/results"
)

// kitKind is the Apache kit's ten metrics: one point, at its throughput
// concurrency; its scaling levels are runs inside it.
type kitKind struct{}

func (kitKind) attrs() []hcl.AttributeSchema { return nil }

func (kitKind) decode(l *loader, sc scenarioHCL, s *results.Scenario, r func(string) hcl.Range) {
	if len(s.Visitors) != 1 {
		l.bad(r("visitors"), "Kit takes one concurrency", "visitors = [50]: the kit's throughput concurrency; its scaling steps are levels = [...].")
	}
}

func (kitKind) estimate(sc results.Scenario) time.Duration {
	return time.Duration(len(sc.Levels)+4)*(sc.Warmup+sc.Duration) + estimateOverhead
}

// job: startup first, as benchgen.Kit orders it, measured on the server
// (runner.startup); the srvstat join over the throughput window after, as
// for the other kinds: the sampler keeps every sample.
func (kitKind) job(ctx context.Context, r *runner, m point) (benchgen.Job, func(*results.Record, *result.Server), error) {
	st, err := r.startup(ctx, m.ps, m.cfg)
	if err != nil {
		return benchgen.Job{}, nil, err
	}
	sc := m.sc
	kc := benchgen.KitConfig{Base: m.cfg, Concurrency: m.p.Visitors, Levels: sc.Levels, ErrorClients: sc.ErrorClients}
	if sc.TransferPath != "" {
		kc.TransferURL = r.url(sc.TransferPath, sc.Proto)
	}
	j, err := benchgen.NewKitJob(kc)
	finish := func(rec *results.Record, srv *result.Server) {
		if rec.Kit != nil {
			rec.Kit.Startup = st
			rec.Kit.Server = srv
		}
	}
	return j, finish, err
}
