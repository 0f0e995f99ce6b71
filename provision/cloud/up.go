package cloud

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/wptest/wptest/internal/multistep"
)

// Step is one stage of a run with its cleanup (Packer's multistep, typed).
type Step struct {
	Name    string
	Run     func(ctx context.Context) error
	Cleanup func(ctx context.Context) error // nil: nothing to undo
}

// RunSteps runs steps with the one step runner (internal/multistep): in
// order until one fails or ctx is cancelled, then the Cleanup of every step
// that was started, in reverse, with a context that is not cancelled and
// its own timeout, so Ctrl-C stops the work but not the teardown.
func RunSteps(ctx context.Context, steps []Step, cleanupTimeout time.Duration, log io.Writer) error {
	ms := make([]multistep.Step[struct{}], len(steps))
	for i, s := range steps {
		f := multistep.Func[struct{}]{Name: s.Name, Do: func(ctx context.Context, _ struct{}) error { return s.Run(ctx) }}
		if s.Cleanup != nil {
			f.Cleanup = func(ctx context.Context, _ struct{}) error { return s.Cleanup(ctx) }
		}
		ms[i] = f.Step()
	}
	return multistep.Run(ctx, struct{}{}, ms, multistep.Options{CleanupTimeout: cleanupTimeout, Log: log})
}

// UpOptions configure Up.
type UpOptions struct {
	// Keep leaves the machines up after success, KeepOnError after a
	// failure (for debugging, Packer's -on-error=abort); their expiry label
	// still lets gc remove them later.
	Keep        bool
	KeepOnError bool
	Wait        WaitOptions
	// Then runs with the ready machines (provisioning, benchmark). nil: none.
	Then           func(ctx context.Context, ms []Machine) error
	CleanupTimeout time.Duration // default 10 min
	Log            io.Writer
}

// Up is a whole machine lifecycle: create (journaled), wait until every
// machine answers SSH with its pinned key and cloud-init is done, run Then,
// and remove everything by the run's label unless Keep. It returns the
// machines (also written to runs/<id>/machines.json).
func Up(ctx context.Context, c Cloud, p *Plan, j Journal, opt UpOptions) ([]Machine, error) {
	if opt.CleanupTimeout == 0 {
		opt.CleanupTimeout = 10 * time.Minute
	}
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	run := p.Spec.Run
	var ms []Machine
	succeeded, created := false, false
	steps := []Step{
		{
			Name: "create machines (" + p.Driver + ")",
			Run: func(ctx context.Context) error {
				var err error
				ms, err = c.Create(ctx, p, j)
				if err != nil {
					return err
				}
				created = true
				return writeMachines(run.Dir, ms)
			},
			Cleanup: func(ctx context.Context) error {
				if !created {
					// A failed Create has removed what it made and
					// confirmed it, or its error names what is left.
					return nil
				}
				if !p.Owned {
					return nil // given machines: nothing of ours to remove
				}
				if (succeeded && opt.Keep) || (!succeeded && opt.KeepOnError) {
					fmt.Fprintf(log, "kept run %s (expires %s); remove it with: %s\n", run.ID, run.Expires().UTC().Format(time.RFC3339), DownCommand(run.ID))
					return nil
				}
				return c.Destroy(ctx, Selector{Run: run.ID, Journal: j})
			},
		},
		{
			Name: "wait for ssh and cloud-init",
			Run: func(ctx context.Context) error {
				errs := make([]error, len(ms))
				var wg sync.WaitGroup
				for i, m := range ms {
					wg.Add(1)
					go func() {
						defer wg.Done()
						errs[i] = WaitReady(ctx, run.Dir, m, opt.Wait)
					}()
				}
				wg.Wait()
				return errors.Join(errs...)
			},
		},
	}
	if opt.Then != nil {
		steps = append(steps, Step{Name: "run", Run: func(ctx context.Context) error { return opt.Then(ctx, ms) }})
	}
	// The last step only marks success, so the first step's cleanup knows
	// which Keep applies.
	steps = append(steps, Step{Run: func(context.Context) error { succeeded = true; return nil }})
	if err := RunSteps(ctx, steps, opt.CleanupTimeout, log); err != nil {
		return nil, err
	}
	return ms, nil
}

func writeMachines(dir string, ms []Machine) error { return writeRunFile(dir, MachinesFile, ms) }

// ReadMachines reads runs/<id>/machines.json.
func ReadMachines(dir string) ([]Machine, error) {
	var ms []Machine
	return ms, readRunFile(dir, MachinesFile, &ms)
}

// writeRunFile writes v as indented JSON to runs/<id>/name (mode 0644: no
// secret goes into these).
func writeRunFile(dir, name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644)
}

func readRunFile(dir, name string, v any) error {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// FindMachine picks a machine of a run by name ("wptest-<run>-loadgen-1") or
// role ("server", "loadgen": the first of that role), so other commands can
// open it with Target(runDir, m) or Connect.
func FindMachine(ms []Machine, nameOrRole string) (Machine, error) {
	for _, m := range ms {
		if m.Name == nameOrRole {
			return m, nil
		}
	}
	for _, m := range ms {
		if string(m.Role) == nameOrRole {
			return m, nil
		}
	}
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name + " (" + string(m.Role) + ")"
	}
	return Machine{}, fmt.Errorf("no machine %q in this run; it has: %s", nameOrRole, strings.Join(names, ", "))
}
