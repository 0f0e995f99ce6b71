package cli

import (
	"os/user"
	"strings"
	"testing"

	"github.com/wptest/wptest/bench/srvstat"
)

// Groups as the host manifest gives them (names of binaries, users), as
// flags or JSON; bad ones are refused before sampling, with the reason.
func TestSrvstatGroupsFromFlagsAndJSON(t *testing.T) {
	me, err := user.Current() // the test's own processes: any user runs it
	if err != nil {
		t.Fatal(err)
	}
	gs := []srvstat.Group{{Name: "go", Exe: []string{"cli.test"}, Users: []string{me.Username}}, {Name: "nobody-here", Exe: []string{"srvstat-none"}}}
	for _, args := range [][]string{
		{"--group", "name=go,exe=cli.test,user=" + me.Username, "--group", "name=nobody-here,exe=srvstat-none"},
		srvstat.GroupArgs(gs),
	} {
		code, out, stderr := runCLI(t, nil, append([]string{"srvstat", "--count", "2", "--interval", "50ms", "--no-pss"}, args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		ss, err := srvstat.Read(strings.NewReader(out))
		if err != nil || len(ss) != 2 {
			t.Fatalf("%q: %d samples, %v", args, len(ss), err)
		}
		if g := ss[1].Groups; g["go"].Procs < 1 || g["nobody-here"].Procs != 0 || g[srvstat.Other].Procs < 1 || len(g) != 3 {
			t.Fatalf("%q: groups %+v", args, g)
		}
	}
	for _, c := range []struct{ arg, want string }{
		{"name=go,exe=cli.test,user=no-such-user-srvstat", "no-such-user-srvstat"},
		{"name=other,exe=cli.test", "not \"other\""},
		{"name=go,exe=/usr/bin/x", "want a file name"},
	} {
		code, _, stderr := runCLI(t, nil, "srvstat", "--count", "1", "--group", c.arg)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Fatalf("--group %s: exit %d, %q; want 2 and %q", c.arg, code, stderr, c.want)
		}
	}
	if code, _, stderr := runCLI(t, nil, "srvstat", "--count", "1", "--groups", `[{"name": "go", "comms": ["x"]}]`); code != 2 || !strings.Contains(stderr, "comms") {
		t.Fatalf("--groups with an unknown field: exit %d, %q", code, stderr)
	}
}
