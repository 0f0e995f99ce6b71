package multistep

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// trace is the state the test steps share: what ran and what was undone.
type trace struct{ log []string }

// step records its Run and Cleanup; failRun fails the Run, cancel cancels
// the run's context from inside it (Ctrl-C during the step).
type step struct {
	name       string
	failRun    bool
	failUndo   bool
	cancel     context.CancelFunc
	cleanupCtx *error
}

func (s step) Run(ctx context.Context, t *trace) error {
	t.log = append(t.log, "run "+s.name)
	if s.cancel != nil {
		s.cancel()
	}
	if s.failRun {
		return errors.New(s.name + " failed")
	}
	return nil
}

func (s step) Cleanup(ctx context.Context, t *trace) error {
	t.log = append(t.log, "undo "+s.name)
	if s.cleanupCtx != nil {
		*s.cleanupCtx = ctx.Err()
	}
	if s.failUndo {
		return errors.New(s.name + " undo failed")
	}
	return nil
}

func TestRun(t *testing.T) {
	boom := errors.New("b failed")
	for _, tc := range []struct {
		name    string
		steps   func(cancel context.CancelFunc) []Step[*trace]
		want    string
		wantErr string
	}{
		{"all pass: cleanups in reverse",
			func(context.CancelFunc) []Step[*trace] {
				return []Step[*trace]{step{name: "a"}, step{name: "b"}, step{name: "c"}}
			},
			"run a, run b, run c, undo c, undo b, undo a", ""},
		{"a failed step is cleaned up too, later steps never run",
			func(context.CancelFunc) []Step[*trace] {
				return []Step[*trace]{step{name: "a"}, step{name: "b", failRun: true}, step{name: "c"}}
			},
			"run a, run b, undo b, undo a", boom.Error()},
		{"interrupted during b: c never starts, b and a are undone",
			func(cancel context.CancelFunc) []Step[*trace] {
				return []Step[*trace]{step{name: "a"}, step{name: "b", cancel: cancel}, Func[*trace]{Name: "c", Do: func(context.Context, *trace) error { return nil }}.Step()}
			},
			"run a, run b, undo b, undo a", "before c: context canceled"},
		{"a failed cleanup is reported with the run's error, and the other cleanups still run",
			func(context.CancelFunc) []Step[*trace] {
				return []Step[*trace]{step{name: "a"}, step{name: "b", failUndo: true}, step{name: "c", failRun: true}}
			},
			"run a, run b, run c, undo c, undo b, undo a", "b undo failed\nc failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var tr trace
			err := Run(ctx, &tr, tc.steps(cancel), Options{})
			if got := strings.Join(tr.log, ", "); got != tc.want {
				t.Errorf("ran %q, want %q", got, tc.want)
			}
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr) {
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// Cleanups run with a context that the interruption did not cancel, and
// a Func's name is in its error and in the log.
func TestCleanupContextAndNames(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var undoCtx error = errors.New("cleanup not run")
	var log strings.Builder
	steps := []Step[*trace]{
		step{name: "a", cleanupCtx: &undoCtx},
		Func[*trace]{Name: "make things", Do: func(context.Context, *trace) error { cancel(); return context.Canceled },
			Cleanup: func(context.Context, *trace) error { return nil }}.Step(),
	}
	err := Run(ctx, &trace{}, steps, Options{Log: &log, CleanupTimeout: time.Minute})
	if undoCtx != nil {
		t.Errorf("cleanup's context: %v, want a live one", undoCtx)
	}
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "make things: ") {
		t.Errorf("error %v, want it named after its step and wrapping context.Canceled", err)
	}
	if got := log.String(); got != "==> make things\n==> cleanup: make things\n" {
		t.Errorf("log %q", got)
	}
}

// typed is a step type of its own with a name and nothing to undo.
type typed struct {
	NoCleanup[*trace]
	err error
}

func (typed) Name() string { return "typed" }
func (s typed) Run(_ context.Context, t *trace) error {
	t.log = append(t.log, "run typed")
	return s.err
}

// A step type's name is in the log and its error, as a Func's, and one
// that embeds NoCleanup has no cleanup to log.
func TestTypedStep(t *testing.T) {
	var log strings.Builder
	tr := &trace{}
	err := Run(context.Background(), tr, []Step[*trace]{step{name: "a", failUndo: true}, typed{err: errors.New("boom")}}, Options{Log: &log})
	if err == nil || err.Error() != "a undo failed\ntyped: boom" {
		t.Errorf("error %v, want the cleanup's and the typed step's, named", err)
	}
	if got := log.String(); got != "==> typed\n" {
		t.Errorf("log %q, want only the typed step's start", got)
	}
	if got := strings.Join(tr.log, ", "); got != "run a, run typed, undo a" {
		t.Errorf("ran %q", got)
	}
}
