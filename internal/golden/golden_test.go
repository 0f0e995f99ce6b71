package golden

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

const archive = `a case
-- input --
hello
-- want --
HELLO
`

// upper is the code under test in these cases: want = upper(input).
func upper(t *testing.T, a *txtar.Archive) map[string]string {
	in, ok := Section(a, "input")
	if !ok {
		t.Fatal("no input")
	}
	return map[string]string{"want": strings.ToUpper(string(in))}
}

// The child half of TestMismatchAndUpdate: runs Archives on the directory
// the parent names, in its own process, so its failure is observable. Run
// on its own, it checks a passing archive.
func TestChild(t *testing.T) {
	dir := os.Getenv("GOLDEN_CHILD_DIR")
	if dir == "" {
		dir = t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "ok.txtar"), []byte(archive), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	Archives(t, filepath.Join(dir, "*.txtar"), upper)
}

func TestArchivesPass(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ok.txtar"), []byte(archive), 0o644); err != nil {
		t.Fatal(err)
	}
	ran := 0
	Archives(t, filepath.Join(dir, "*.txtar"), func(t *testing.T, a *txtar.Archive) map[string]string {
		ran++
		if !strings.HasSuffix(t.Name(), "/ok") || string(a.Comment) != "a case\n" {
			t.Errorf("subtest %q, comment %q", t.Name(), a.Comment)
		}
		return upper(t, a)
	})
	if ran != 1 {
		t.Fatalf("f ran %d times, want once", ran)
	}
}

// A wrong output fails naming the file, the section and the first line that
// differs; -update rewrites the outputs (adding a missing one) and keeps
// the input and comment; then the same run passes.
func TestMismatchAndUpdate(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txtar")
	if err := os.WriteFile(bad, []byte(strings.Replace(archive, "HELLO", "HULLO", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.txtar")
	if err := os.WriteFile(missing, []byte("-- input --\nbye\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	child := func(args ...string) (string, error) {
		cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestChild$", "-test.v"}, args...)...)
		cmd.Env = append(os.Environ(), "GOLDEN_CHILD_DIR="+dir)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := child()
	if err == nil {
		t.Fatalf("mismatch passed:\n%s", out)
	}
	for _, want := range []string{bad + `: "want" differs`, "line 1:", "want: HULLO", "got:  HELLO", missing + `: no "want" section`} {
		if !strings.Contains(out, want) {
			t.Errorf("failure lacks %q:\n%s", want, out)
		}
	}
	if out, err := child("-update"); err != nil {
		t.Fatalf("-update failed: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(bad); string(b) != archive {
		t.Errorf("-update wrote\n%s\nwant\n%s", b, archive)
	}
	if b, _ := os.ReadFile(missing); string(b) != "-- input --\nbye\n-- want --\nBYE\n" {
		t.Errorf("-update wrote\n%s", b)
	}
	if out, err := child(); err != nil {
		t.Fatalf("after -update: %v\n%s", err, out)
	}
}

func TestFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.txt")
	if err := os.WriteFile(p, []byte("same\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	File(t, p, []byte("same\n"))
	if got := firstDiff("a\nb\n", "a\nc\n"); got != "line 2:\n  want: b\n  got:  c" {
		t.Errorf("firstDiff = %q", got)
	}
}
