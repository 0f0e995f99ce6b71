package benchgen

import (
	"context"
	"errors"
	"time"

	"github.com/wptest/wptest/bench/result"
)

// kitJob is the kit without its startup metric. It is not split: its
// sequence of runs is one load tool's (ab's) view, not a load to scale.
type kitJob struct{}

func init() { jobKinds[JobKit] = kitJob{} }

func (kitJob) do(ctx context.Context, j Job, cfg Config, opt JobOptions) (JobResult, error) {
	k := new(KitJob)
	if err := j.Decode(k); err != nil {
		return JobResult{}, err
	}
	kr, err := Kit(ctx, KitConfig{Base: cfg, TransferURL: k.TransferURL, Concurrency: k.Concurrency, Levels: k.Levels, ErrorClients: k.ErrorClients})
	if err != nil {
		return JobResult{}, err
	}
	return JobResult{Set: result.Set{Kit: &kr}}, nil
}

func (kitJob) has(res JobResult) bool { return res.Kit != nil }

func (kitJob) timeout(j Job, one time.Duration) time.Duration {
	n := 10 // the default levels and the kit's other runs
	if k := specOf[KitJob](j); k != nil && len(k.Levels) > 0 {
		n = len(k.Levels) + 4
	}
	return time.Duration(n) * one
}

func (kitJob) clock(res *JobResult, f func(time.Time) time.Time) {
	k := res.Kit
	if k == nil {
		return
	}
	for _, run := range []*result.Run{&k.Throughput, &k.KeepAliveOn, &k.KeepAliveOff, k.Transfer, &k.Errors} {
		runClock(run, f)
	}
	for i := range k.Scaling {
		runClock(&k.Scaling[i], f)
	}
}

func (kitJob) window(res JobResult) Window {
	if res.Kit == nil {
		return Window{}
	}
	return runWindow(res.Kit.Throughput)
}

func (kitJob) load(j Job) (int, int64, float64, bool) { return 0, 0, 0, false }
func (kitJob) share(j Job, i, n int, s Share) Job     { return j }
func (kitJob) join(parts []JobResult) (JobResult, error) {
	return JobResult{}, errors.New("join: the kit is not split")
}
