package testenv_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/testenv"
)

// childEnv makes TestIntegrationRule the child: it does what the variable
// names, as an integration test would, and reports through its exit.
const childEnv = "WPTEST_TESTENV_CHILD"

var starters = map[string]func(t *testing.T){
	"root":     func(t *testing.T) { testenv.NeedRoot(t) },
	"sshd":     func(t *testing.T) { testenv.SSHD(t) },
	"mariadb":  func(t *testing.T) { testenv.MariaDB(t) },
	"bare":     func(t *testing.T) { testenv.BareHosts(t, "h") },
	"netns":    func(t *testing.T) { testenv.NewNetNS(t) },
	"faketime": func(t *testing.T) { testenv.LibFaketime(t) },
}

// The rule, in a child test process: under -short every starter skips
// before it starts anything, and a missing dependency skips, with CI=true
// too (-short asks for the fast tests: make test-short); without -short a
// missing dependency fails under CI=true (make test, as CI runs it) and
// skips without it.
func TestIntegrationRule(t *testing.T) {
	if what := os.Getenv(childEnv); what != "" {
		if f := starters[what]; f != nil {
			f(t)
		}
		testenv.Need(t, false, "a dependency this machine lacks")
		return
	}
	run := func(what string, short, ci bool) (string, error) {
		args := []string{"-test.run", "^TestIntegrationRule$", "-test.v"}
		if short {
			args = append(args, "-test.short")
		}
		cmd := exec.Command(os.Args[0], args...)
		for _, e := range os.Environ() {
			if !strings.HasPrefix(e, "CI=") {
				cmd.Env = append(cmd.Env, e)
			}
		}
		cmd.Env = append(cmd.Env, childEnv+"="+what)
		if ci {
			cmd.Env = append(cmd.Env, "CI=true")
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for what := range starters {
		for _, ci := range []bool{false, true} {
			out, err := run(what, true, ci)
			if err != nil || !strings.Contains(out, "--- SKIP") || !strings.Contains(out, "skipped under -short") {
				t.Errorf("%s under -short, CI=%v: %v, want a skip naming -short:\n%s", what, ci, err, out)
			}
		}
	}
	for _, ci := range []bool{false, true} {
		out, err := run("need", true, ci)
		if err != nil || !strings.Contains(out, "--- SKIP") {
			t.Errorf("a missing dependency under -short, CI=%v: %v, want a skip:\n%s", ci, err, out)
		}
	}
	out, err := run("need", false, true)
	if err == nil || !strings.Contains(out, "--- FAIL") || !strings.Contains(out, "CI=true and a test dependency is missing") {
		t.Errorf("a missing dependency under CI=true without -short: %v, want a failure:\n%s", err, out)
	}
	out, err = run("need", false, false)
	if err != nil || !strings.Contains(out, "--- SKIP") || !strings.Contains(out, "under CI=true this fails") {
		t.Errorf("a missing dependency without CI: %v, want a skip:\n%s", err, out)
	}
}
