package benchgen

import (
	"context"
	"time"

	"github.com/wptest/wptest/bench/result"
)

// crowdJob is the crowd scenario: its background visitors split, its
// newcomers sent by the load generators in turns; joined by JoinCrowds.
type crowdJob struct{}

func init() { jobKinds[JobCrowd] = crowdJob{} }

func (crowdJob) do(ctx context.Context, j Job, cfg Config, opt JobOptions) (JobResult, error) {
	c := new(CrowdJob)
	if err := j.Decode(c); err != nil {
		return JobResult{}, err
	}
	cr, err := Crowd(ctx, CrowdConfig{Base: cfg, ProbeURL: c.ProbeURL, Visitors: c.Visitors, ClickEvery: c.ClickEvery,
		ProbeEvery: c.ProbeEvery, GiveUp: c.GiveUp, Warmup: c.Warmup, Duration: c.Duration, ProbeSlot: c.ProbeSlot, ProbeSlots: c.ProbeSlots, Hold: opt.Hold})
	if err != nil {
		return JobResult{}, err
	}
	return JobResult{Set: result.Set{Crowd: &cr}}, nil
}

func (crowdJob) has(res JobResult) bool { return res.Crowd != nil }

func (crowdJob) timeout(j Job, one time.Duration) time.Duration {
	cr := specOf[CrowdJob](j)
	if cr == nil {
		return one
	}
	cc, _ := CrowdConfig{ClickEvery: cr.ClickEvery, ProbeEvery: cr.ProbeEvery, GiveUp: cr.GiveUp, Warmup: cr.Warmup, Duration: cr.Duration}.withDefaults()
	// The warm-up, a first click that takes up to GiveUp, the newcomers'
	// schedule, the last newcomer's GiveUp and the crowd's clicks in flight.
	return cc.Warmup + cc.Duration + 3*cc.GiveUp + 2*time.Minute
}

func (crowdJob) clock(res *JobResult, f func(time.Time) time.Time) {
	if res.Crowd != nil {
		runClock(&res.Crowd.Background, f)
	}
}

func (crowdJob) window(res JobResult) Window {
	if res.Crowd == nil {
		return Window{}
	}
	return runWindow(res.Crowd.Background)
}

func (crowdJob) load(j Job) (int, int64, float64, bool) {
	c := specOf[CrowdJob](j)
	if c == nil {
		return 0, 0, 0, false
	}
	return c.Visitors, 0, 0, true
}

func (crowdJob) share(j Job, i, n int, s Share) Job {
	c := specOf[CrowdJob](j)
	if c == nil {
		return j
	}
	c.Visitors, c.ProbeSlot, c.ProbeSlots = s.Visitors, i, n
	shared, _ := withSpec(j, c) // it came from JSON: it goes back
	return shared
}

func (crowdJob) join(parts []JobResult) (JobResult, error) {
	crs := make([]result.Crowd, len(parts))
	for i, p := range parts {
		crs[i] = *p.Crowd
	}
	joined, err := JoinCrowds(crs)
	if err != nil {
		return JobResult{}, err
	}
	joined.Raw, joined.Background.Raw = nil, nil // stored once: in each generator's share
	return JobResult{Set: result.Set{Crowd: &joined}}, nil
}
