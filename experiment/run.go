package experiment

import (
	"context"
	"fmt"
	"github.com/wptest/wptest/results"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// Options are the runner's inputs besides the spec. Nothing here comes from
// the environment: the CLI decides.
type Options struct {
	RunsDir string // "runs"
	ID      string // the run's ID: a new one, or the one to resume
	Resume  bool
	// Cloud is the driver for Spec.Machines.Driver (the CLI opens it: the
	// Hetzner token comes from its environment).
	Cloud cloud.Cloud
	// Exe is the wptest binary: installed on the server as the agent (the
	// profiles' HTTP/3 checks run it) and started there as srvstat when
	// the server is remote. "" = not installed.
	Exe    string
	Tool   string // "wptest 0.1.0"
	Target string // as given (--target), for the manifest
	Owner  string
	// Keep leaves cloud machines up after the run (until their ttl).
	Keep bool
	// AcceptDrift measures a server changed by hand since its last apply
	// (its drift record), recording the drift in the manifest; without
	// it such a server is not measured (exit 4).
	AcceptDrift bool
	// Log is the run's detail: host commands and their output, samples,
	// manifests, and every Progress line among them (the CLI writes it to
	// runs/<id>/log.txt). nil: discarded.
	Log io.Writer
	// Progress, if set, receives the lines a person watching the run
	// wants: stages, points, the preflight, warnings.
	Progress func(Progress)
	// Redactor, if set, masks what goes to Log: the run adds the secrets it
	// learns (the site's database password) to it.
	Redactor *cloud.Redactor
	// Now is the clock (nil: time.Now; the CLI passes App.Now): the
	// manifest's and the records' times, the machines' creation and expiry
	// labels, the durations in the log and the ETA. The start all load
	// generators agree on is the wall clock's (loadGroup.agree).
	Now func() time.Time
}

// Run measures sp and returns the run directory. Every finished point is
// in results.jsonl before the next starts; with Resume, the points already
// there are skipped and nothing is seeded again.
func Run(ctx context.Context, sp *Spec, src []byte, opt Options) (string, error) {
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if err := cloud.ValidRunID(opt.ID); err != nil {
		return "", exitcode.With(exitcode.Config, err)
	}
	dir := filepath.Join(opt.RunsDir, opt.ID)
	fx, err := pinnedFixture(sp)
	if err != nil {
		return "", err
	}
	man, err := openManifest(sp, src, opt, dir)
	if err != nil || man.Complete {
		return dir, err
	}
	startSession(man, sp, fx.Manifest(), opt.Resume, stamp(opt.now()))
	if err := man.Write(dir); err != nil {
		return dir, err
	}
	st, _, err := results.OpenStore(dir)
	if err != nil {
		return dir, err
	}
	defer st.Close()
	r := &runner{sp: sp, opt: opt, dir: dir, man: man, st: st, fx: fx, si: len(man.Sessions) - 1, eta: newETA(sp), plan: planOf(sp)}
	return dir, r.session(ctx)
}

// now is the run's clock: Options.Now, or the process's when unset.
func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// stamp is t as the manifest and the records write it.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// pinnedFixture generates the fixture, a pure function of profile and
// seed, first, and refuses a root that is not the pinned one before
// anything is created or billed.
func pinnedFixture(sp *Spec) (*fixture.Fixture, error) {
	fp, err := fixture.LoadProfile(sp.Fixture.Profile)
	if err != nil {
		return nil, exitcode.With(exitcode.Config, err)
	}
	fx, err := fixture.Generate(fp, sp.Fixture.Seed)
	if err != nil {
		return nil, fmt.Errorf("generate fixture %s seed %d: %w", sp.Fixture.Profile, sp.Fixture.Seed, err)
	}
	if root := fx.Manifest().Root; sp.Fixture.Root != "" && root != sp.Fixture.Root {
		return nil, exitcode.With(exitcode.Mismatch, fmt.Errorf("fixture %s seed %d has root %s; %s pins %s (generator %s)",
			sp.Fixture.Profile, sp.Fixture.Seed, root, sp.File, sp.Fixture.Root, fixture.GeneratorVersion))
	}
	return fx, nil
}

// openManifest reads a resumed run's manifest (checking that the
// experiment is the same; Complete: nothing to do), or makes the run's
// directory, its copy of the experiment and a new manifest.
func openManifest(sp *Spec, src []byte, opt Options, dir string) (*results.Manifest, error) {
	if opt.Resume {
		man, err := results.ReadManifest(dir)
		if err != nil {
			return nil, exitcode.With(exitcode.Config, fmt.Errorf("--resume %s: %w", opt.ID, err))
		}
		if man.PlanHash != sp.PlanHash() {
			why := "the experiment changed since the run started"
			if man.Tool != opt.Tool {
				// The plan's shape is the tool's too: a newer wptest may plan
				// the same file differently.
				why = fmt.Sprintf("the experiment or wptest changed since the run started (started by %s, this is %s)", man.Tool, opt.Tool)
			}
			return nil, exitcode.With(exitcode.Config, fmt.Errorf("--resume %s: %s (plan %s, now %s): run it with the same file and -var values (%s)",
				opt.ID, why, man.PlanHash[:12], sp.PlanHash()[:12], filepath.Join(dir, results.SpecCopy)))
		}
		man.Claims = sp.Claims // claims check the run; the file's latest are the ones to check
		man.SourceDeviations, man.Sources = sp.SourceDeviations, sp.Sources
		if man.Complete {
			fmt.Fprintf(opt.Log, "run %s is already complete\n", opt.ID)
			if opt.Progress != nil {
				opt.Progress(Progress{Kind: Keep, Text: "run " + opt.ID + " is already complete"})
			}
		}
		if man.Hosts == nil {
			man.Hosts = map[string]*hostmanifest.Manifest{}
		}
		return man, nil
	}
	if err := os.MkdirAll(opt.RunsDir, 0o755); err != nil {
		return nil, err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("run directory: %w", err)
	}
	if err := results.WriteFileSync(filepath.Join(dir, results.SpecCopy), src, 0o644); err != nil {
		return nil, err
	}
	vars, cols := recorded(sp)
	return &results.Manifest{Format: results.ManifestFormat, ID: opt.ID, Experiment: sp.Name, Description: sp.Description, File: sp.File,
		ExperimentHash: sp.SHA256, PlanHash: sp.PlanHash(), Vars: vars, Target: opt.Target, Tool: opt.Tool,
		GoVersion: runtime.Version(), Columns: cols, Scenarios: sp.Scenarios, Claims: sp.Claims, SourceDeviations: sp.SourceDeviations, Sources: sp.Sources, Repetitions: sp.Repetitions,
		Points: len(sp.Plan()), Hosts: map[string]*hostmanifest.Manifest{}, Start: stamp(opt.now())}, nil
}

// startSession records the fixture (a resumed run keeps what its first session
// seeded and verified) and opens this session in the manifest.
func startSession(man *results.Manifest, sp *Spec, fm *fixture.Manifest, resumed bool, start string) {
	prev := man.Fixture
	man.Fixture = &results.FixtureRecord{Profile: sp.Fixture.Profile, Seed: sp.Fixture.Seed, Root: fm.Root, Pinned: sp.Fixture.Root, Pixels: fm.Pixels}
	if prev != nil {
		man.Fixture.Verified, man.Fixture.HTTPPages, man.Fixture.Lazy = prev.Verified, prev.HTTPPages, prev.Lazy
		man.Fixture.Deviations, man.Fixture.Docroot = prev.Deviations, prev.Docroot
	}
	man.Sessions = append(man.Sessions, results.Session{Start: start, Resumed: resumed})
}

// session runs this session's steps on the run's machines (a resumed
// run's, or new ones from the cloud driver) and closes it in the manifest.
func (r *runner) session(ctx context.Context) error {
	man := r.man
	runErr := r.runSteps(ctx, sessionSteps(r))
	man.Sessions[r.si].End = stamp(r.opt.now())
	if runErr != nil {
		man.Sessions[r.si].Error = runErr.Error()
	}
	man.Complete = r.st.Len() == man.Points && runErr == nil
	if man.Complete {
		man.End = stamp(r.opt.now())
	}
	if err := man.Write(r.dir); err != nil && runErr == nil {
		runErr = err
	}
	return runErr
}

func serverMachine(ms []cloud.Machine) (cloud.Machine, error) {
	for _, m := range ms {
		if m.Role == cloud.RoleServer {
			return m, nil
		}
	}
	return cloud.Machine{}, fmt.Errorf("no server machine among %d", len(ms))
}

func hostOf(ctx context.Context, dir string, m cloud.Machine, log io.Writer) (host.Host, error) {
	if m.Local {
		return host.NewLocal(log), nil
	}
	return cloud.Connect(ctx, dir, m, log)
}
