package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A scenario name that would close the report's id attribute and open a
// script is refused by run --plan as a config error (exit 2) at the label's
// file:line:col, before any plan is printed or run directory made.
func TestRunPlanRefusesHostileScenarioName(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "x.hcl")
	src := `experiment "x" {
  description = "a hostile scenario name"
}
machines "local" {}
fixture "minimal" {
  seed = 1
}
profile "caddy" {}
scenario "st\"><script>alert(1)</script>" {
  kind     = "static"
  path     = "/wptest-probe.js"
  visitors = [1]
  duration = "1s"
}
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, nil, "run", file, "--plan")
	if code != 2 || !strings.Contains(stderr, file+":9:10: Invalid scenario name") || strings.Contains(stdout, "plan_sha256") {
		t.Fatalf("exit %d, want 2 with %s:9:10: Invalid scenario name and no plan\nstdout:\n%s\nstderr:\n%s", code, file, stdout, stderr)
	}
	// The same file with a name is a plan.
	if err := os.WriteFile(file, []byte(strings.Replace(src, `"st\"><script>alert(1)</script>"`, `"static"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI(t, nil, "run", file, "--plan")
	if code != 0 || !strings.Contains(stdout, "plan_sha256") {
		t.Fatalf("a valid name: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
