package cloud

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

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
