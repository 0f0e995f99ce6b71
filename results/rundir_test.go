package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A resumed run appends to results.jsonl and rewrites manifest.json in a
// directory that may have been sent by someone else: a link planted at
// either (or at manifest.json.tmp, where the manifest was written before)
// is never written through; the file it points at keeps its bytes.
func TestRunDirWritesNeverFollowLinks(t *testing.T) {
	rec := Record{Point: Point{Key: "r1/a/page/c=1", Rep: 1, Column: "a", Scenario: "page", Kind: "page", Step: "c=1"}}
	line, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	// Records and a torn last line: what OpenStore would cut off and
	// append after, were it to open the file.
	body := string(line) + "\n" + string(line[:10])
	for _, tc := range []struct {
		name, link string
		write      func(dir string) error
		want       string // in the error; "" = succeeds
	}{
		{"results.jsonl", ResultsFile, func(dir string) error {
			s, _, err := OpenStore(dir)
			if err != nil {
				return err
			}
			defer s.Close()
			return s.Append(rec)
		}, ResultsFile + ": is a symbolic link"},
		{"manifest.json", ManifestFile, func(dir string) error { return (&Manifest{Format: ManifestFormat}).Write(dir) }, ""},
		{"manifest.json.tmp", ManifestFile + ".tmp", func(dir string) error { return (&Manifest{Format: ManifestFormat}).Write(dir) }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			canary := filepath.Join(t.TempDir(), "canary")
			if err := os.WriteFile(canary, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(canary, filepath.Join(dir, tc.link)); err != nil {
				t.Fatal(err)
			}
			err := tc.write(dir)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("write: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("write: %v, want an error saying %q", err, tc.want)
			}
			if b, _ := os.ReadFile(canary); string(b) != body {
				t.Errorf("the file the link points at changed: %q", b)
			}
		})
	}
}

// ReadResults and ReadManifest read only a regular file of at most their
// bound: over it, the error names the file and the bound.
func TestRunDirReadsBounded(t *testing.T) {
	dir := t.TempDir()
	for name, max := range map[string]int64{ResultsFile: MaxResultsBytes, ManifestFile: MaxManifestBytes} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, max+1); err != nil { // sparse: nothing on disk
			t.Fatal(err)
		}
	}
	if _, err := ReadResults(dir); err == nil || !strings.Contains(err.Error(), ResultsFile+": larger than 64 MiB") {
		t.Errorf("ReadResults: %v", err)
	}
	if _, _, err := OpenStore(dir); err == nil || !strings.Contains(err.Error(), ResultsFile+": larger than 64 MiB") {
		t.Errorf("OpenStore: %v", err)
	}
	if _, err := ReadManifest(dir); err == nil || !strings.Contains(err.Error(), ManifestFile+": larger than 16 MiB") {
		t.Errorf("ReadManifest: %v", err)
	}
}
