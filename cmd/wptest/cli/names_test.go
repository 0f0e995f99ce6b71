package cli

import (
	"encoding/json"
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

// The post's experiment plans its 400-worker tuned Apache as a column of
// its own: the tuned-apache profile, on the crowd and static scenarios
// only (as the post measured it), beside the 150-worker column on all of
// them, and nginx beside Caddy in corehttpd's place.
func TestRunPlanListsTheTuned400Column(t *testing.T) {
	file, err := filepath.Abs(filepath.Join("..", "..", "..", "experiments", "corehttpd-vs-cpanel.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, nil, "run", file, "--plan")
	if code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "column tuned-400 (profile tuned-apache) \"Apache tuned in WHM, 400 workers\"\n") ||
		!strings.Contains(stdout, "column nginx (profile nginx)") {
		t.Errorf("plan does not list the tuned-400 and nginx columns with their profiles:\n%s", stdout)
	}
	// Every point by its key: -o json lists them (the text, the matrix).
	code, stdout, stderr = runCLI(t, nil, "run", file, "--plan", "-o", "json")
	var plan struct {
		Keys []string `json:"point_keys"`
	}
	if err := json.Unmarshal([]byte(stdout), &plan); code != 0 || err != nil {
		t.Fatalf("-o json: exit %d, %v\nstderr:\n%s", code, err, stderr)
	}
	scenarios := map[string]map[string]int{} // column -> scenario -> points
	for _, l := range plan.Keys {
		if f := strings.Split(l, "/"); len(f) == 4 && strings.HasPrefix(f[0], "r") {
			if scenarios[f[1]] == nil {
				scenarios[f[1]] = map[string]int{}
			}
			scenarios[f[1]][f[2]]++
		}
	}
	if got := scenarios["tuned-400"]; len(got) != 2 || got["crowd"] != 3 || got["static"] != 6 {
		t.Errorf("tuned-400's points per scenario: %v, want crowd 3 (300, 1,000, 3,000) and static 6 (10 to 1,000), nothing else", got)
	}
	if got := scenarios["tuned-apache"]; got["page"] == 0 || got["crowd"] != 3 || got["static"] != 6 || got["h2"] != 1 {
		t.Errorf("tuned-apache's points: %v, want every scenario", got)
	}
	if got := scenarios["nginx"]; got["crowd"] != 3 || got["h2"] != 1 {
		t.Errorf("nginx's points: %v, want every scenario", got)
	}
}
