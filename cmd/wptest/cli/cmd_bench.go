package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wptest/wptest/bench/benchcmd"
	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/bench/srvstat"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/suggest"
)

// wptest bench: the load generator (bench/benchgen). Flags follow ab and
// wrk where they overlap (-c, -n, -k, -H, --duration, --timeout).
func benchCommand() *command {
	return &command{name: "bench", synopsis: "load a URL as a scenario kind does (wptest bench --help lists them)",
		usage: "bench --url URL [--scenario S] [-c N[,N...]] [-n N | --duration D] [flags]",
		about: benchAbout(),
		examples: []string{"wptest bench --url http://127.0.0.1:8080/ -c 1,10,50 --duration 10s",
			"wptest bench --scenario static --url https://203.0.113.7/style.css --proto h2 --insecure -o json",
			"wptest bench --scenario ab --url http://127.0.0.1/ --url http://127.0.0.1/about/ -n 1000 -c 10 -k"},
		setup: define(benchFlagSet, runBench)}
}

// benchAbout is the scenarios part of bench's help: the kinds' lines
// (benchcmd.Kinds).
func benchAbout() string {
	var b strings.Builder
	b.WriteString("Scenarios:\n")
	for _, k := range benchcmd.Kinds() {
		fmt.Fprintf(&b, "  %-12s %s\n", k.Name, strings.ReplaceAll(k.Kind.Help, "\n", "\n"+strings.Repeat(" ", 15)))
	}
	b.WriteString(`
With --rate R the load is open loop (R attempts/s, latency from the intended
send time); otherwise closed loop. Every result names its model.
Exit 6 when a run could not run, answered nothing, or failed --max-error-pct.`)
	return b.String()
}

// benchKindList is "page, static, ... or transfer".
func benchKindList() string {
	var n []string
	for _, k := range benchcmd.Kinds() {
		n = append(n, k.Name)
	}
	if len(n) < 2 {
		return strings.Join(n, "")
	}
	return strings.Join(n[:len(n)-1], ", ") + " or " + n[len(n)-1]
}

// manyURLKinds are the kinds that take several --url.
func manyURLKinds() string {
	var n []string
	for _, k := range benchcmd.Kinds() {
		if k.Kind.ManyURLs {
			n = append(n, k.Name)
		}
	}
	return strings.Join(n, ", ")
}

// benchFlags are bench's flags (benchFlagSet).
type benchFlags struct {
	urls, headers                                  *multiFlag
	scenario, visitors, proto, out, serverName     *string
	method, probeURL, transferURL, restart, levels *string
	statusURL                                      *string
	requests                                       *int64
	duration, warmup, timeout                      *time.Duration
	clickEvery, probeEvery, giveUp                 *time.Duration
	rate, maxErr                                   *float64
	keepAlive, http10, insecure, sampleLocal       *bool
	maxWorkers                                     *int

	fs     *flag.FlagSet   // which were given
	set    map[string]bool // the flags given
	counts []int           // -c's visitors
	lv     []int           // kit: --levels
}

func benchFlagSet(fs *flag.FlagSet, f *benchFlags) {
	var urls, headers multiFlag
	fs.Var(&urls, "url", "target URL (repeat for the ab scenario: one run each)")
	scenario := fs.String("scenario", "page", benchKindList())
	visitors := fs.String("c", "", "visitors (connections), or a comma list for a sweep (alias --visitors)")
	fs.StringVar(visitors, "visitors", "", "same as -c")
	requests := fs.Int64("n", 0, "stop after N attempts (counted after the warm-up)")
	duration := fs.Duration("duration", 0, "measured time per step (default 15s; 0 with -n: until N attempts)")
	warmup := fs.Duration("warmup", -1, "unmeasured warm-up before each step (default 3s; with -n or ab: 0)")
	rate := fs.Float64("rate", 0, "open loop: attempts per second (0 = closed loop)")
	proto := fs.String("proto", "h1", "h1, h2 (TLS+ALPN), h2c (cleartext prior knowledge) or h3 (QUIC)")
	keepAlive := fs.Bool("k", false, "ab scenario: keep-alive (other scenarios always keep connections alive)")
	http10 := fs.Bool("http1.0", false, "h1: send HTTP/1.0 requests as ab does (Connection: Keep-Alive when kept alive), so the server does ab's work (default for the ab scenario)")
	out := outputFlag(fs)
	timeout := fs.Duration("timeout", benchgen.DefaultTimeout, "per attempt: no complete answer within it is a failure")
	fs.Var(&headers, "H", "extra request header \"Name: value\" (repeatable)")
	insecure := fs.Bool("insecure", false, "do not verify the server's TLS certificate (a test CA)")
	serverName := fs.String("server-name", "", "TLS SNI and certificate name (default: the URL's host)")
	method := fs.String("method", "GET", "GET or HEAD")
	clickEvery := fs.Duration("click-every", 10*time.Second, "crowd: each background visitor clicks this often")
	probeEvery := fs.Duration("probe-every", 500*time.Millisecond, "crowd: a new visitor arrives this often")
	giveUp := fs.Duration("give-up", 30*time.Second, "crowd: a new visitor with no answer by then gave up")
	probeURL := fs.String("probe-url", "", "crowd: the file new visitors ask for (default --url)")
	transferURL := fs.String("transfer-url", "", "kit: a 1 MB file for the transfer rate")
	restart := fs.String("restart", "", "kit: shell command that restarts the server (startup metric)")
	levels := fs.String("levels", "1,10,50,100,200,400", "kit: concurrency steps")
	sampleLocal := fs.Bool("sample-local", false, "kit: the server runs on this machine: sample it with srvstat in-process")
	statusURL := fs.String("status-url", "", "kit with --sample-local: Apache's /server-status?auto")
	maxWorkers := fs.Int("max-workers", 0, "kit: Apache's MaxRequestWorkers, for worker usage %")
	maxErr := fs.Float64("max-error-pct", 100, "fail (exit 6) when a run's error rate is above this")
	*f = benchFlags{fs: fs, urls: &urls, headers: &headers, scenario: scenario, visitors: visitors, proto: proto, out: out,
		serverName: serverName, method: method, probeURL: probeURL, transferURL: transferURL, restart: restart, levels: levels,
		statusURL: statusURL, requests: requests, duration: duration, warmup: warmup, timeout: timeout, clickEvery: clickEvery,
		probeEvery: probeEvery, giveUp: giveUp, rate: rate, maxErr: maxErr, keepAlive: keepAlive, http10: http10,
		insecure: insecure, sampleLocal: sampleLocal, maxWorkers: maxWorkers}
}

// runBench is bench: its flags, the load stage (with the sampler for the
// kit's --sample-local), the report.
func runBench(ctx context.Context, a *App, f *benchFlags, _ []string) error {
	f.set = map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	base, err := f.config()
	if err != nil {
		return err
	}
	if a.StderrTTY {
		base.Progress = func(done int64, el time.Duration) {
			fmt.Fprintf(a.Stderr, "\r\033[K%s: %d attempts ended, %.0fs", *f.scenario, done, el.Seconds())
		}
	}
	rep := result.Report{Schema: result.Schema, Tool: "wptest bench " + Version, Scenario: *f.scenario, CPUs: runtime.NumCPU()}
	rep.Host = a.Hostname
	runErr := f.load(ctx, &rep, base)
	if a.StderrTTY {
		fmt.Fprint(a.Stderr, "\r\033[K")
	}
	return f.report(a, &rep, runErr)
}

// config checks the flags and fills in the scenario's defaults: the base
// config of every run, the visitor counts, the kit's levels.
func (f *benchFlags) config() (benchgen.Config, error) {
	usage := func(format string, v ...any) error {
		return exitcode.With(exitcode.Config, fmt.Errorf(format, v...))
	}
	if len(*f.urls) == 0 {
		return benchgen.Config{}, usage("--url is required")
	}
	k, ok := benchcmd.Of(*f.scenario)
	if !ok {
		var names []string
		for _, k := range benchcmd.Kinds() {
			names = append(names, k.Name)
		}
		return benchgen.Config{}, usage("--scenario %q: want %s%s", *f.scenario, benchKindList(), suggest.Hint(*f.scenario, names))
	}
	if *f.visitors == "" {
		*f.visitors = k.Visitors
	}
	var err error
	if f.counts, err = intList(*f.visitors); err != nil {
		return benchgen.Config{}, usage("-c: %v", err)
	}
	for _, d := range []struct {
		name string
		d    time.Duration
	}{{"--duration", *f.duration}, {"--timeout", *f.timeout}, {"--click-every", *f.clickEvery}, {"--probe-every", *f.probeEvery}, {"--give-up", *f.giveUp}} {
		if d.d < 0 {
			return benchgen.Config{}, usage("%s %s: want a duration >= 0", d.name, d.d)
		}
	}
	if f.set["warmup"] && *f.warmup < 0 {
		return benchgen.Config{}, usage("--warmup %s: want a duration >= 0", *f.warmup)
	}
	if err := benchgen.CheckRate(*f.rate); err != nil {
		return benchgen.Config{}, usage("--rate: %v", err)
	}
	if *f.requests < 0 {
		return benchgen.Config{}, usage("-n %d: want a positive count", *f.requests)
	}
	if k.Check != nil {
		if err := k.Check(f.shared()); err != nil {
			return benchgen.Config{}, usage("%v", err)
		}
	}
	if !f.set["warmup"] {
		*f.warmup = 3 * time.Second
		if k.NoWarmup || *f.requests > 0 {
			*f.warmup = 0
		}
	}
	if *f.duration == 0 && *f.requests == 0 {
		*f.duration = 15 * time.Second
	}
	if len(*f.urls) > 1 && !k.ManyURLs {
		return benchgen.Config{}, usage("several --url only for --scenario %s", manyURLKinds())
	}
	if k.Levels {
		if f.lv, err = intList(*f.levels); err != nil {
			return benchgen.Config{}, usage("--levels: %v", err)
		}
	}
	cfg := benchgen.Config{URL: (*f.urls)[0], Method: *f.method, Proto: *f.proto, Header: *f.headers, HTTP10: *f.http10, KeepAlive: true,
		Requests: *f.requests, Duration: *f.duration, Warmup: *f.warmup, Rate: *f.rate, Timeout: *f.timeout,
		ServerName: *f.serverName, Insecure: *f.insecure}
	// Every URL, and the scenario's others, as the runs will build their
	// requests: a bad one is a usage error here, not a failed load run.
	for _, u := range append(append([]string{}, *f.urls...), *f.probeURL, *f.transferURL) {
		if u == "" {
			continue
		}
		c := cfg
		c.URL = u
		if err := benchgen.Validate(c); err != nil {
			return benchgen.Config{}, usage("%v", err)
		}
	}
	return cfg, nil
}

// load is the load stage: the scenario's runs, in this process, into rep.
func (f *benchFlags) load(ctx context.Context, rep *result.Report, base benchgen.Config) error {
	k, _ := benchcmd.Of(*f.scenario) // config refused any other
	return k.Load(ctx, f.shared(), rep, base)
}

// shared are the flags as a kind reads them (benchcmd.Flags).
func (f *benchFlags) shared() *benchcmd.Flags {
	return &benchcmd.Flags{URLs: *f.urls, Visitors: f.counts, Levels: f.lv, Given: func(name string) bool { return f.set[name] },
		Requests: *f.requests, KeepAlive: *f.keepAlive, HTTP10: *f.http10, ProbeURL: *f.probeURL, TransferURL: *f.transferURL,
		ClickEvery: *f.clickEvery, ProbeEvery: *f.probeEvery, GiveUp: *f.giveUp,
		Kit: func(ctx context.Context, kc *benchgen.KitConfig) { f.restarter(kc); f.sampler(ctx, kc) }}
}

// restarter gives the kit its startup metric's restart: --restart, run here.
func (f *benchFlags) restarter(kc *benchgen.KitConfig) {
	if *f.restart == "" {
		return
	}
	cmd := *f.restart
	kc.Restart = func(ctx context.Context) error {
		outb, err := exec.CommandContext(ctx, "/bin/sh", "-c", cmd).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %w\n%s", cmd, err, outb)
		}
		return nil
	}
}

// sampler is the kit's sampler stage with --sample-local: srvstat in this
// process, its samples joined with each measured window.
func (f *benchFlags) sampler(ctx context.Context, kc *benchgen.KitConfig) {
	if !*f.sampleLocal {
		return
	}
	ls := sampleInProcess(ctx, srvstat.Config{StatusURL: *f.statusURL})
	kc.Server = func(from, to time.Time, ok int64) (*result.Server, error) {
		// Wait for a sample after the window (the event, not a guess of
		// when it comes), then summarise; Summarize names a missing one.
		ls.waitAfter(ctx, to, 10*time.Second)
		return srvstat.Summarize(ls.all(), from, to, ok, *f.maxWorkers)
	}
}

// report prints rep (text or -o json) and gives bench's exit: 6 when a run
// could not run or failed --max-error-pct.
func (f *benchFlags) report(a *App, rep *result.Report, runErr error) error {
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return exitcode.With(exitcode.Load, runErr)
	}
	rep.Failed = thresholds(rep, *f.maxErr)
	if *f.out == "json" {
		if err := writeJSON(a.Stdout, rep, true); err != nil {
			return err
		}
	} else {
		writeText(a.Stdout, rep)
	}
	if runErr != nil {
		return exitcode.With(exitcode.Load, runErr)
	}
	if len(rep.Failed) > 0 {
		return exitcode.With(exitcode.Load, fmt.Errorf("failed: %s", strings.Join(rep.Failed, "; ")))
	}
	return nil
}

// localSamples are the samples of a srvstat sampler in this process.
type localSamples struct {
	mu   sync.Mutex
	ss   []srvstat.Sample
	more chan struct{} // closed (and replaced) at each new sample
}

// sampleInProcess runs a srvstat sampler at 1 Hz in this process until ctx
// ends.
func sampleInProcess(ctx context.Context, cfg srvstat.Config) *localSamples {
	ls := &localSamples{more: make(chan struct{})}
	s := srvstat.New(cfg)
	go func() {
		defer s.Close() // its /proc files stay open between samples
		_ = srvstat.Every(ctx, s, time.Second, 0, func(smp srvstat.Sample, err error) error {
			if err == nil {
				ls.mu.Lock()
				ls.ss = append(ls.ss, smp)
				close(ls.more)
				ls.more = make(chan struct{})
				ls.mu.Unlock()
			}
			return nil // a failed sample is a gap, not the end
		})
	}()
	return ls
}

// all is every sample so far.
func (ls *localSamples) all() []srvstat.Sample {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return append([]srvstat.Sample(nil), ls.ss...)
}

// waitAfter waits until a sample taken at or after t has arrived, ctx ends
// or limit passes (a sampler that stopped sampling).
func (ls *localSamples) waitAfter(ctx context.Context, t time.Time, limit time.Duration) {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		ls.mu.Lock()
		n, more := len(ls.ss), ls.more
		done := n > 0 && ls.ss[n-1].Unix >= float64(t.UnixNano())/1e9
		ls.mu.Unlock()
		if done {
			return
		}
		select {
		case <-more:
		case <-ctx.Done():
			return
		case <-deadline.C:
			return
		}
	}
}

// thresholds names what failed: a run that answered nothing, or one whose
// error rate is above maxErr.
func thresholds(rep *result.Report, maxErr float64) []string {
	var failed []string
	check := func(r result.Run) {
		switch {
		case r.Attempts > 0 && r.Outcomes.OK == 0:
			failed = append(failed, fmt.Sprintf("%s: no attempt answered 2xx (%d attempts)", r.Name, r.Attempts))
		case r.ErrorRatePct > maxErr:
			failed = append(failed, fmt.Sprintf("%s: error rate %.3f%% > %.3f%%", r.Name, r.ErrorRatePct, maxErr))
		case r.Attempts == 0:
			failed = append(failed, fmt.Sprintf("%s: no attempt made", r.Name))
		}
	}
	for _, r := range rep.Runs {
		check(r)
	}
	if c := rep.Crowd; c != nil {
		check(c.Background)
	}
	if k := rep.Kit; k != nil {
		check(k.Throughput)
	}
	return failed
}

func writeText(w io.Writer, rep *result.Report) {
	if k, ok := benchcmd.Of(rep.Scenario); ok && k.Text != nil {
		k.Text(w, rep)
	} else {
		benchgen.WriteRuns(w, rep.Runs)
	}
	for _, f := range rep.Failed {
		fmt.Fprintln(w, "FAILED:", f)
	}
}

func intList(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q: want positive integers separated by commas", s)
		}
		out = append(out, n)
	}
	return out, nil
}
