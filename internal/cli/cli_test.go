package cli

import (
	"bytes"
	"context"
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
	if code != 2 || !strings.Contains(stderr, `unknown command "frobnicate"`) {
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
