package stage

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/provision/cloud"
)

// The machines stage writes run.json and opens events.jsonl in the run's
// directory: a link planted at run.json is replaced by the stage's own
// file, one at events.jsonl is refused, and neither writes the file the
// link points at; ReadRunInfo (wptest down) reads no link either.
func TestMachinesRunDirNeverFollowsLinks(t *testing.T) {
	for _, file := range []string{RunInfoFile, cloud.JournalFile} {
		dir := t.TempDir()
		canary := filepath.Join(t.TempDir(), "canary")
		if err := os.WriteFile(canary, []byte("canary\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(canary, filepath.Join(dir, file)); err != nil {
			t.Fatal(err)
		}
		m := Machines{Driver: "local", Log: io.Discard, Now: func() time.Time { return time.Unix(0, 0) },
			Plan: &cloud.Plan{Driver: "local", Spec: cloud.Spec{Run: cloud.Run{ID: "r1", Dir: dir}}}}
		j, _, err := m.open()
		if j != nil {
			j.Close()
		}
		if file == cloud.JournalFile && (err == nil || !strings.Contains(err.Error(), file+": is a symbolic link")) {
			t.Errorf("%s: %v, want it refused", file, err)
		}
		if file == RunInfoFile {
			if err != nil {
				t.Errorf("%s: %v", file, err)
			}
			if ri, err := ReadRunInfo(dir); err != nil || ri.ID != "r1" {
				t.Errorf("run.json after the stage: %+v, %v", ri, err)
			}
		}
		if b, _ := os.ReadFile(canary); string(b) != "canary\n" {
			t.Errorf("%s: the file the link points at changed: %q", file, b)
		}
	}
	dir := t.TempDir()
	if err := os.Symlink("/dev/zero", filepath.Join(dir, RunInfoFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRunInfo(dir); err == nil || !strings.Contains(err.Error(), RunInfoFile+": is a symbolic link") {
		t.Errorf("ReadRunInfo of a link to /dev/zero: %v", err)
	}
}
