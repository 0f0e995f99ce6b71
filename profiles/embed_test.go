package profiles_test

import (
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"testing"

	"github.com/wptest/wptest/profiles"
)

// The binary ships only what loading a profile reads: each profile's and
// part's *.hcl files and its templates/, all of them, and never the golden
// plans, tests or README of this directory.
func TestEmbedShipsOnlyWhatIsUsed(t *testing.T) {
	files := func(fsys fs.FS) []string {
		var out []string
		err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			out = append(out, p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(out)
		return out
	}
	// used: a profile's or part's own *.hcl, or anything under its templates/.
	used := func(p string) bool {
		parts := strings.Split(p, "/")
		if parts[0] == "_parts" {
			parts = parts[1:]
		}
		switch {
		case len(parts) < 2 || strings.HasPrefix(parts[0], "_") || strings.HasPrefix(parts[0], "."):
			return false
		case len(parts) == 2:
			return path.Ext(parts[1]) == ".hcl"
		}
		return parts[1] == "templates"
	}
	var want []string
	for _, p := range files(os.DirFS(".")) {
		if used(p) {
			want = append(want, p)
		}
	}
	got := files(profiles.FS)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("embedded files differ from the profiles' *.hcl and templates/ on disk:\n got: %v\nwant: %v", got, want)
	}
	for _, p := range got {
		if strings.HasPrefix(p, "_golden/") || strings.HasSuffix(p, "_test.go") || strings.HasPrefix(path.Base(p), "README") {
			t.Errorf("the binary ships %s", p)
		}
	}
	if len(got) < 10 {
		t.Errorf("only %d files embedded", len(got))
	}
}
