package experiment

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"fmt"
	"github.com/wptest/wptest/results"
	"io"
	"net"
	"net/url"
	"sync"
	"time"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/cloud"
)

// loadGen makes a data point's load: in this process (the local driver, or
// no load generator machine), or on the load generator machine with
// `wptest bench-job` (DESIGN §Bench: benchgen runs on the load host).
type loadGen interface {
	// Name is the machine the load comes from, as results.jsonl names it.
	Name() string
	// Do runs one job of a scenario kind (benchgen.Job); its windows come
	// back on our clock. A kit's job comes without its startup metric and
	// srvstat join (the runner does both itself, the same way for every
	// load generator: runner.startup, measure).
	Do(ctx context.Context, j benchgen.Job) (benchgen.JobResult, error)
	Close() error
}

// LocalLoadHost names the load generator when it is this process.
const LocalLoadHost = "local"

type inProcessLoad struct{}

func (inProcessLoad) Name() string { return LocalLoadHost }
func (inProcessLoad) Do(ctx context.Context, j benchgen.Job) (benchgen.JobResult, error) {
	return j.Do(ctx, benchgen.JobOptions{})
}
func (inProcessLoad) Close() error { return nil }

// loadMachines are the load generators that are other machines: all of
// them make each load run together (multiload.go).
func loadMachines(ms []cloud.Machine) []cloud.Machine {
	var out []cloud.Machine
	for _, m := range ms {
		if m.Role == cloud.RoleLoadGen && !m.Local {
			out = append(out, m)
		}
	}
	return out
}

// loadGenerator connects to the run's load generator machines and installs
// this wptest binary there, or returns the in-process one when there is no
// such machine. Several make a loadGroup.
func (r *runner) loadGenerator(ctx context.Context, ms []cloud.Machine) (loadGen, error) {
	lms := loadMachines(ms)
	if len(lms) == 0 {
		return inProcessLoad{}, nil
	}
	var gens []*remoteLoad
	for _, lm := range lms {
		l, err := r.openLoadMachine(ctx, lm)
		if err != nil {
			for _, g := range gens {
				g.Close()
			}
			return nil, err
		}
		gens = append(gens, l)
	}
	if len(gens) == 1 {
		return gens[0], nil
	}
	return &loadGroup{gens: gens, r: r}, nil
}

// openLoadMachine connects to one load generator machine and installs
// this wptest binary there.
func (r *runner) openLoadMachine(ctx context.Context, lm cloud.Machine) (*remoteLoad, error) {
	if r.opt.Exe == "" {
		// Never fall back to loading from here: the results would silently
		// measure another network path than the experiment declares.
		return nil, exitcode.With(exitcode.Config, fmt.Errorf("load generator %s: no wptest binary to run there (Options.Exe)", lm.Name))
	}
	h, err := hostOf(ctx, r.dir, lm, nil) // its output is relayed line by line, without the result JSON
	if err != nil {
		return nil, exitcode.With(exitcode.Provision, fmt.Errorf("load generator %s: %w", lm.Name, err))
	}
	l, err := newRemoteLoad(ctx, h, lm.Name, r.opt.Exe, r.opt.Log)
	if err != nil {
		h.Close()
		return nil, exitcode.With(exitcode.Provision, err)
	}
	l.ours = r.ourTime
	return l, nil
}

// remoteLoad runs jobs with `EXE bench-job` on h: the job as JSON on stdin,
// the result as JSON on stdout, stderr relayed to log as "[name] ..." lines
// (log nil: h's own log has them).
type remoteLoad struct {
	h     host.Host
	name  string // the machine's name in the run (cloud.Machine.Name)
	exe   string // the wptest binary on h
	log   io.Writer
	facts host.Facts
	// ours turns a time on this machine's clock into ours (runner.ourTime):
	// every window a job returns is on our clock from here on, so the
	// runner joins it with the server's samples as it is. nil: as read.
	ours func(machine string, t time.Time) time.Time
}

// newRemoteLoad installs exe on h (stage.InstallAgent: the same binary,
// path and checksum test as the server's agent) and returns the load
// generator that runs it.
func newRemoteLoad(ctx context.Context, h host.Host, name, exe string, log io.Writer) (*remoteLoad, error) {
	f, err := h.Facts(ctx)
	if err != nil {
		return nil, fmt.Errorf("load generator %s: facts: %w", name, err)
	}
	if err := checkArch(name, f, exe); err != nil {
		return nil, err
	}
	msg, err := stage.InstallAgent(ctx, h, exe)
	if err != nil {
		return nil, fmt.Errorf("load generator %s: %w", name, err)
	}
	if log == nil {
		log = io.Discard
	}
	fmt.Fprintf(log, "[%s] wptest load generator (%s): %s\n", name, AgentPath, msg)
	return &remoteLoad{h: h, name: name, exe: AgentPath, log: log, facts: f}, nil
}

// checkArch refuses a binary that cannot run on the load machine: the
// binary's own ELF header says what it is built for (--agent may give
// another arch's build than this wptest's).
func checkArch(name string, f host.Facts, exe string) error {
	want := f.GoArch()
	if want == "" {
		return nil // an arch Go does not name here: let the run say
	}
	ef, err := elf.Open(exe)
	if err != nil {
		return fmt.Errorf("load generator %s: %s is not a Linux executable: %w", name, exe, err)
	}
	defer ef.Close()
	got := map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64"}[ef.Machine]
	if ef.OSABI != elf.ELFOSABI_NONE && ef.OSABI != elf.ELFOSABI_LINUX || got != want {
		return fmt.Errorf("load generator %s is linux/%s (%s), %s is built for %s: give a linux/%s build (--agent)", name, want, f.Arch, exe, ef.Machine, want)
	}
	return nil
}

func (l *remoteLoad) Name() string { return l.name }
func (l *remoteLoad) Close() error { return l.h.Close() }

// Do runs j on l's machine; its windows come back on our clock.
func (l *remoteLoad) Do(ctx context.Context, j benchgen.Job) (benchgen.JobResult, error) {
	return l.doHeld(ctx, j, nil)
}

// doHeld is Do for a share of a job whose shares wait for each other
// (benchgen.Job.Holds): each stage the share says it waits at (its
// benchgen.HoldLine on stderr) is answered on its stdin once hold returns.
// hold nil: the job runs alone.
func (l *remoteLoad) doHeld(ctx context.Context, j benchgen.Job, hold func(ctx context.Context, stage string) error) (benchgen.JobResult, error) {
	res, err := l.run(ctx, j, hold)
	if err != nil {
		return res, err
	}
	if l.ours != nil {
		j.OnClock(&res, func(t time.Time) time.Time { return l.ours(l.name, t) })
	}
	return res, nil
}

// Startup runs the kit's startup metric on l's machine: restart is a shell
// command there, base.URL is polled from there.
func (l *remoteLoad) Startup(ctx context.Context, base benchgen.Config, restart string, rounds int) (result.Startup, error) {
	j, err := benchgen.NewStartupJob(base, restart, rounds)
	if err != nil {
		return result.Startup{}, err
	}
	res, err := l.do(ctx, j)
	if err != nil {
		return result.Startup{}, err
	}
	return *res.Startup, nil
}

// do runs one job on l's machine. Errors name the machine, the step and
// what the job printed.
func (l *remoteLoad) do(ctx context.Context, j benchgen.Job) (benchgen.JobResult, error) {
	return l.run(ctx, j, nil)
}

// run is do, answering the job's holds with hold (doHeld).
func (l *remoteLoad) run(ctx context.Context, j benchgen.Job, hold func(ctx context.Context, stage string) error) (benchgen.JobResult, error) {
	label := "bench-job " + j.Kind
	if j.Config.Name != "" {
		label += " " + j.Config.Name
	}
	b, err := json.Marshal(j)
	if err != nil {
		return benchgen.JobResult{}, err
	}
	cmd := host.Cmd{Script: host.Quote(l.exe) + " bench-job", Stdin: bytes.NewReader(b), Label: label, Timeout: j.Timeout()}
	if l.log != nil || hold != nil {
		relay := &linePrefixer{w: l.log, prefix: "[" + l.name + "] "}
		if relay.w == nil {
			relay.w = io.Discard
		}
		if hold != nil {
			answer := answerHolds(ctx, &cmd, hold)
			defer answer.Close()
			relay.hold = answer.held
		}
		defer relay.flush()
		cmd.Stderr = relay
	}
	res, err := l.h.Run(ctx, cmd)
	if err != nil {
		return benchgen.JobResult{}, fmt.Errorf("load generator %s: %s: %w", l.name, label, err)
	}
	var jr benchgen.JobResult
	if err := json.Unmarshal(res.Stdout, &jr); err != nil {
		return jr, fmt.Errorf("load generator %s: %s: its output is not a result (%v):\n%s", l.name, label, err, host.Tail(res.Stdout, 5))
	}
	if !j.Check(jr) {
		return jr, fmt.Errorf("load generator %s: %s: the result is not a %s result:\n%s", l.name, label, j.Kind, host.Tail(res.Stdout, 5))
	}
	return jr, nil
}

// linePrefixer writes whole lines to w, each prefixed (the load host's
// progress in the run's log).
type linePrefixer struct {
	mu      sync.Mutex
	w       io.Writer
	prefix  string
	partial []byte
	// hold, if set, is given the stage of each benchgen.HoldLine, which
	// is then not relayed (it is the job speaking to us, not to the log).
	hold func(stage string)
}

func (p *linePrefixer) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		line := string(p.partial[:i+1])
		p.partial = p.partial[i+1:]
		if stage, ok := benchgen.ParseHold(line); ok && p.hold != nil {
			p.hold(stage)
			continue
		}
		_, _ = io.WriteString(p.w, p.prefix+line)
	}
	return len(b), nil
}

func (p *linePrefixer) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.partial) > 0 {
		_, _ = io.WriteString(p.w, p.prefix+string(p.partial)+"\n")
		p.partial = nil
	}
}

// holdAnswers answers a job's holds on its stdin: after the job itself,
// a pipe that stays open while the job runs (Close ends it).
type holdAnswers struct {
	ctx  context.Context
	hold func(ctx context.Context, stage string) error
	pw   *io.PipeWriter
	mu   sync.Mutex
}

// answerHolds makes cmd's stdin its job, then the answers to its holds.
func answerHolds(ctx context.Context, cmd *host.Cmd, hold func(ctx context.Context, stage string) error) *holdAnswers {
	pr, pw := io.Pipe()
	cmd.Stdin = io.MultiReader(cmd.Stdin, pr)
	return &holdAnswers{ctx: ctx, hold: hold, pw: pw}
}

// held answers the job's hold at stage once hold returns (not at all if
// ctx ended first: the job is being stopped).
func (a *holdAnswers) held(stage string) {
	go func() {
		if a.hold(a.ctx, stage) != nil {
			return
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		_, _ = io.WriteString(a.pw, benchgen.ReleaseLine(stage))
	}()
}

// Close ends the job's stdin (a write still waiting returns).
func (a *holdAnswers) Close() error { return a.pw.Close() }

// startup measures the kit's startup metric (restart → first good answer)
// on the server itself: restart is a local command there, and polling
// 127.0.0.1 leaves out SSH round trips and the network path to the load
// host, neither of which is the web server's startup. A remote server runs
// it with the agent binary (`wptest bench-job`, kind startup); this
// machine's server in-process. Without a restart command for the profile:
// nil.
func (r *runner) startup(ctx context.Context, ps results.Column, base benchgen.Config) (*result.Startup, error) {
	script := r.restartScript(ps)
	if script == "" {
		return nil, nil
	}
	const rounds = 3
	if _, local := r.srv.h.(*host.Local); local || r.opt.Exe == "" {
		restart := func(ctx context.Context) error {
			_, err := r.srv.h.Run(ctx, host.Cmd{Script: script, Label: "restart", Timeout: 2 * time.Minute})
			return err
		}
		st, err := benchgen.Startup(ctx, restart, base, rounds)
		return &st, err
	}
	cfg := base
	u, err := loopbackURL(base.URL)
	if err != nil {
		return nil, err
	}
	cfg.URL = u
	// The agent was installed by apply; the server's host log shows the job's lines.
	srv := &remoteLoad{h: r.srv.h, name: r.srv.h.Name(), exe: AgentPath}
	st, err := srv.Startup(ctx, cfg, script, rounds)
	if err != nil {
		return nil, fmt.Errorf("startup on the server: %w", err)
	}
	return &st, nil
}

// loopbackURL is u with its host replaced by 127.0.0.1 (port kept): the
// server's own view of the URL. TLS keeps its ServerName.
func loopbackURL(u string) (string, error) {
	p, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	port := p.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[p.Scheme]
	}
	p.Host = net.JoinHostPort("127.0.0.1", port)
	return p.String(), nil
}

// isLoopback reports whether addr (an IP or a host name) is this machine's
// own: a load host dialling it reaches itself, not the server.
func isLoopback(addr string) bool {
	if addr == "localhost" {
		return true
	}
	ip := net.ParseIP(addr)
	return ip != nil && ip.IsLoopback()
}
