package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/hcloudfake"
	"github.com/wptest/wptest/provision/cloud"
)

// Every command that prints data takes -o text|json and nothing else: the
// old --json of machines is an unknown flag, and a format other than text or
// json is a usage error (exit 2) naming the flag, before anything connects.
func TestOutputFlagIsOneFlag(t *testing.T) {
	cmds := [][]string{
		{"profiles"}, {"plan", "--profile", "caddy", "--platform", "debian-12"},
		{"up"}, {"apply"}, {"swap"}, {"status"}, {"verify"}, {"bench"},
		{"machines", "plan"}, {"machines", "up"}, {"machines", "list"},
	}
	env := []string{"HCLOUD_TOKEN=" + cliToken, "HCLOUD_ENDPOINT=http://127.0.0.1:1"}
	for _, c := range cmds {
		name := c[0] // the command whose help to see
		if name == "machines" {
			name += " " + c[1]
		}
		t.Run(strings.Join(c, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, env, append(c, "-o", "yaml")...)
			// One line, printed once, that says where the help is.
			if want := "wptest " + name + `: invalid value "yaml" for flag -o: want text or json; see 'wptest ` + name + " --help'\n"; code != 2 || stdout != "" || stderr != want {
				t.Errorf("-o yaml: code=%d stdout=%q stderr:\n%s\nwant:\n%s", code, stdout, stderr, want)
			}
			code, stdout, stderr = runCLI(t, env, append(c, "--json")...)
			if want := "wptest " + name + ": unknown flag --json; see 'wptest " + name + " --help'\n"; code != 2 || stdout != "" || stderr != want {
				t.Errorf("--json: code=%d stdout=%q stderr:\n%s\nwant:\n%s", code, stdout, stderr, want)
			}
		})
	}
}

// machines plan -o json prints the plan as JSON (it was --json).
func TestMachinesPlanJSON(t *testing.T) {
	fake := hcloudfake.New(t)
	fake.Currency = "USD"
	env := []string{"HCLOUD_TOKEN=" + cliToken, "HCLOUD_ENDPOINT=" + fake.URL}
	code, stdout, stderr := runCLI(t, env, "machines", "plan", "-o", "json")
	if code != 0 {
		t.Fatalf("code=%d stderr:\n%s", code, stderr)
	}
	var p cloud.Plan
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatalf("not a JSON plan: %v\n%s", err, stdout)
	}
	if p.Driver != "hetzner" || len(p.Machines) != 2 || p.Currency != "USD" {
		t.Fatalf("plan: driver %q, %d machines, currency %q:\n%s", p.Driver, len(p.Machines), p.Currency, stdout)
	}
	// The default is text, for people.
	code, stdout, _ = runCLI(t, env, "machines", "plan")
	if code != 0 || !strings.Contains(stdout, "cost: ") || strings.HasPrefix(stdout, "{") {
		t.Fatalf("text plan: code=%d\n%s", code, stdout)
	}
}
