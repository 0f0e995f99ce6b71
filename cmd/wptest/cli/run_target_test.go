package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/cloud"
)

// TestRunTargetRunID: run --target run:ID[/MACHINE] takes a machine that
// `wptest machines up` made, as up, seed, verify and status do: the
// server (or the named machine) becomes the run's target with the run's
// known_hosts and key; an id that is not a run id's shape, a run without
// machines and a machine it does not have are usage errors naming the
// value.
func TestRunTargetRunID(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "runs", "r1")
	if err := os.MkdirAll(run, 0o700); err != nil {
		t.Fatal(err)
	}
	ms := []cloud.Machine{
		{Name: "wptest-r1-server", Role: "server", Driver: "netns", Address: "192.0.2.10", HostKey: "ssh-ed25519 AAAA"},
		{Name: "wptest-r1-loadgen-1", Role: "loadgen", Driver: "netns", Address: "192.0.2.11", Port: 2222, User: "bench", IdentityFile: "/keys/lg"},
	}
	b, _ := json.Marshal(ms)
	if err := os.WriteFile(filepath.Join(run, cloud.MachinesFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	a := &App{WorkDir: dir}
	for _, tc := range []struct {
		target, known, id       string
		want, wantKnown, wantID string
	}{
		{"run:r1", "", "", "ssh://root@192.0.2.10:22", filepath.Join(run, cloud.KnownHostsFile), filepath.Join(run, cloud.ClientKeyFile)},
		{"run:r1/server", "", "", "ssh://root@192.0.2.10:22", filepath.Join(run, cloud.KnownHostsFile), filepath.Join(run, cloud.ClientKeyFile)},
		{"run:r1/loadgen", "", "", "ssh://bench@192.0.2.11:2222", filepath.Join(run, cloud.KnownHostsFile), "/keys/lg"},
		{"run:r1/wptest-r1-loadgen-1", "/mine.known", "/my.key", "ssh://bench@192.0.2.11:2222", "/mine.known", "/my.key"},
		{"ssh://root@192.0.2.9:22", "k", "i", "ssh://root@192.0.2.9:22", "k", "i"},
		{"netns", "", "", "netns", "", ""},
	} {
		got, known, id, err := runTarget(a, tc.target, tc.known, tc.id)
		if err != nil || got != tc.want || known != tc.wantKnown || id != tc.wantID {
			t.Errorf("runTarget(%q) = %q %q %q, %v; want %q %q %q", tc.target, got, known, id, err, tc.want, tc.wantKnown, tc.wantID)
		}
	}
	for target, want := range map[string]string{
		"run:../x":      "run:../x",
		"run:nosuch":    "--target run:nosuch: no such run: nosuch (runs are in " + filepath.Join(dir, "runs") + ")",
		"run:r1/nosuch": `no machine "nosuch"`,
	} {
		_, _, _, err := runTarget(a, target, "", "")
		if exitcode.Of(err) != exitcode.Config || err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("runTarget(%q): %v (exit %d), want a usage error naming %q", target, err, exitcode.Of(err), want)
		}
	}
	// The whole command takes it: the plan names the run's server.
	r := runIn(dir, nil, "run", quickFile(t), "--target", "run:r1", "--plan")
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "192.0.2.10") {
		t.Fatalf("run --target run:r1 --plan: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
