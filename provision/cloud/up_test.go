package cloud

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/exitcode"
)

// Cleanups run in reverse for every step that started, on success, error
// and cancellation, and always on a context that is not cancelled.
func TestRunStepsCleanupOrder(t *testing.T) {
	cases := []struct {
		name     string
		failAt   string // step whose Run fails
		cancelAt string // step whose Run cancels the context (Ctrl-C)
		want     string
		wantErr  bool
	}{
		{name: "success", want: "run a, run b, run c, clean c, clean b, clean a"},
		{name: "error", failAt: "b", want: "run a, run b, clean b, clean a", wantErr: true},
		{name: "ctrl-c", cancelAt: "b", want: "run a, run b, clean b, clean a", wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var log []string
			step := func(n string) Step {
				return Step{Name: n,
					Run: func(ctx context.Context) error {
						log = append(log, "run "+n)
						if n == c.cancelAt {
							cancel()
							return ctx.Err()
						}
						if n == c.failAt {
							return errors.New("boom")
						}
						return nil
					},
					Cleanup: func(ctx context.Context) error {
						if ctx.Err() != nil {
							t.Errorf("cleanup %s got a cancelled context", n)
						}
						if _, ok := ctx.Deadline(); !ok {
							t.Errorf("cleanup %s has no timeout", n)
						}
						log = append(log, "clean "+n)
						return nil
					}}
			}
			err := RunSteps(ctx, []Step{step("a"), step("b"), step("c")}, time.Minute, nil)
			if got := strings.Join(log, ", "); got != c.want || (err != nil) != c.wantErr {
				t.Errorf("got %q err %v; want %q", got, err, c.want)
			}
		})
	}
}

// A failing cleanup is reported even when the run succeeded.
func TestRunStepsCleanupFailure(t *testing.T) {
	err := RunSteps(context.Background(), []Step{{Name: "create", Run: func(context.Context) error { return nil },
		Cleanup: func(context.Context) error { return Teardown("t1", errors.New("server 40 locked")) }}}, time.Minute, nil)
	if exitcode.Of(err) != exitcode.Teardown || !strings.Contains(err.Error(), "wptest down --run t1") {
		t.Fatalf("err = %v (code %d)", err, exitcode.Of(err))
	}
}

func TestFindMachineAndMachinesFile(t *testing.T) {
	dir := t.TempDir()
	ms := []Machine{{Name: "wptest-t1-server", Role: RoleServer, Address: "203.0.113.40"}, {Name: "wptest-t1-loadgen-1", Role: RoleLoadGen}, {Name: "wptest-t1-loadgen-2", Role: RoleLoadGen}}
	if err := writeMachines(dir, ms); err != nil {
		t.Fatal(err)
	}
	back, err := ReadMachines(dir)
	if err != nil || len(back) != 3 || back[0] != ms[0] {
		t.Fatalf("read back %+v, %v", back, err)
	}
	for q, want := range map[string]string{"server": "wptest-t1-server", "loadgen": "wptest-t1-loadgen-1", "wptest-t1-loadgen-2": "wptest-t1-loadgen-2"} {
		if m, err := FindMachine(back, q); err != nil || m.Name != want {
			t.Errorf("FindMachine(%q) = %v, %v", q, m.Name, err)
		}
	}
	if _, err := FindMachine(back, "db"); err == nil || !strings.Contains(err.Error(), "wptest-t1-loadgen-2 (loadgen)") {
		t.Errorf("unknown machine: %v", err)
	}
	tg, o := Target(dir, back[0])
	if tg.Host != "203.0.113.40" || tg.Port != 22 || tg.User != "root" || o.KnownHostsFile != filepath.Join(dir, KnownHostsFile) || o.IdentityFile != filepath.Join(dir, ClientKeyFile) {
		t.Errorf("target %+v options %+v", tg, o)
	}
}

// fakeCloud makes local machines (nothing to wait for) and counts what it
// destroys.
type fakeCloud struct{ destroyed int }

func (*fakeCloud) Plan(context.Context, Spec) (*Plan, error) { return nil, nil }
func (*fakeCloud) Create(context.Context, *Plan, Journal) ([]Machine, error) {
	return []Machine{{Name: "wptest-t1-server", Role: RoleServer, Local: true}}, nil
}
func (f *fakeCloud) Destroy(context.Context, Selector) error          { f.destroyed++; return nil }
func (*fakeCloud) List(context.Context, Selector) ([]Resource, error) { return nil, nil }

// Up runs the one machines lifecycle (Lifecycle's create and wait steps,
// then Then): the machines are removed after a failure, and after success
// unless Keep, which says how to remove them later.
func TestUpLifecycle(t *testing.T) {
	boom := errors.New("then failed")
	for _, tc := range []struct {
		name          string
		keep          bool
		then          error
		wantDestroyed int
		wantLog       string
	}{
		{"success", false, nil, 1, "==> create machines (fake)\n==> wait for ssh and cloud-init\n==> run\n==> cleanup: create machines (fake)\n"},
		{"success, kept", true, nil, 0, "==> cleanup: create machines (fake)\nkept run t1 (expires "},
		{"failure, kept only on success", true, boom, 1, "==> run\n==> cleanup: create machines (fake)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeCloud{}
			var log strings.Builder
			p := &Plan{Driver: "fake", Owned: true, Spec: Spec{Run: Run{ID: "t1", Dir: t.TempDir()}}}
			ms, err := Up(context.Background(), f, p, NopJournal, UpOptions{Keep: tc.keep, Log: &log,
				Then: func(_ context.Context, ms []Machine) error {
					if len(ms) != 1 {
						t.Errorf("Then got %d machines, want the one made", len(ms))
					}
					return tc.then
				}})
			if !errors.Is(err, tc.then) || (tc.then != nil && !strings.HasPrefix(err.Error(), "run: ")) {
				t.Errorf("error %v, want %v, named after its step", err, tc.then)
			}
			if tc.then == nil && len(ms) != 1 {
				t.Errorf("Up returned %d machines, want 1", len(ms))
			}
			if f.destroyed != tc.wantDestroyed {
				t.Errorf("destroyed %d times, want %d", f.destroyed, tc.wantDestroyed)
			}
			if !strings.Contains(log.String(), tc.wantLog) {
				t.Errorf("log %q, want it to hold %q", log.String(), tc.wantLog)
			}
		})
	}
}
