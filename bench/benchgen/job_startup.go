package benchgen

import (
	"context"
	"errors"
	"time"
)

// startupJob is the kit's startup metric, run on the server itself (its
// shell runs the restart command). It is not split.
type startupJob struct{}

func init() { jobKinds[JobStartup] = startupJob{} }

func (startupJob) do(ctx context.Context, j Job, cfg Config, opt JobOptions) (JobResult, error) {
	sj := new(StartupJob)
	if err := j.Decode(sj); err != nil {
		return JobResult{}, err
	}
	if sj.Restart == "" {
		return JobResult{}, errors.New("job: kind startup without a restart command")
	}
	if opt.Shell == nil {
		return JobResult{}, errors.New("job: startup needs a shell to run its restart command")
	}
	st, err := Startup(ctx, func(ctx context.Context) error { return opt.Shell(ctx, sj.Restart) }, cfg, sj.Rounds)
	if err != nil {
		return JobResult{}, err
	}
	return JobResult{Startup: &st}, nil
}

func (startupJob) has(res JobResult) bool { return res.Startup != nil }

func (startupJob) timeout(j Job, one time.Duration) time.Duration {
	rounds := 3
	if s := specOf[StartupJob](j); s != nil && s.Rounds > 0 {
		rounds = s.Rounds
	}
	return time.Duration(rounds) * 3 * time.Minute // each: the restart, then up to a minute of polling
}

func (startupJob) clock(res *JobResult, f func(time.Time) time.Time) {}
func (startupJob) window(res JobResult) Window                       { return Window{} }
func (startupJob) load(j Job) (int, int64, float64, bool)            { return 0, 0, 0, false }
func (startupJob) share(j Job, i, n int, s Share) Job                { return j }
func (startupJob) join(parts []JobResult) (JobResult, error) {
	return JobResult{}, errors.New("join: startup is not split")
}
