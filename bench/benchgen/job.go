package benchgen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/wptest/wptest/bench/result"
)

// Job kinds.
const (
	JobRun     = "run"     // one Run
	JobCrowd   = "crowd"   // the crowd scenario
	JobKit     = "kit"     // the kit, without its startup metric
	JobStartup = "startup" // the kit's startup metric: restart → first good answer
)

// Job is one load run in a form that crosses to another machine as JSON:
// `wptest bench-job` reads it on stdin, runs it with Do and writes the
// JobResult on stdout (DESIGN §Bench: benchgen runs on the load host).
//
// Functions cannot cross. Config.Progress is replaced by the job runner's
// own; a kit's Restart and Server are refused: the caller measures startup
// as a JobStartup job (on the server itself, whose shell runs the restart
// command) and joins srvstat samples with the throughput window itself.
type Job struct {
	Kind   string    `json:"kind"`
	Config JobConfig `json:"config"` // run: the run; the others: their base config
	// Spec is what the kind has beyond Config (CrowdJob, KitJob,
	// StartupJob, BrowseJob), as JSON its kind decodes (Spec); none for a run.
	Spec json.RawMessage `json:"spec,omitempty"`
}

// specOf is j's own part as a T; nil where j has none, or one with a
// field a T has not (a job this binary does not understand is refused,
// not half-run).
func specOf[T any](j Job) *T {
	v := new(T)
	if j.Decode(v) != nil {
		return nil
	}
	return v
}

// withSpec is j with spec as its own part.
func withSpec(j Job, spec any) (Job, error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return j, fmt.Errorf("job: %s: %w", j.Kind, err)
	}
	j.Spec = b
	return j, nil
}

// Decode reads j's own part into v (a CrowdJob, KitJob, StartupJob or
// BrowseJob, as j.Kind says).
func (j Job) Decode(v any) error {
	if len(j.Spec) == 0 || string(j.Spec) == "null" {
		return fmt.Errorf("job: kind %s without its settings", j.Kind)
	}
	d := json.NewDecoder(bytes.NewReader(j.Spec))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("job: kind %s: its settings: %w", j.Kind, err)
	}
	return nil
}

// JobConfig is Config without its functions and certificate pool.
// Durations are JSON numbers of nanoseconds (time.Duration), exact both ways.
type JobConfig struct {
	Name       string        `json:"name,omitempty"`
	URL        string        `json:"url"`
	Method     string        `json:"method,omitempty"`
	Proto      string        `json:"proto,omitempty"`
	Header     []string      `json:"header,omitempty"`
	HTTP10     bool          `json:"http10,omitempty"`
	Visitors   int           `json:"visitors,omitempty"`
	KeepAlive  bool          `json:"keep_alive,omitempty"`
	Requests   int64         `json:"requests,omitempty"`
	Duration   time.Duration `json:"duration_ns,omitempty"`
	Warmup     time.Duration `json:"warmup_ns,omitempty"`
	Rate       float64       `json:"rate,omitempty"`
	Timeout    time.Duration `json:"timeout_ns,omitempty"`
	ServerName string        `json:"server_name,omitempty"`
	Insecure   bool          `json:"insecure,omitempty"`
	StartAt    time.Time     `json:"start_at,omitzero"` // on the load generator's clock
	Raw        bool          `json:"raw,omitempty"`
}

// CrowdJob is CrowdConfig without its Base (Job.Config).
type CrowdJob struct {
	ProbeURL   string        `json:"probe_url,omitempty"`
	Visitors   int           `json:"visitors"`
	ClickEvery time.Duration `json:"click_every_ns,omitempty"`
	ProbeEvery time.Duration `json:"probe_every_ns,omitempty"`
	GiveUp     time.Duration `json:"give_up_ns,omitempty"`
	Warmup     time.Duration `json:"warmup_ns,omitempty"`
	Duration   time.Duration `json:"duration_ns,omitempty"`
	ProbeSlot  int           `json:"probe_slot,omitempty"`
	ProbeSlots int           `json:"probe_slots,omitempty"`
}

// KitJob is KitConfig without its Base (Job.Config) and functions.
type KitJob struct {
	TransferURL  string `json:"transfer_url,omitempty"`
	Concurrency  int    `json:"concurrency,omitempty"`
	Levels       []int  `json:"levels,omitempty"`
	ErrorClients int    `json:"error_clients,omitempty"`
}

// StartupJob is Startup's restart, as a shell command for the machine that
// runs the job, and its rounds; Job.Config.URL is polled.
type StartupJob struct {
	Restart string `json:"restart"`
	Rounds  int    `json:"rounds,omitempty"`
}

// JobResult is what a job measured: the field of its kind is set. Host and
// Exe name the machine and binary that ran it (set by the job runner).
type JobResult struct {
	Kind string `json:"kind"`
	result.Set
	Startup *result.Startup `json:"startup,omitempty"`
	Host    string          `json:"host,omitempty"`
	Exe     string          `json:"exe,omitempty"`
}

// JobOptions are what the machine running a job gives it.
type JobOptions struct {
	// Progress replaces Config.Progress in every run of the job.
	Progress func(done int64, elapsed time.Duration)
	// Shell runs a startup job's restart command (e.g. /bin/sh -c).
	Shell func(ctx context.Context, script string) error
	// Hold waits, in a job whose shares wait for each other (Job.Holds),
	// until every share has come to stage (CrowdConfig.Hold).
	Hold func(ctx context.Context, stage string) error
}

func toJobConfig(c Config) (JobConfig, error) {
	if c.RootCAs != nil {
		// A CertPool cannot be listed back out; the experiment's load uses
		// Insecure (the profiles' self-signed certificate).
		return JobConfig{}, errors.New("job: a RootCAs pool cannot be sent to another machine")
	}
	return JobConfig{Name: c.Name, URL: c.URL, Method: c.Method, Proto: c.Proto, Header: append([]string(nil), c.Header...), HTTP10: c.HTTP10,
		Visitors: c.Visitors, KeepAlive: c.KeepAlive, Requests: c.Requests, Duration: c.Duration, Warmup: c.Warmup,
		Rate: c.Rate, Timeout: c.Timeout, ServerName: c.ServerName, Insecure: c.Insecure, StartAt: c.StartAt, Raw: c.Raw}, nil
}

// Config is the job config as a Config (without Progress).
func (c JobConfig) Config() Config {
	return Config{Name: c.Name, URL: c.URL, Method: c.Method, Proto: c.Proto, Header: append([]string(nil), c.Header...), HTTP10: c.HTTP10,
		Visitors: c.Visitors, KeepAlive: c.KeepAlive, Requests: c.Requests, Duration: c.Duration, Warmup: c.Warmup,
		Rate: c.Rate, Timeout: c.Timeout, ServerName: c.ServerName, Insecure: c.Insecure, StartAt: c.StartAt, Raw: c.Raw}
}

// NewRunJob is cfg as a run job.
func NewRunJob(cfg Config) (Job, error) {
	jc, err := toJobConfig(cfg)
	return Job{Kind: JobRun, Config: jc}, err
}

// NewCrowdJob is cc as a crowd job.
func NewCrowdJob(cc CrowdConfig) (Job, error) {
	jc, err := toJobConfig(cc.Base)
	if err != nil {
		return Job{}, err
	}
	return withSpec(Job{Kind: JobCrowd, Config: jc}, CrowdJob{ProbeURL: cc.ProbeURL, Visitors: cc.Visitors, ClickEvery: cc.ClickEvery,
		ProbeEvery: cc.ProbeEvery, GiveUp: cc.GiveUp, Warmup: cc.Warmup, Duration: cc.Duration, ProbeSlot: cc.ProbeSlot, ProbeSlots: cc.ProbeSlots})
}

// NewKitJob is kc as a kit job; kc.Restart and kc.Server must be nil.
func NewKitJob(kc KitConfig) (Job, error) {
	if kc.Restart != nil || kc.Server != nil {
		return Job{}, errors.New("job: a kit's Restart and Server functions cannot be sent to another machine (measure startup with a startup job, summarise srvstat afterwards)")
	}
	jc, err := toJobConfig(kc.Base)
	if err != nil {
		return Job{}, err
	}
	return withSpec(Job{Kind: JobKit, Config: jc}, KitJob{TransferURL: kc.TransferURL, Concurrency: kc.Concurrency,
		Levels: append([]int(nil), kc.Levels...), ErrorClients: kc.ErrorClients})
}

// NewStartupJob polls base.URL after each of rounds runs of the restart
// shell command, on the machine that runs the job.
func NewStartupJob(base Config, restart string, rounds int) (Job, error) {
	if restart == "" {
		return Job{}, errors.New("job: startup needs a restart command")
	}
	jc, err := toJobConfig(base)
	if err != nil {
		return Job{}, err
	}
	return withSpec(Job{Kind: JobStartup, Config: jc}, StartupJob{Restart: restart, Rounds: rounds})
}

// Do runs the job here.
func (j Job) Do(ctx context.Context, opt JobOptions) (JobResult, error) {
	k, err := j.kind()
	if err != nil {
		return JobResult{Kind: j.Kind}, err
	}
	cfg := j.Config.Config()
	cfg.Progress = opt.Progress
	res, err := k.do(ctx, j, cfg, opt)
	res.Kind = j.Kind
	return res, err
}
