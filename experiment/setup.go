package experiment

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/wptest/wptest/results"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/bench/srvstat"
	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/profiles"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// AgentPath is where the agent stage puts the wptest binary on a host.
const AgentPath = stage.AgentPath

// state is the stages' state for the server, their lines to log.
func (s *server) state(log io.Writer) *stage.State {
	return &stage.State{Host: s.h, Facts: s.facts, Log: log}
}

// apply makes column ps's profile, with its variables, live with the server stage (stage.Server:
// render with the spec's variables, retiring what another profile left
// running, refuse blocked ops, agent, apply, checks, host manifest), and
// keeps the host manifest in the run manifest.
func (r *runner) apply(ctx context.Context, ps results.Column) error {
	p, err := loadProfile(ps, r.srv.sources)
	if err != nil {
		return err
	}
	var agent *stage.Agent
	if r.opt.Exe != "" {
		agent = &stage.Agent{Exe: r.opt.Exe}
	}
	announce := stage.Do(func(ctx context.Context, st *stage.State) error {
		live := ""
		if st.Live != nil {
			live = st.Live.Profile
		}
		switch {
		case live != p.Name:
			r.say(Busy, "[%s] swap: %s -> %s (column %s)", r.srv.h.Name(), orNone(live), p.Name, ps.ID)
		case r.srv.live != "" && r.srv.live != ps.ID:
			r.say(Busy, "[%s] column %s -> %s: profile %s with the other column's variables (only what differs changes)", r.srv.h.Name(), r.srv.live, ps.ID, p.Name)
		default:
			r.say(Busy, "[%s] profile %s (already live: re-applied, checks run again)", r.srv.h.Name(), p.Name)
		}
		return nil
	})
	t0 := r.opt.now()
	st := r.srv.state(r.opt.Log)
	err = stage.Run(ctx, st, append([]stage.Step{stage.Live(), announce}, stage.Server(stage.ServerOptions{
		Profile: p, Agent: agent, Tool: r.opt.Tool, Uploads: r.sp.Uploads, Drift: &stage.DriftCheck{Refuse: !r.opt.AcceptDrift},
		Progress: func(e provision.Event) { fmt.Fprintf(r.opt.Log, "[%s] %s: %s\n", e.Host, e.Op, e.Msg) },
	})...)...)
	r.srv.live = ""
	if err != nil && err == st.ApplyErr {
		return exitcode.With(exitcode.Provision, fmt.Errorf("apply %s on %s: %w", p.Name, r.srv.h.Name(), err))
	}
	if err != nil {
		return err
	}
	m := st.Manifest
	r.man.Hosts[ps.ID] = m
	r.srv.live = ps.ID
	r.recordDrift(ps.ID, st.ResetLines())
	if l := st.FinishedLine(); l != "" {
		r.say(Keep, "[%s] %s: %s", r.srv.h.Name(), ps.ID, l)
	}
	r.say(Stage, "[%s] %s live after %.1fs (%s)", r.srv.h.Name(), ps.ID, r.since(t0).Seconds(), deviationsNote(m.Changes, m.Deviations))
	return r.man.Write(r.dir)
}

// recordDrift says what the apply reset or kept of a drift the run
// accepted (--accept-drift) and records it for the column: the report's
// setup section and compare show it.
func (r *runner) recordDrift(col string, lines []string) {
	for _, l := range lines {
		if r.man.Drift == nil {
			r.man.Drift = map[string][]string{}
		}
		if !slices.Contains(r.man.Drift[col], l) {
			r.say(Keep, "[%s] %s: %s", r.srv.h.Name(), col, l)
			r.man.Drift[col] = append(r.man.Drift[col], l)
		}
	}
}

// driftDuring compares the server with its apply's drift record after
// point p: a point measured on a server changed by hand while it ran is
// not kept (exit 4; --resume measures it again) unless the run accepts
// drift, which records it for the column. A database found not running
// is no edit: broken says so, for a point whose requests rest on it.
func (r *runner) driftDuring(ctx context.Context, ps results.Column, sc results.Scenario, p results.Point) (broken string, err error) {
	all, _, err := hostmanifest.CheckDrift(ctx, r.srv.h, r.man.Hosts[ps.ID])
	if err != nil {
		return "", exitcode.With(exitcode.Provision, fmt.Errorf("%s: %w", p.Key, err))
	}
	drifts := hostmanifest.Edits(all)
	if k, _ := results.KindOf(sc.Kind); k.PHP && len(drifts) < len(all) {
		broken = "the database was not running at the point's end: its pages failed or were measured on the way down"
	}
	if len(drifts) == 0 {
		return broken, nil
	}
	lines := stage.DriftLines(drifts)
	if !r.opt.AcceptDrift {
		return "", exitcode.With(exitcode.Provision, fmt.Errorf("%s: the server on %s was changed by hand while the point ran; the point was not kept (measure it as it is with --accept-drift, or reset it with wptest up; --resume measures it again):\n  %s",
			p.Key, r.srv.h.Name(), strings.Join(lines, "\n  ")))
	}
	for i, l := range lines {
		lines[i] = "while the points ran: " + l
	}
	r.recordDrift(ps.ID, lines)
	return broken, nil
}

// shippedBase holds the shipped profiles loaded without variables, each
// once per process: their declarations (aliases, variables) are read for
// every column at every check of a file, and the profiles are embedded,
// so they never change. Its callers only read them.
var shippedBase struct {
	sync.Mutex
	m map[string]*provision.Profile
}

// baseProfile is shipped profile dir loaded without variables (nil: it
// does not load so).
func baseProfile(dir string) *provision.Profile {
	shippedBase.Lock()
	defer shippedBase.Unlock()
	if p, ok := shippedBase.m[dir]; ok {
		return p
	}
	p, _ := provision.Load(profiles.FS, dir, provision.Vars{})
	if shippedBase.m == nil {
		shippedBase.m = map[string]*provision.Profile{}
	}
	shippedBase.m[dir] = p
	return p
}

// lookupProfile is the folder of the shipped profile called name (or
// aliased so).
func lookupProfile(name string) (string, error) {
	return profiles.Lookup(name, func(d string) []string {
		lp := baseProfile(d)
		if lp == nil {
			return nil
		}
		return lp.Aliases
	})
}

// loadProfile loads the shipped profile column ps names with the column's
// variables, and sources (who may reach the web ports, webSources) added
// to its allow_from where it has one.
func loadProfile(ps results.Column, sources []string) (*provision.Profile, error) {
	dir, err := lookupProfile(ps.Profile)
	if err != nil {
		return nil, exitcode.With(exitcode.Config, err)
	}
	declared := false
	if base := baseProfile(dir); base != nil {
		for _, v := range base.Variables {
			declared = declared || v.Name == AllowFromVar
		}
	}
	if ps, err = withSources(ps, sources, declared); err != nil {
		return nil, exitcode.With(exitcode.Config, err)
	}
	var args []string
	for _, k := range slices.Sorted(maps.Keys(ps.Vars)) {
		args = append(args, k+"="+ps.Vars[k])
	}
	p, diags := provision.Load(profiles.FS, dir, provision.Vars{Args: args})
	if diags.HasErrors() {
		var b bytes.Buffer
		if p != nil {
			_ = provision.WriteDiagnostics(&b, p.Files(), diags, true)
		} else {
			_ = provision.WriteDiagnostics(&b, nil, diags, true)
		}
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("profile %s: %s", ps.Profile, strings.TrimSpace(b.String())))
	}
	return p, nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// sampler collects srvstat samples of the server: in this process when the
// server is this machine, else `wptest srvstat` on the server.
type sampler struct {
	mu     sync.Mutex
	ss     []srvstat.Sample
	err    error
	cancel context.CancelFunc
	done   chan struct{}

	workers results.WorkerSource
	warned  bool // the status page's failure was logged (once per sampler: one profile's points)
	logf    func(format string, v ...any)
	// theirs puts a time on our clock on the sampled machine's, where
	// samples' times are read (runner.theirTime).
	theirs func(time.Time) time.Time
}

// SamplerGroups are the process groups the live profile declares (its host
// manifest), as srvstat takes them: what the report's columns count.
func SamplerGroups(hm *hostmanifest.Manifest) []srvstat.Group {
	if hm == nil {
		return nil
	}
	var gs []srvstat.Group
	for _, g := range hm.Groups {
		gs = append(gs, srvstat.Group{Name: g.Name, Exe: g.Exe, Users: g.Users})
	}
	return gs
}

func (r *runner) startSampler(ctx context.Context) (*sampler, error) {
	hm, err := hostmanifest.Read(ctx, r.srv.h)
	if err != nil {
		return nil, err
	}
	ws := results.WorkersOf(hm)
	if ws.StatusURL == "" {
		r.logf("[%s] worker usage: n/a (%s)", r.srv.h.Name(), ws.Why)
	}
	groups := SamplerGroups(hm)
	if len(groups) == 0 {
		return nil, fmt.Errorf("the live profile on %s declares no process groups (process_group blocks): the server's CPU could not be told apart", r.srv.h.Name())
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &sampler{cancel: cancel, done: make(chan struct{}), workers: ws, logf: func(f string, v ...any) { r.say(Keep, f, v...) },
		theirs: func(t time.Time) time.Time { return r.theirTime(r.srv.h.Name(), t) }}
	if _, ok := r.srv.h.(*host.Local); ok {
		// In this process, on the user's own machine: no process
		// accounting (a machine-wide facility) there.
		sm := srvstat.New(srvstat.Config{StatusURL: ws.StatusURL, Groups: groups})
		go func() {
			defer close(s.done)
			defer sm.Close()
			_ = srvstat.Every(ctx, sm, results.SampleEvery, 0, func(smp srvstat.Sample, err error) error {
				if err == nil {
					s.add(smp)
				}
				return nil // a failed sample is a gap, not the end
			})
		}()
		return s, nil
	}
	if r.opt.Exe == "" {
		cancel()
		return nil, fmt.Errorf("srvstat on %s needs the wptest binary (Options.Exe)", r.srv.h.Name())
	}
	args := append([]string{"--interval", results.SampleEvery.String()}, srvstat.GroupArgs(groups)...)
	if ws.StatusURL != "" {
		args = append(args, "--status-url", ws.StatusURL)
	}
	pr, pw := io.Pipe()
	go func() {
		// The agent apply installed (same bytes as Exe): no upload per group.
		err := srvstat.RunRemote(ctx, r.srv.h, srvstat.Remote{Path: AgentPath, Args: args}, pw)
		pw.CloseWithError(err)
	}()
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var smp srvstat.Sample
			if json.Unmarshal(sc.Bytes(), &smp) == nil {
				s.add(smp)
			}
		}
		s.mu.Lock()
		s.err = sc.Err()
		s.mu.Unlock()
	}()
	return s, nil
}

func (s *sampler) add(smp srvstat.Sample) {
	s.mu.Lock()
	s.ss = append(s.ss, smp)
	s.mu.Unlock()
}

func (s *sampler) stop() {
	s.cancel()
	<-s.done
}

// summarize waits for a sample after the window's end, then gives the
// server's share of [from, to] (our clock; the samples' times are the
// server's: the window goes on its clock first).
func (s *sampler) summarize(ctx context.Context, from, to time.Time, ok int64) (*result.Server, error) {
	tf, tt := from, to
	if s.theirs != nil {
		tf, tt = s.theirs(from), s.theirs(to)
	}
	// A timer, not a clock: the run's clock (Options.Now) may be a test's.
	late := time.NewTimer(10 * time.Second)
	defer late.Stop()
	expired := false
	for {
		s.mu.Lock()
		n := len(s.ss)
		var last float64
		if n > 0 {
			last = s.ss[n-1].Unix
		}
		err := s.err
		s.mu.Unlock()
		if n > 0 && last >= float64(tt.UnixNano())/1e9 {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("srvstat: %w", err)
		}
		if expired {
			return nil, fmt.Errorf("srvstat: no sample after the window's end within 10s")
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-late.C:
			expired = true
		case <-time.After(100 * time.Millisecond):
		}
	}
	s.mu.Lock()
	ss := append([]srvstat.Sample(nil), s.ss...)
	s.mu.Unlock()
	srv, err := srvstat.Summarize(ss, tf, tt, ok, 0)
	if err != nil || s.workers.StatusURL == "" {
		return srv, err
	}
	// Without maxWorkers, Summarize's limit is the largest scoreboard read
	// in the window: 0 means the status page gave no reading there. Only
	// then is MaxRequestWorkers given, or a page that failed throughout
	// would read as 0% busy.
	if srv.WorkerLimit == 0 {
		s.warnWorkers(ss, from, to)
		return srv, nil
	}
	if s.workers.MaxWorkers > 0 {
		return srvstat.Summarize(ss, tf, tt, ok, s.workers.MaxWorkers)
	}
	return srv, nil
}

// warnWorkers logs, once per profile, why the status page gave no reading.
func (s *sampler) warnWorkers(ss []srvstat.Sample, from, to time.Time) {
	if s.warned {
		return
	}
	s.warned = true
	why := "no sample in the window read it"
	for _, x := range ss {
		if x.Apache != nil && x.Apache.Error != "" {
			why = x.Apache.Error
		}
	}
	s.logf("warning: worker usage n/a for %s..%s: %s gave no scoreboard: %s", from.Format(time.TimeOnly), to.Format(time.TimeOnly), s.workers.StatusURL, why)
}
