package stage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/safefile"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// The machines stage: plan with the cloud driver, then create the
// machines (journaled), wait until each answers SSH with its pinned key and
// cloud-init is done, and remove them unless kept (cloud.Lease: create,
// wait, release; cloud.Lifecycle: the create and wait steps, one shape).
// `machines up` runs it whole (Up, on cloud.Up); `run` opens the lease
// (Open) and makes the same Lifecycle steps part of its own list, the rest
// of the run between the wait and the release.

// Machines says how a command brings its machines up.
type Machines struct {
	Cloud  cloud.Cloud
	Plan   *cloud.Plan // from Cloud.Plan
	Driver string      // its name, in run.json for `wptest down`
	Keep   bool        // leave them up after success (until their ttl)
	Wait   time.Duration
	Log    io.Writer // the detail: waiting for SSH and cloud-init, retries
	// Steps receives the plan, the `wptest down` command and each step as
	// it starts ("==> create machines"); nil: Log.
	Steps io.Writer
	// Now is the clock the journal stamps its entries with (nil: time.Now);
	// the CLI injects its own.
	Now func() time.Time
}

// Up brings the machines of m.Plan up: run.json and the journal in the
// run's directory, the plan printed, the `wptest down` command given
// before anything is created, then cloud.Up.
func (m Machines) Up(ctx context.Context) ([]cloud.Machine, error) {
	j, steps, err := m.open()
	if err != nil {
		return nil, err
	}
	defer j.Close()
	return cloud.Up(ctx, m.Cloud, m.Plan, j, m.upOptions(steps))
}

// upOptions are the lease's options, for Up and Open alike: Keep, the
// wait for SSH and cloud-init (a machine the driver made may show another
// key before cloud-init installed ours: retried, never accepted), the
// steps' writer.
func (m Machines) upOptions(steps io.Writer) cloud.UpOptions {
	return cloud.UpOptions{Keep: m.Keep, Log: steps,
		Wait: cloud.WaitOptions{Timeout: m.Wait, RetryHostKeyMismatch: m.Plan.Owned, Log: m.Log}}
}

// Lease is the machines stage as steps of a command that runs its own
// (`wptest run`): Open (Close in its cleanup), then the steps Create and
// Wait, with Release in the cleanup of Create's.
type Lease struct {
	*cloud.Lease
	j *cloud.FileJournal
}

// Open writes run.json, opens the journal and prints the plan and the
// `wptest down` command, as Up does before anything is created.
func (m Machines) Open() (*Lease, error) {
	j, steps, err := m.open()
	if err != nil {
		return nil, err
	}
	return &Lease{Lease: cloud.NewLease(m.Cloud, m.Plan, j, m.upOptions(steps)), j: j}, nil
}

// Close closes the journal (after Release: it journals the removal).
func (l *Lease) Close() error { return l.j.Close() }

// open writes run.json, opens the journal, and prints the plan and the
// `wptest down` command to the steps' writer, which it returns.
func (m Machines) open() (*cloud.FileJournal, io.Writer, error) {
	run := m.Plan.Spec.Run
	if err := os.MkdirAll(run.Dir, 0o700); err != nil {
		return nil, nil, err
	}
	ri := RunInfo{ID: run.ID, Driver: m.Driver, Profile: run.Profile, Created: run.Created.UTC().Truncate(time.Second), Expires: run.Expires().UTC().Truncate(time.Second)}
	if b, err := json.MarshalIndent(ri, "", "  "); err == nil {
		if err := safefile.Write(filepath.Join(run.Dir, RunInfoFile), append(b, '\n'), 0o644); err != nil {
			return nil, nil, err
		}
	}
	now := m.Now
	if now == nil {
		now = time.Now
	}
	j, err := cloud.OpenJournal(filepath.Join(run.Dir, cloud.JournalFile), now)
	if err != nil {
		return nil, nil, err
	}
	steps := m.Steps
	if steps == nil {
		steps = m.Log
	}
	m.Plan.WriteText(steps)
	if m.Plan.Owned {
		fmt.Fprintf(steps, "run %s: if this is interrupted, remove what it made with: %s\n", run.ID, cloud.DownCommand(run.ID))
	}
	return j, steps, nil
}

// RunInfo is runs/<id>/run.json: enough for `wptest down` to find the driver.
type RunInfo struct {
	ID      string    `json:"id"`
	Driver  string    `json:"driver"`
	Profile string    `json:"profile,omitempty"`
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
}

// RunInfoFile is run.json's name in the run's directory.
const RunInfoFile = "run.json"

// maxRunInfo bounds what is read of run.json (a few lines).
const maxRunInfo = 1 << 20

// ReadRunInfo reads the run.json of the run directory dir (a regular
// file, never through a link, bounded: safefile).
func ReadRunInfo(dir string) (RunInfo, error) {
	var ri RunInfo
	b, err := safefile.ReadFile(filepath.Join(dir, RunInfoFile), maxRunInfo)
	if err != nil {
		return ri, err
	}
	return ri, json.Unmarshal(b, &ri)
}

// TeardownKept runs, on every server of the run in dir that stays after
// the run (one the driver was given, not made: no provider ID, such as a
// static or the local machine), the teardown commands its live profile
// declares in its host manifest (its firewalld rules go with the run). A
// server that cannot be reached or whose teardown fails is named in the
// error with what is left to do there.
func TeardownKept(ctx context.Context, dir string, log io.Writer) error {
	ms, err := cloud.ReadMachines(dir)
	if err != nil {
		return nil // no machines recorded: nothing of ours on any
	}
	var errs []error
	for _, m := range ms {
		if m.ID != "" || m.Role != cloud.RoleServer {
			continue
		}
		if err := teardownOne(ctx, dir, m, log); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func teardownOne(ctx context.Context, dir string, m cloud.Machine, log io.Writer) error {
	var h host.Host
	if m.Local {
		h = host.NewLocal(nil)
	} else {
		var err error
		if h, err = cloud.Connect(ctx, dir, m, nil); err != nil {
			return fmt.Errorf("server %s stays after the run, and its profile's teardown could not run: %w", m.Name, err)
		}
	}
	defer h.Close()
	hm, err := hostmanifest.Read(ctx, h)
	if err != nil {
		return fmt.Errorf("server %s: %w", m.Name, err)
	}
	if hm == nil {
		return nil
	}
	for _, c := range hm.Teardown {
		if _, err := h.Run(ctx, host.Cmd{Script: c, Label: "teardown"}); err != nil {
			return fmt.Errorf("server %s stays after the run: its profile's teardown failed (run it there: %s): %w", m.Name, c, err)
		}
		fmt.Fprintf(log, "down: [%s] %s\n", m.Name, c)
	}
	return nil
}
