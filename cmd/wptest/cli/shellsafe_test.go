package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/provision"
)

// The injection through -var: refused with exit 2, naming the
// variable and its rule, and nothing rendered.
func TestPlanRefusesShellInjectionInVar(t *testing.T) {
	const evil = "https://x/'; touch /tmp/PWNED; echo '"
	code, stdout, stderr := runCLI(t, nil, "plan", "--profile", "cpanel", "--platform", "debian-12", "--compact-errors", "-var", "ruid2_source_url="+evil)
	if code != 2 || !strings.Contains(stderr, "var.ruid2_source_url") || !strings.Contains(stderr, "must be an https://, http:// or file:// URL") {
		t.Fatalf("exit %d, want 2 naming var.ruid2_source_url\n%s", code, stderr)
	}
	if strings.Contains(stdout, "PWNED") {
		t.Fatalf("a refused value was rendered:\n%s", stdout)
	}
}

// A value that passes validation but holds quotes and ";" is rendered as
// one quoted word: the rendered assignment, run by a real /bin/sh, gives
// back exactly the value and runs none of it.
func TestPlanQuotesShellCharactersInVar(t *testing.T) {
	dir := t.TempDir()
	canary := filepath.Join(dir, "PWNED")
	evil := "https://x/';touch${IFS}" + canary + ";'$(touch${IFS}" + canary + ")"
	code, stdout, stderr := runCLI(t, nil, "plan", "--profile", "cpanel", "--platform", "debian-12", "-o", "json", "-var", "ruid2_source_url="+evil)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep provision.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	var run string
	for _, op := range rep.Ops {
		if op.ID == "command.build_ruid2" {
			run, _ = op.Spec["run"].(string)
		}
	}
	var assign string
	for _, line := range strings.Split(run, "\n") {
		if strings.HasPrefix(line, "url=") {
			assign = line
		}
	}
	if assign == "" {
		t.Fatalf("no url= line in command.build_ruid2:\n%s", run)
	}
	out, err := exec.Command("/bin/sh", "-c", assign+"\nprintf %s \"$url\"").CombinedOutput()
	if err != nil || string(out) != evil {
		t.Fatalf("sh ran %q: %q, %v; want the value back", assign, out, err)
	}
	if _, err := os.Stat(canary); err == nil {
		t.Fatalf("the value ran as a command: %s exists", canary)
	}
}

// The same through an experiment file: run --plan loads every enabled
// profile with its vars, so the refused value stops the file (exit 2)
// at the profile block, before a plan is printed. The value comes from the
// command line, passed through (a source URL written in the file is refused
// before that: operator_only).
func TestRunPlanRefusesShellInjectionInProfileVars(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "x.hcl")
	src := `experiment "x" {
  description = "injection through a profile's vars"
}
machines "local" {}
fixture "minimal" {
  seed = 1
}
profile "cpanel-apache" {
  vars = { ruid2_source_url = var.url }
}
scenario "static" {
  kind     = "static"
  path     = "/wptest-probe.js"
  visitors = [1]
  duration = "1s"
}
variable "url" {
  default = ""
}
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, nil, "run", file, "--plan", "-var", "url=https://x/'; touch /tmp/PWNED; echo '")
	if code != 2 || !strings.Contains(stderr, `profile "cpanel-apache"`) || !strings.Contains(stderr, "var.ruid2_source_url") || strings.Contains(stdout, "plan_sha256") {
		t.Fatalf("exit %d, want 2 naming the profile and var.ruid2_source_url before any plan\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// A file:// copy, as quick.hcl suggests, is accepted.
	code, stdout, stderr = runCLI(t, nil, "run", file, "--plan", "-var", "url=file:///srv/mod_ruid2.c")
	if code != 0 || !strings.Contains(stdout, "plan_sha256") {
		t.Fatalf("file:// URL: exit %d\n%s", code, stderr)
	}
}
