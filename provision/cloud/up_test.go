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
