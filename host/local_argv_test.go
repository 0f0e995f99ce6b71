package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wptest/wptest/host"
)

// A local command's script is not in any process's argv (where ps shows
// it to every user), yet runs as sh -c would: variables, a heredoc ending
// the script, its exit status, and no stray fd 3 left to its children.
func TestLocalScriptNotInArgv(t *testing.T) {
	const secret = "S3cret-in-argv-x"
	script := "pw=" + secret + "\n" +
		`tr '\0' ' ' < /proc/$$/cmdline; echo` + "\n" +
		`sh -c 'tr "\0" " " < /proc/$PPID/cmdline; echo; [ -e /proc/self/fd/3 ] && echo fd3-open || echo fd3-closed'` + "\n" +
		`[ "$pw" = ` + secret + ` ] && echo same` + "\n" +
		"cat <<EOF\nheredoc $pw\nEOF"
	var out strings.Builder
	res, err := host.NewLocal(nil).Run(context.Background(), host.Cmd{Script: script, Label: "argv", Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if len(lines) < 5 || strings.Contains(lines[0]+lines[1], secret) || lines[2] != "fd3-closed" || lines[3] != "same" || lines[4] != "heredoc "+secret {
		t.Fatalf("output:\n%s", out.String())
	}
	res, err = host.NewLocal(nil).Run(context.Background(), host.Cmd{Script: "exit 3", Label: "exit"})
	if res.Exit != 3 || err == nil {
		t.Fatalf("exit 3: %+v %v", res, err)
	}
}

// A local command, and a daemon it leaves behind, get a small allowlisted
// environment: none of this process's other variables (a cloud token).
func TestLocalEnvAllowlisted(t *testing.T) {
	const canary = "hcloud-canary-0123456789"
	t.Setenv("HCLOUD_TOKEN", canary)
	t.Setenv("SSH_AUTH_SOCK", "/tmp/"+canary)
	t.Setenv("LANG", "C.UTF-8")
	pidFile := t.TempDir() + "/pid"
	script := `env; sleep 30 </dev/null >/dev/null 2>&1 & echo $! >` + host.Quote(pidFile) + `; tr '\0' '\n' </proc/$!/environ; kill $!`
	res, err := host.NewLocal(nil).Run(context.Background(), host.Cmd{Script: script, Label: "env"})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Stdout)
	if strings.Contains(out, canary) {
		t.Errorf("the operator's environment reached a local command:\n%s", out)
	}
	for _, want := range []string{"PATH=", "LANG=C.UTF-8", "LC_ALL=C"} {
		if !strings.Contains(out, want) {
			t.Errorf("the command's environment lacks %s:\n%s", want, out)
		}
	}
	// Declared variables do reach it.
	res, err = host.NewLocal(nil).WithEnv("WPTEST_DECLARED=yes").Run(context.Background(), host.Cmd{Script: `echo "$WPTEST_DECLARED ${HCLOUD_TOKEN:-none}"`})
	if err != nil || string(res.Stdout) != "yes none\n" {
		t.Errorf("WithEnv: %q %v", res.Stdout, err)
	}
}
