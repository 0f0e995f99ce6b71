package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/profiles"
	"github.com/wptest/wptest/provision"
)

const demoDir = "../../../provision/testdata/profiles/demo"

func demoPath(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(demoDir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlanEveryShippedProfileOffline: every profile in profiles/ renders
// offline for debian-12, debian-13 and almalinux-9 with -o json and lists
// its ops in order, with no host.
func TestPlanEveryShippedProfileOffline(t *testing.T) {
	names := profiles.Names()
	if len(names) == 0 {
		t.Fatal("no shipped profiles embedded")
	}
	for _, name := range names {
		for _, plat := range []string{"debian-12", "debian-13", "almalinux-9"} {
			t.Run(name+"/"+plat, func(t *testing.T) {
				code, stdout, stderr := runCLI(t, nil, "plan", "--profile", name, "--platform", plat, "-o", "json")
				if code != 0 {
					t.Fatalf("exit %d\n%s", code, stderr)
				}
				var rep provision.Report
				if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
					t.Fatalf("json: %v\n%s", err, stdout)
				}
				if rep.Mode != "offline" || rep.Profile != name || rep.Platform != plat || !strings.HasPrefix(rep.Hash, "sha256:") {
					t.Fatalf("report header: %+v", rep)
				}
				if len(rep.Ops) == 0 {
					t.Fatal("no ops")
				}
				seen := map[string]int{}
				for i, op := range rep.Ops {
					if op.ID == "" || op.Spec == nil || op.Change != nil {
						t.Fatalf("op %d: %+v", i, op)
					}
					seen[op.ID] = i
				}
				for i, op := range rep.Ops { // order honours depends_on
					for _, d := range op.DependsOn {
						if j, ok := seen[d]; ok && j > i {
							t.Errorf("%s runs before its dependency %s", op.ID, d)
						}
					}
				}
				// Text output renders too.
				if code, out, stderr := runCLI(t, nil, "plan", "--profile", name, "--platform", plat); code != 0 || !strings.Contains(out, rep.Ops[0].ID) {
					t.Fatalf("text plan: exit %d\n%s", code, stderr)
				}
			})
		}
	}
}

func TestProfilesCommand(t *testing.T) {
	code, stdout, stderr := runCLI(t, nil, "profiles", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var list []provision.Header
	if err := json.Unmarshal([]byte(stdout), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != len(profiles.Names()) || len(list) == 0 {
		t.Fatalf("listed %d profiles, embedded %v", len(list), profiles.Names())
	}
	for _, h := range list {
		if h.Description == "" || len(h.Platforms) == 0 {
			t.Errorf("profile %s: empty description or platforms", h.Name)
		}
		// Every alias names its profile.
		for _, alias := range h.Aliases {
			code, out, stderr := runCLI(t, nil, "plan", "--profile", alias, "--platform", h.Platforms[0], "-o", "json")
			var rep provision.Report
			if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Profile != h.Name {
				t.Errorf("alias %s: exit %d, profile %q, %s", alias, code, rep.Profile, stderr)
			}
		}
	}
	code, stdout, _ = runCLI(t, nil, "profiles")
	if code != 0 || !strings.HasPrefix(stdout, "NAME") {
		t.Fatalf("text: exit %d %q", code, stdout)
	}
	code, stdout, _ = runCLI(t, nil, "profiles", "--profile-dir", demoPath(t), "-o", "json")
	if code != 0 || !strings.Contains(stdout, `"demo-test"`) {
		t.Fatalf("--profile-dir: exit %d %s", code, stdout)
	}
}

func TestPlanUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"plan", "--profile", "demo"},                                  // neither --platform nor --target
		{"plan", "--profile", "nope", "--platform", "debian-12"},       // unknown profile
		{"plan", "--profile-dir", demoDir, "--platform", "windows-11"}, // unsupported platform
		{"plan", "--profile-dir", demoDir, "--platform", "debian-12", "-o", "yaml"},
		{"apply", "--profile-dir", demoDir}, // no target
	} {
		if code, _, stderr := runCLI(t, nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, stderr)
		}
	}
}

// TestApplyCLIBadProfileChangesNothing: HCL errors exit 2 with file:line:col
// and the snippet, and nothing reaches the host.
func TestApplyCLIBadProfileChangesNothing(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "broken")
	os.MkdirAll(prof, 0o755)
	root := filepath.Join(dir, "root")
	os.WriteFile(filepath.Join(prof, "main.hcl"), []byte(`profile {
  description = "broken"
  platforms   = ["debian-12"]
}
platform "debian-12" { package_manager = "apt" }
command "first" {
  run     = "mkdir -p `+root+`"
  creates = "`+root+`"
}
file "x" {
  path    = "`+root+`/x"
  contnt  = "typo"
}
`), 0o644)
	code, _, stderr := runCLI(t, nil, "apply", "--profile-dir", prof, "--target", "local")
	if code != 2 {
		t.Fatalf("exit %d, want 2\n%s", code, stderr)
	}
	for _, want := range []string{"broken/main.hcl line 12", `contnt  = "typo"`, `Did you mean "content"?`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	code, _, stderr = runCLI(t, nil, "plan", "--profile-dir", prof, "--platform", "debian-12", "--compact-errors")
	if code != 2 || !strings.Contains(stderr, "broken/main.hcl:12:3: error: Unsupported argument") {
		t.Errorf("compact: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Fatalf("the first op ran although the profile had errors: %v", err)
	}
}

// TestApplyCLIOverSSH runs whole wptest invocations in-process against a
// real sshd: apply (checks pass), apply again (0 changes), plan against the
// host (0 changes), then a failing command (exit 4, host/op/exit code and
// stderr named).
func TestApplyCLIOverSSH(t *testing.T) {
	t.Parallel() // its own sshd, root dir and port
	testenv.NeedBinary(t, "python3")
	testenv.NeedBinary(t, "start-stop-daemon")
	srv := testenv.SSHD(t)
	root := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	t.Cleanup(func() {
		pid := filepath.Join(root, "run", "demo.pid")
		host.NewLocal(nil).Run(t.Context(), host.Cmd{Script: "start-stop-daemon --stop --pidfile " + host.Quote(pid) + " --retry TERM/5/KILL/5 --oknodo"})
	})
	hostName := fmt.Sprintf("root@127.0.0.1:%d", srv.Port)
	if srv.User != "root" {
		hostName = fmt.Sprintf("%s@127.0.0.1:%d", srv.User, srv.Port)
	}
	base := []string{"--profile-dir", demoPath(t), "--target", srv.Target, "--known-hosts", srv.KnownHostsFile,
		"--identity", srv.IdentityFile, "-var", "root=" + root, "-var", fmt.Sprintf("port=%d", port)}
	apply := func(extra ...string) (int, provision.Report, string) {
		code, stdout, stderr := runCLI(t, nil, append(append([]string{"apply"}, base...), append(extra, "-o", "json")...)...)
		var rep provision.Report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("apply json: %v\nstdout: %s\nstderr: %s", err, stdout, stderr)
		}
		return code, rep, stderr
	}
	code, rep, stderr := apply()
	if code != 0 || rep.Changes == 0 {
		t.Fatalf("first apply: exit %d, %d changes\n%s", code, rep.Changes, stderr)
	}
	for _, c := range rep.Checks {
		if !c.Passed {
			t.Errorf("check %s: %s", c.ID, c.Error)
		}
	}
	if !strings.Contains(stderr, "["+hostName+"] file.config: create") || !strings.Contains(stderr, "["+hostName+"] check.greeting: passed") {
		t.Errorf("progress lines missing:\n%s", stderr)
	}
	if code, rep, stderr = apply(); code != 0 || rep.Changes != 0 {
		t.Fatalf("second apply: exit %d, %d changes\n%s", code, rep.Changes, stderr)
	}
	code, stdout, stderr := runCLI(t, nil, append(append([]string{"plan"}, base...), "-var", "greeting=hej")...)
	if code != 0 || !strings.Contains(stdout, "~  8. file.config: update") || !strings.Contains(stdout, "\nPlan: 0 to add, 1 to change, 0 to remove, 1 to run, 12 unchanged.\n") {
		t.Fatalf("plan against host: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// A failing command: exit 4, naming host, op, exit code, stderr tail.
	os.Remove(filepath.Join(root, "state", "step-ok"))
	code, rep, stderr = apply("-var", "fail=true")
	if code != 4 {
		t.Fatalf("failing apply: exit %d, want 4\n%s", code, stderr)
	}
	for _, want := range []string{hostName, "command.step", "exit status 3", "step: disk on fire"} {
		if !strings.Contains(stderr, want) || !strings.Contains(rep.Error, want) {
			t.Errorf("error output lacks %q:\nstderr: %s\nreport error: %s", want, stderr, rep.Error)
		}
	}
	if code, rep, stderr = apply(); code != 0 || rep.Changes != 1 {
		t.Fatalf("rerun: exit %d, %d changes (want 1: command.step)\n%s", code, rep.Changes, stderr)
	}
}
