package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/internal/exitcode"
)

// wptest bench-job: one load job (benchgen.Job) as JSON on stdin, its
// result as JSON on stdout, progress on stderr. `wptest run` uploads this
// binary to the load generator machine and starts it there over SSH, and on
// the server for the kit's startup metric (experiment/loadgen.go).
// jobProgressEvery spaces the progress lines: they end up in the run's log,
// one point after another.
const jobProgressEvery = 10 * time.Second

func benchJobCommand() *command {
	return &command{name: "bench-job", synopsis: "(internal) run one load job given as JSON on stdin; wptest run starts it on load machines",
		usage:    "bench-job < job.json",
		about:    "Runs one load job (kind run, crowd, kit or startup) and prints its result as JSON; progress goes to stderr. wptest run uploads itself to the load generator machine and starts it there over SSH.",
		examples: []string{"wptest bench-job < job.json > result.json"},
		setup:    define(nil, runBenchJob)}
}

func runBenchJob(ctx context.Context, a *App, _ *noFlags, _ []string) error {
	if a.Stdin == nil {
		return exitcode.With(exitcode.Config, errors.New("no job on stdin"))
	}
	dec := json.NewDecoder(a.Stdin)
	dec.DisallowUnknownFields() // a job this binary does not understand is refused, not half-run
	var job benchgen.Job
	if err := dec.Decode(&job); err != nil {
		return exitcode.With(exitcode.Config, fmt.Errorf("job on stdin: %w", err))
	}
	hostname, exe := a.Hostname, a.Executable
	what := job.Kind
	if job.Config.Name != "" {
		what += " " + job.Config.Name
	}
	fmt.Fprintf(a.Stderr, "bench-job %s: %s on %s (%s, pid %d)\n", what, job.Config.URL, hostname, exe, os.Getpid())

	var mu sync.Mutex
	t0 := a.Now()
	last := t0 // wall clock: a kit's runs each count their elapsed time from 0
	progress := func(done int64, el time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		if a.since(last) < jobProgressEvery {
			return
		}
		last = a.Now()
		fmt.Fprintf(a.Stderr, "bench-job %s: %d attempts ended, %.0fs (%.0fs in all)\n", what, done, el.Seconds(), a.since(t0).Seconds())
	}
	shell := func(ctx context.Context, script string) error {
		out, err := exec.CommandContext(ctx, "/bin/sh", "-c", script).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %w\n%s", script, err, out)
		}
		return nil
	}
	opt := benchgen.JobOptions{Progress: progress, Shell: shell}
	if job.Holds() {
		opt.Hold = holdOnStdin(a.Stderr, io.MultiReader(dec.Buffered(), a.Stdin))
	}
	res, err := job.Do(ctx, opt)
	if err != nil {
		return exitcode.With(exitcode.Load, fmt.Errorf("%s: %w", what, err))
	}
	res.Host, res.Exe = hostname, exe
	fmt.Fprintf(a.Stderr, "bench-job %s: done after %.1fs%s\n", what, a.since(t0).Seconds(), jobSummary(res))
	return writeJSON(a.Stdout, res, false)
}

// jobSummary is the last progress line's figures.
func jobSummary(r benchgen.JobResult) string {
	switch {
	case r.Run != nil:
		return fmt.Sprintf(": %d attempts, %d ok, %.1f/s", r.Run.Attempts, r.Run.Outcomes.OK, r.Run.RPS)
	case r.Crowd != nil:
		return fmt.Sprintf(": %d probes, %d gave up; background %d attempts, %d ok", len(r.Crowd.Probes), r.Crowd.GaveUp,
			r.Crowd.Background.Attempts, r.Crowd.Background.Outcomes.OK)
	case r.Kit != nil:
		return fmt.Sprintf(": throughput %d attempts, %d ok, %.1f/s", r.Kit.Throughput.Attempts, r.Kit.Throughput.Outcomes.OK, r.Kit.Throughput.RPS)
	case r.Startup != nil:
		return fmt.Sprintf(": startup %v ms", r.Startup.Rounds)
	}
	return ""
}

// holdOnStdin is a split crowd's Hold over the job's own pipes: the share
// says on stderr that it waits at a stage (benchgen.HoldLine), and the
// controller, once every share has, answers on stdin (ReleaseLine). The
// end of stdin releases every stage: the controller is gone, or never
// meant to answer (a job run by hand), and the share goes on alone.
func holdOnStdin(stderr io.Writer, stdin io.Reader) func(ctx context.Context, stage string) error {
	released := map[string]chan struct{}{}
	var mu sync.Mutex
	stageCh := func(stage string) chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		c, ok := released[stage]
		if !ok {
			c = make(chan struct{})
			released[stage] = c
		}
		return c
	}
	eof := make(chan struct{})
	go func() {
		defer close(eof)
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			if stage, ok := benchgen.ParseRelease(sc.Text()); ok {
				c := stageCh(stage)
				mu.Lock()
				select {
				case <-c:
				default:
					close(c)
				}
				mu.Unlock()
			}
		}
	}()
	return func(ctx context.Context, stage string) error {
		c := stageCh(stage)
		fmt.Fprint(stderr, benchgen.HoldLine(stage))
		select {
		case <-c:
		case <-eof:
		case <-ctx.Done():
			return ctx.Err()
		}
		return nil
	}
}
