package benchgen

import (
	"context"
	"time"

	"github.com/wptest/wptest/bench/result"
)

// runJob is one Run (the page, static, compression and ab scenarios):
// split by its visitors, request count and rate; joined by JoinRuns.
type runJob struct{}

func init() { jobKinds[JobRun] = runJob{} }

func (runJob) do(ctx context.Context, j Job, cfg Config, opt JobOptions) (JobResult, error) {
	r, err := Run(ctx, cfg)
	if err != nil {
		return JobResult{}, err
	}
	return JobResult{Set: result.Set{Run: &r}}, nil
}

func (runJob) has(res JobResult) bool                            { return res.Run != nil }
func (runJob) timeout(j Job, one time.Duration) time.Duration    { return one }
func (runJob) clock(res *JobResult, f func(time.Time) time.Time) { runClock(res.Run, f) }
func (runJob) window(res JobResult) Window {
	if res.Run == nil {
		return Window{}
	}
	return runWindow(*res.Run)
}

func (runJob) load(j Job) (int, int64, float64, bool) {
	return j.Config.Visitors, j.Config.Requests, j.Config.Rate, true
}

func (runJob) share(j Job, i, n int, s Share) Job {
	j.Config.Visitors, j.Config.Requests, j.Config.Rate = s.Visitors, s.Requests, s.Rate
	return j
}

func (runJob) join(parts []JobResult) (JobResult, error) {
	runs := make([]result.Run, len(parts))
	for i, p := range parts {
		runs[i] = *p.Run
	}
	joined, err := JoinRuns(runs)
	if err != nil {
		return JobResult{}, err
	}
	joined.Raw = nil // stored once: in each generator's share
	return JobResult{Set: result.Set{Run: &joined}}, nil
}
