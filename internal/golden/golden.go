// Package golden is wptest's one golden-file harness, for tests only: txtar
// archives (github.com/rogpeppe/go-internal/txtar) hold a case's input and
// the output it must give, or a whole generated archive; `go test -update`
// rewrites the outputs with what the code gives now, for review in the diff.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden files with what the code gives now")

// Updating says whether this run rewrites golden files (go test -update).
func Updating() bool { return *update }

// Archives runs f once per archive matching glob, each as a subtest named
// after the file (without .txtar), and compares every output f returns (a
// file name in the archive -> its content) with that file of the archive.
// With -update the outputs are written into the archive instead (added at
// its end, by name, if missing); the input files stay as they are.
func Archives(t *testing.T, glob string, f func(t *testing.T, a *txtar.Archive) map[string]string) {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files match %s (%v)", glob, err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got := f(t, a)
			if *update {
				write(t, file, txtar.Format(withOutputs(a, got)))
				return
			}
			for _, name := range slices.Sorted(maps.Keys(got)) {
				want, ok := Section(a, name)
				if !ok {
					t.Errorf("%s: no %q section (go test -update adds it)", file, name)
					continue
				}
				if string(want) != got[name] {
					t.Errorf("%s: %q differs (go test -update rewrites it; review the diff):\n%s\n--- got ---\n%s", file, name, firstDiff(string(want), got[name]), got[name])
				}
			}
		})
	}
}

// Archive compares a generated archive with the file at path (or writes it
// there with -update).
func Archive(t *testing.T, path string, a *txtar.Archive) {
	t.Helper()
	File(t, path, txtar.Format(a))
}

// File compares got with the file at path (or writes it there with -update).
func File(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it; review the diff):\n%s", path, firstDiff(string(want), string(got)))
	}
}

// Section is the content of the archive's file called name.
func Section(a *txtar.Archive, name string) ([]byte, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

// withOutputs is a with each output's section replaced, or added at the end.
func withOutputs(a *txtar.Archive, out map[string]string) *txtar.Archive {
	n := &txtar.Archive{Comment: a.Comment, Files: append([]txtar.File(nil), a.Files...)}
	for _, name := range slices.Sorted(maps.Keys(out)) {
		i := 0
		for i < len(n.Files) && n.Files[i].Name != name {
			i++
		}
		if i == len(n.Files) {
			n.Files = append(n.Files, txtar.File{Name: name})
		}
		n.Files[i].Data = []byte(out[name])
	}
	return n
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// firstDiff names the first line where want and got differ.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  want: %s\n  got:  %s", i+1, wl, gl)
		}
	}
	return "(no line differs)"
}
