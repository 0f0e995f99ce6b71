package benchgen

import (
	"context"
	"time"

	"github.com/wptest/wptest/bench/result"
)

// JobBrowse is the browse scenario (Browse) as a job.
const JobBrowse = "browse"

// BrowseJob is BrowseConfig without its Base (Job.Config).
type BrowseJob struct {
	Visitors        int           `json:"visitors"`
	Conns           int           `json:"conns,omitempty"`
	Duration        time.Duration `json:"duration_ns,omitempty"`
	Warmup          time.Duration `json:"warmup_ns,omitempty"`
	Think           time.Duration `json:"think_ns,omitempty"`
	ViewsPerVisitor int           `json:"views_per_visitor,omitempty"`
	AcceptEncoding  string        `json:"accept_encoding,omitempty"`
	AssetOrigins    string        `json:"asset_origins,omitempty"`
	NoCSSRefs       bool          `json:"no_css_refs,omitempty"`
}

// NewBrowseJob is bc as a browse job.
func NewBrowseJob(bc BrowseConfig) (Job, error) {
	jc, err := toJobConfig(bc.Base)
	if err != nil {
		return Job{}, err
	}
	return withSpec(Job{Kind: JobBrowse, Config: jc}, BrowseJob{Visitors: bc.Visitors, Conns: bc.Conns, Duration: bc.Duration,
		Warmup: bc.Warmup, Think: bc.Think, ViewsPerVisitor: bc.ViewsPerVisitor, AcceptEncoding: bc.AcceptEncoding,
		AssetOrigins: bc.AssetOrigins, NoCSSRefs: bc.NoCSSRefs})
}

// browseJob runs Browse: split by its visitors, joined by JoinBrowse.
type browseJob struct{}

func init() { jobKinds[JobBrowse] = browseJob{} }

func (browseJob) do(ctx context.Context, j Job, cfg Config, opt JobOptions) (JobResult, error) {
	b := new(BrowseJob)
	if err := j.Decode(b); err != nil {
		return JobResult{}, err
	}
	br, err := Browse(ctx, BrowseConfig{Base: cfg, Visitors: b.Visitors, Conns: b.Conns, Duration: b.Duration, Warmup: b.Warmup,
		Think: b.Think, ViewsPerVisitor: b.ViewsPerVisitor, AcceptEncoding: b.AcceptEncoding, AssetOrigins: b.AssetOrigins, NoCSSRefs: b.NoCSSRefs})
	if err != nil {
		return JobResult{}, err
	}
	return JobResult{Set: result.Set{Browse: &br}}, nil
}

func (browseJob) has(res JobResult) bool { return res.Browse != nil }

func (browseJob) timeout(j Job, one time.Duration) time.Duration {
	b := specOf[BrowseJob](j)
	if b == nil {
		return one
	}
	d := b.Duration
	if d == 0 {
		d = 15 * time.Second
	}
	pv := j.Config.Timeout // a page view's bound
	if pv == 0 {
		pv = DefaultTimeout
	}
	return b.Warmup + d + pv + time.Minute
}

func (browseJob) clock(res *JobResult, f func(time.Time) time.Time) {
	b := res.Browse
	if b == nil {
		return
	}
	for _, s := range []*string{&b.Start, &b.End} {
		if t, err := time.Parse(time.RFC3339Nano, *s); err == nil {
			*s = f(t).UTC().Format(time.RFC3339Nano)
		}
	}
}

// window: the page views that started in the window, until the last of
// them ended; the good answers are page views.
func (browseJob) window(res JobResult) Window {
	b := res.Browse
	if b == nil {
		return Window{}
	}
	from, _ := time.Parse(time.RFC3339Nano, b.Start)
	return Window{From: from, To: from.Add(time.Duration(b.ElapsedMs * float64(time.Millisecond))), OK: b.PageViewsOK,
		Warmup: time.Duration(b.WarmupMs * float64(time.Millisecond))}
}

func (browseJob) load(j Job) (int, int64, float64, bool) {
	b := specOf[BrowseJob](j)
	if b == nil {
		return 0, 0, 0, false
	}
	return b.Visitors, 0, 0, true
}

func (browseJob) share(j Job, i, n int, s Share) Job {
	b := specOf[BrowseJob](j)
	if b == nil {
		return j
	}
	b.Visitors = s.Visitors
	shared, _ := withSpec(j, b) // it came from JSON: it goes back
	return shared
}

func (browseJob) join(parts []JobResult) (JobResult, error) {
	bs := make([]result.Browse, len(parts))
	for i, p := range parts {
		bs[i] = *p.Browse
	}
	joined, err := JoinBrowse(bs)
	if err != nil {
		return JobResult{}, err
	}
	joined.Raw = nil // stored once: in each generator's share
	return JobResult{Set: result.Set{Browse: &joined}}, nil
}
