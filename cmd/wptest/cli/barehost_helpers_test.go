package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
)

// bareHost opens bh as wptest would (its key pinned) for the test's own
// commands, closed when the test ends. conn are the flags that give a
// wptest command the same host; sh runs a script there as root and
// returns its trimmed stdout, failing the test on an error.
func bareHost(t *testing.T, bh *testenv.BareHost) (h host.Host, conn []string, sh func(script string) string) {
	t.Helper()
	ctx := context.Background()
	conn = []string{"--target", bh.Target, "--known-hosts", bh.KnownHosts, "--identity", bh.Identity}
	tg, err := host.ParseTarget(bh.Target)
	if err != nil {
		t.Fatal(err)
	}
	h, err = host.Open(ctx, tg, host.Options{KnownHostsFile: bh.KnownHosts, IdentityFile: bh.Identity})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	sh = func(script string) string {
		t.Helper()
		res, err := h.Run(ctx, host.Cmd{Script: script})
		if err != nil {
			t.Fatalf("on the host: %s: %v", script, err)
		}
		return strings.TrimSpace(string(res.Stdout))
	}
	return h, conn, sh
}
