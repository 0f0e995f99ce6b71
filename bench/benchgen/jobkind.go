package benchgen

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/wptest/wptest/bench/result"
)

// jobKind is what one kind of job knows of itself: how to run it here, how
// to tell its result, how long it may take, how its result moves to
// another machine's clock, and whether and how it splits between several
// load generators and joins back. Each kind is its own file (job_*.go) and
// registers itself in jobKinds.
type jobKind interface {
	// do runs j here; cfg is j.Config with the job runner's Progress.
	do(ctx context.Context, j Job, cfg Config, opt JobOptions) (JobResult, error)
	// has says whether res holds this kind's result.
	has(res JobResult) bool
	// timeout bounds j; one is a single run's bound from j.Config.
	timeout(j Job, one time.Duration) time.Duration
	// clock moves every window start of res with f (a load generator's
	// clock to the controlling host's).
	clock(res *JobResult, f func(time.Time) time.Time)
	// window is res's measured window and its good answers.
	window(res JobResult) Window
	// load is what a split divides: visitors, and a request count and a
	// rate if the job has them. split false: the job runs on one load
	// generator whole (the kit: one load tool's view, not a load to scale).
	load(j Job) (visitors int, requests int64, rate float64, split bool)
	// share is j's part i of n: s of its load, and its share of anything
	// else the generators divide (the crowd's newcomers, sent in turns).
	share(j Job, i, n int, s Share) Job
	// join makes one result of the shares' (each with its histograms,
	// their windows on one clock), without histograms of its own: they are
	// kept once, in the shares.
	join(parts []JobResult) (JobResult, error)
}

// jobKinds are the job kinds by name (Job.Kind); each kind's file adds
// itself.
var jobKinds = map[string]jobKind{}

func (j Job) kind() (jobKind, error) {
	k, ok := jobKinds[j.Kind]
	if !ok {
		names := make([]string, 0, len(jobKinds))
		for n := range jobKinds {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("job: kind %q: want one of %s", j.Kind, strings.Join(names, ", "))
	}
	return k, nil
}

// Window is a measured window (on the clock its result is on), its good
// answers, and the warm-up before it.
type Window struct {
	From, To time.Time
	OK       int64
	Warmup   time.Duration
}

// runWindow is a run's window.
func runWindow(run result.Run) Window {
	from, _ := time.Parse(time.RFC3339Nano, run.Start)
	return Window{From: from, To: from.Add(time.Duration(run.ElapsedMs * float64(time.Millisecond))), OK: run.Outcomes.OK,
		Warmup: time.Duration(run.WarmupMs * float64(time.Millisecond))}
}

// runClock moves run's window start with f.
func runClock(run *result.Run, f func(time.Time) time.Time) {
	if run == nil {
		return
	}
	if t, err := time.Parse(time.RFC3339Nano, run.Start); err == nil {
		run.Start = f(t).UTC().Format(time.RFC3339Nano)
	}
}

// Share is one load generator's part of a split job.
type Share struct {
	Visitors int
	Requests int64
	Rate     float64
}

// Check says whether res is a result of j's kind (a load generator's
// answer to j).
func (j Job) Check(res JobResult) bool {
	k, err := j.kind()
	return err == nil && res.Kind == j.Kind && k.has(res)
}

// OnClock moves res's windows with f.
func (j Job) OnClock(res *JobResult, f func(time.Time) time.Time) {
	if k, err := j.kind(); err == nil {
		k.clock(res, f)
	}
}

// Window is res's measured window (res: j's result).
func (j Job) Window(res JobResult) Window {
	if k, err := j.kind(); err == nil {
		return k.window(res)
	}
	return Window{}
}

// Load is what splitting j between load generators divides; split false:
// j runs on one load generator whole.
func (j Job) Load() (visitors int, requests int64, rate float64, split bool) {
	k, err := j.kind()
	if err != nil {
		return 0, 0, 0, false
	}
	return k.load(j)
}

// Share is j's part i of n load generators: s of its load. Its StartAt and
// Raw are the caller's (Config).
func (j Job) Share(i, n int, s Share) Job {
	k, err := j.kind()
	if err != nil {
		return j
	}
	return k.share(j, i, n, s)
}

// Join makes one result of the shares of j (JoinRuns, JoinCrowds, ...).
func (j Job) Join(parts []JobResult) (JobResult, error) {
	k, err := j.kind()
	if err != nil {
		return JobResult{}, err
	}
	res, err := k.join(parts)
	res.Kind = j.Kind
	return res, err
}

// Timeout bounds the job generously from its planned windows (Ctrl-C and
// the run's context end it sooner): a dead load host cannot hang the run.
func (j Job) Timeout() time.Duration {
	c := j.Config
	one := c.Warmup + c.Duration + c.Timeout + time.Minute
	if c.Duration == 0 {
		one += 30 * time.Minute // bounded by a request count only
	}
	if c.Timeout == 0 {
		one += DefaultTimeout
	}
	d := one
	if k, err := j.kind(); err == nil {
		d = k.timeout(j, one)
	}
	return d + 2*time.Minute
}
