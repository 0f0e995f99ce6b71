package cli

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// runCLI runs one whole wptest invocation in-process.
func runCLI(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), &App{Args: args, Env: env, Stdout: &out, Stderr: &errb, WorkDir: t.TempDir()})
	return code, out.String(), errb.String()
}

func TestUnknownCommandIsUsageError(t *testing.T) {
	code, _, stderr := runCLI(t, nil, "frobnicate")
	if code != 2 || !strings.Contains(stderr, `unknown command "frobnicate"`) || !strings.Contains(stderr, "\n  version ") {
		t.Fatalf("code=%d stderr=%q", code, stderr)
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := runCLI(t, nil, "version")
	if code != 0 || stdout != "wptest "+Version+"\n" {
		t.Fatalf("code=%d stdout=%q", code, stdout)
	}
	if code, _, _ := runCLI(t, nil, "version", "--bogus"); code != 2 {
		t.Fatalf("bad flag: code=%d, want 2", code)
	}
}

// The usage lists every command of the table exactly once, in the table's
// order, and each entry runs its own command: "-h" answers with the flag
// set named after it.
func TestCommandTable(t *testing.T) {
	code, _, usage := runCLI(t, nil, "help")
	if code != 0 {
		t.Fatalf("help: code=%d", code)
	}
	seen := map[string]bool{}
	last := -1
	for _, c := range commands() {
		if seen[c.name] {
			t.Errorf("command %q is in the table twice", c.name)
		}
		seen[c.name] = true
		line := fmt.Sprintf("\n  %-10s %s\n", c.name, c.synopsis)
		if n := strings.Count(usage, line); n != 1 {
			t.Errorf("usage lists %q %d times, want once:\n%s", c.name, n, usage)
			continue
		}
		if i := strings.Index(usage, line); i < last {
			t.Errorf("usage lists %q out of the table's order", c.name)
		} else {
			last = i
		}
		code, _, stderr := runCLI(t, nil, c.name, "-h")
		if code != 0 || !strings.Contains(stderr, "wptest "+c.name) {
			t.Errorf("wptest %s -h: code=%d, stderr does not name the command:\n%s", c.name, code, stderr)
		}
	}
	if len(seen) < 19 {
		t.Errorf("table has %d commands, want at least the 19 wptest shipped with", len(seen))
	}
	// No argument: usage on stderr and a usage error.
	if code, _, stderr := runCLI(t, nil); code != 2 || !strings.Contains(stderr, "commands:") {
		t.Errorf("no command: code=%d stderr=%q", code, stderr)
	}
}
