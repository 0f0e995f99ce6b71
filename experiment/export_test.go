package experiment

import (
	"context"
	"github.com/wptest/wptest/results"
	"io"
	"path/filepath"

	"github.com/wptest/wptest/provision/cloud"
)

// LoadOnly is a runner with only its load side: the run's load generator
// machines (all of them) and the server's address, no profile applied and
// no sampler, for tests of how the load is made and recorded.
type LoadOnly struct{ r *runner }

// NewLoadOnly connects to ms's load generators as `wptest run` does (exe
// installed on each), with sp's scenarios and ports; dir is the run directory.
func NewLoadOnly(ctx context.Context, dir, exe string, log io.Writer, sp *Spec, ms []cloud.Machine, addr string) (*LoadOnly, error) {
	r := &runner{sp: sp, dir: dir, opt: Options{Exe: exe, Log: log}, srv: &server{addr: addr},
		man: &results.Manifest{Format: results.ManifestFormat, ID: "load-only", Experiment: sp.Name, PlanHash: sp.PlanHash(), Columns: sp.Columns, Scenarios: sp.Scenarios,
			Repetitions: sp.Repetitions, Points: len(sp.Plan()), Complete: true, Machines: ms}}
	lg, err := r.loadGenerator(ctx, ms)
	if err != nil {
		return nil, err
	}
	r.lg = lg
	r.noteLoadMachines(ctx)
	return &LoadOnly{r: r}, nil
}

func (l *LoadOnly) Close() error { return l.r.lg.Close() }

// Measure makes p's load as runner.measure does for the page kinds and
// the crowd (without the probe and the server's samples).
func (l *LoadOnly) Measure(ctx context.Context, p results.Point) (results.Record, error) {
	r := l.r
	sc := r.sp.scenario(p.Scenario)
	rec := results.Record{Point: p, LoadHost: r.lg.Name()}
	j, _, err := kindOf(sc).job(ctx, r, point{sc: sc, p: p, cfg: r.baseConfig(sc, p.Visitors)})
	if err != nil {
		return rec, err
	}
	res, err := r.load(ctx, j, &rec)
	rec.Set = res.Set
	return rec, err
}

// Write writes the manifest and recs as the run directory's files.
func (l *LoadOnly) Write(recs []results.Record) error {
	st, _, err := results.OpenStore(l.r.dir)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, rec := range recs {
		if err := st.Append(rec); err != nil {
			return err
		}
	}
	return l.r.man.Write(l.r.dir)
}

// StartRun makes the run directory and manifest as Run does before the
// machines come up, and appends recs to its results.jsonl as the runner
// does after each point.
func StartRun(sp *Spec, src []byte, opt Options, recs []results.Record) (string, error) {
	dir := filepath.Join(opt.RunsDir, opt.ID)
	man, err := openManifest(sp, src, opt, dir)
	if err != nil {
		return "", err
	}
	man.Complete = true
	if err := man.Write(dir); err != nil {
		return "", err
	}
	st, _, err := results.OpenStore(dir)
	if err != nil {
		return "", err
	}
	defer st.Close()
	for _, r := range recs {
		if err := st.Append(r); err != nil {
			return "", err
		}
	}
	return dir, nil
}
