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

	"github.com/wptest/wptest/internal/jsonstyle"
	"github.com/wptest/wptest/internal/multistep"
	"github.com/wptest/wptest/internal/safefile"
)

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
	st := &upState{lease: NewLease(c, p, j, opt)}
	steps := Lifecycle[*upState]{Driver: p.Driver,
		Lease:     func(s *upState) *Lease { return s.lease },
		Succeeded: func(s *upState) bool { return s.succeeded }}.Steps()
	if opt.Then != nil {
		steps = append(steps, multistep.Func[*upState]{Name: "run", Do: func(ctx context.Context, s *upState) error {
			return opt.Then(ctx, s.lease.Machines)
		}}.Step())
	}
	// The last step only marks success, so the create step's cleanup
	// knows which Keep applies.
	steps = append(steps, multistep.Do(func(_ context.Context, s *upState) error { s.succeeded = true; return nil }))
	if err := multistep.Run(ctx, st, steps, multistep.Options{CleanupTimeout: opt.CleanupTimeout, Log: st.lease.log}); err != nil {
		return nil, err
	}
	return st.lease.Machines, nil
}

// upState is what Up's steps share.
type upState struct {
	lease     *Lease
	succeeded bool // set by the last step
}

// Lifecycle is the machines' lifecycle as steps of a command's own list
// over its state S, the one shape Up and `wptest run` share: create
// (journaled; its cleanup releases them, unless kept), then wait until
// each answers SSH with its pinned key and cloud-init is done.
type Lifecycle[S any] struct {
	Driver string // the create step's name says it
	// Lease is the lease the steps work on, read from the state when they
	// run (a command may open it in a step of its own before them).
	Lease func(S) *Lease
	// Succeeded says, at the create step's cleanup, whether the command
	// succeeded: Keep keeps the machines then, KeepOnError otherwise.
	Succeeded func(S) bool
	// Ready, if set, is given the machines once they are ready.
	Ready func(S, []Machine)
}

// Steps are the create and the wait step.
func (lc Lifecycle[S]) Steps() []multistep.Step[S] {
	create := multistep.Func[S]{Name: CreateName(lc.Driver),
		Do:      func(ctx context.Context, s S) error { return lc.Lease(s).Create(ctx) },
		Cleanup: func(ctx context.Context, s S) error { return lc.Lease(s).Release(ctx, lc.Succeeded(s)) }}
	wait := multistep.Func[S]{Name: WaitName, Do: func(ctx context.Context, s S) error {
		l := lc.Lease(s)
		if err := l.Wait(ctx); err != nil {
			return err
		}
		if lc.Ready != nil {
			lc.Ready(s, l.Machines)
		}
		return nil
	}}
	return []multistep.Step[S]{create.Step(), wait.Step()}
}

// Lease is the machines of one plan while a command uses them: Create
// makes them (journaled), Wait waits until each is ready, Release removes
// them unless kept. Lifecycle's steps run it, in Up and in a command that
// runs its own steps (`wptest run`).
type Lease struct {
	Machines []Machine // what Create made (or was given)

	c       Cloud
	p       *Plan
	j       Journal
	opt     UpOptions // Keep, KeepOnError, Wait
	log     io.Writer
	created bool
}

// NewLease is the lease of p's machines, journaled in j (opt.Then and
// opt.CleanupTimeout are Up's, not the lease's).
func NewLease(c Cloud, p *Plan, j Journal, opt UpOptions) *Lease {
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	return &Lease{c: c, p: p, j: j, opt: opt, log: log}
}

// WaitName is the name of the step that runs Lease.Wait.
const WaitName = "wait for ssh and cloud-init"

// CreateName is the name of the step that runs Lease.Create with the
// machines of driver.
func CreateName(driver string) string { return "create machines (" + driver + ")" }

// Create makes the machines and writes runs/<id>/machines.json.
func (l *Lease) Create(ctx context.Context) error {
	ms, err := l.c.Create(ctx, l.p, l.j)
	if err != nil {
		return err
	}
	l.Machines, l.created = ms, true
	return writeMachines(l.p.Spec.Run.Dir, ms)
}

// Wait waits until every machine answers SSH with its pinned key and
// cloud-init is done.
func (l *Lease) Wait(ctx context.Context) error {
	errs := make([]error, len(l.Machines))
	var wg sync.WaitGroup
	for i, m := range l.Machines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = WaitReady(ctx, l.p.Spec.Run.Dir, m, l.opt.Wait)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Release removes what Create made, by the run's label, unless Keep
// (after success) or KeepOnError (after a failure) keeps it, which it
// says with the `wptest down` command.
func (l *Lease) Release(ctx context.Context, succeeded bool) error {
	if !l.created {
		// A failed Create has removed what it made and confirmed it, or
		// its error names what is left.
		return nil
	}
	if !l.p.Owned {
		return nil // given machines: nothing of ours to remove
	}
	run := l.p.Spec.Run
	if (succeeded && l.opt.Keep) || (!succeeded && l.opt.KeepOnError) {
		fmt.Fprintf(l.log, "kept run %s (expires %s); remove it with: %s\n", run.ID, run.Expires().UTC().Format(time.RFC3339), DownCommand(run.ID))
		return nil
	}
	return l.c.Destroy(ctx, Selector{Run: run.ID, Journal: l.j})
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
	jsonstyle.Lists(&v)
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return safefile.Write(filepath.Join(dir, name), append(b, '\n'), 0o644)
}

// maxRunFile bounds what is read of machines.json and firewall.json: a
// few machines and rules are a few KB.
const maxRunFile = 4 << 20

// readRunFile reads runs/<id>/name as a run directory's files are read
// (a regular file, never a link, bounded: safefile).
func readRunFile(dir, name string, v any) error {
	p := filepath.Join(dir, name)
	b, err := safefile.ReadFile(p, maxRunFile)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
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
