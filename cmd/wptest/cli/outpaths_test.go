package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture build writes only what it makes: an existing out2.tmp/ beside
// --out out2 (which a build used as its staging directory, and removed
// first) is left byte-equal, no staging directory is left behind, and an
// empty directory given as --out becomes the build. Before, out2.tmp/ and
// everything in it was deleted.
func TestFixtureBuildLeavesWhatItDidNotMake(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "out2.tmp")
	if err := os.MkdirAll(filepath.Join(mine, "drafts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mine, "drafts", "post.md"), []byte("my draft"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, mine)
	for _, out := range []string{"out2", "empty"} {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), &App{Args: []string{"fixture", "build", "--fixture", "minimal", "--out", out},
			Stdout: &stdout, Stderr: &stderr, WorkDir: dir})
		if code != 0 || !strings.HasPrefix(stdout.String(), "root ") {
			t.Fatalf("fixture build --out %s: exit %d\n%s", out, code, stderr.String())
		}
		if _, err := os.Stat(filepath.Join(dir, out, "manifest.json")); err != nil {
			t.Fatalf("--out %s: %v", out, err)
		}
	}
	after := snapshot(t, mine)
	if len(after) != len(before) {
		t.Fatalf("out2.tmp changed: %d paths, was %d", len(after), len(before))
	}
	for p, v := range before {
		if after[p] != v {
			t.Errorf("out2.tmp: %s changed or removed", p)
		}
	}
	if got := strings.Join(dirNames(t, dir), " "); got != "empty out2 out2.tmp" {
		t.Errorf("directory holds %q, want the two builds and out2.tmp (no staging left)", got)
	}
}
