package cli

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/hcloudfake"
)

// run --plan on Hetzner machines prices the estimate at the hourly price
// the driver's plan reads (the fake's ccx23: 0.0476 gross each, a server
// and a load generator): the cost is that price for the estimated time.
// It gives the worst case too, the machines for their whole ttl. Without a
// token the plan still prints, the cost at a list price the driver keeps
// or unknown, saying why.
func TestRunPlanHetznerCost(t *testing.T) {
	file, err := filepath.Abs("../../../experiments/corehttpd-vs-cpanel.hcl")
	if err != nil {
		t.Fatal(err)
	}
	fake := hcloudfake.New(t)
	env := []string{"HCLOUD_TOKEN=" + cliToken, "HCLOUD_ENDPOINT=" + fake.URL}
	code, out, errOut := runCLI(t, env, "run", file, "--plan")
	if code != 0 {
		t.Fatalf("run --plan: exit %d\n%s", code, errOut)
	}
	m := regexp.MustCompile(`(?m)^estimate (\S+)$`).FindStringSubmatch(out)
	c := regexp.MustCompile(`(?m)^cost ≈ (\S+) EUR: 0.0952 EUR per hour for 2 machines \(gross; [^)]+\) for (\S+)$`).FindStringSubmatch(out)
	if m == nil || c == nil {
		t.Fatalf("no estimate and cost lines:\n%s", out)
	}
	total, err := time.ParseDuration(m[1])
	if err != nil || c[2] != m[1] {
		t.Fatalf("estimate %q, cost for %q: %v", m[1], c[2], err)
	}
	cost, _ := strconv.ParseFloat(c[1], 64)
	if want := 0.0952 * total.Hours(); cost < want-0.0001 || cost > want+0.0001 {
		t.Errorf("cost %s EUR, want 0.0952 × %s = %.4f", c[1], total, want)
	}
	// The worst case: both machines for their whole ttl (6h).
	if !strings.Contains(out, "\ncost at worst ≈ 0.5712 EUR: the machines living their whole ttl, 6h0m0s ") {
		t.Errorf("no worst case for the ttl (0.0952 × 6h):\n%s", out)
	}
	if n := fake.Count("GET /server_types"); n == 0 {
		t.Errorf("the price was not read from the driver")
	}
	if strings.Contains(out+errOut, cliToken) {
		t.Errorf("the token is in the output")
	}

	code, out, errOut = runCLI(t, []string{"HOME=" + t.TempDir()}, "run", file, "--plan")
	// Without one, a list price (none is known for ccx23: said, not guessed).
	if code != 0 || !strings.Contains(out, "\ncost: unknown: no list price known for ccx23 without a token (no Hetzner API token: ") || !strings.Contains(out, "HCLOUD_TOKEN") {
		t.Errorf("without a token: exit %d, want the plan with the cost unknown:\n%s%s", code, out, errOut)
	}
}
