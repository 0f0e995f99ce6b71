package provision

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/wptest/wptest/internal/fuzzcheck"
)

// fuzzFS is the shipped parts and every shipped profile's templates (under
// bad/templates), so a fuzzed bad/main.hcl can use them; and the seeds:
// each shipped profile's and each error golden's *.hcl as one file.
func fuzzFS(f *testing.F) (fstest.MapFS, [][]byte) {
	f.Helper()
	fsys := fstest.MapFS{}
	shipped := os.DirFS("../profiles")
	seeds := map[string][]byte{}
	err := fs.WalkDir(shipped, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(shipped, p)
		if err != nil {
			return err
		}
		dir, rest, _ := strings.Cut(p, "/")
		switch {
		case dir == "_parts":
			fsys[p] = &fstest.MapFile{Data: b}
		case strings.HasPrefix(rest, "templates/"):
			fsys[path.Join("bad", rest)] = &fstest.MapFile{Data: b}
		case !strings.Contains(rest, "/") && strings.HasSuffix(rest, ".hcl"):
			seeds[dir] = append(append(seeds[dir], b...), '\n')
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	goldens, _ := filepath.Glob("testdata/errors/*.txtar")
	for _, g := range goldens {
		ar, err := txtar.ParseFile(g)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			if strings.HasPrefix(file.Name, "bad/") && strings.HasSuffix(file.Name, ".hcl") {
				seeds[g] = append(append(seeds[g], file.Data...), '\n')
			}
		}
	}
	names := make([]string, 0, len(seeds))
	for n := range seeds {
		names = append(names, n)
	}
	sort.Strings(names)
	var out [][]byte
	for _, n := range names {
		out = append(out, seeds[n])
	}
	return fsys, out
}

// FuzzLoad: a profile either loads and renders, or every error names a
// place inside the file it names; loading it again gives the same
// diagnostics in the same order, or the same hash and scripts.
func FuzzLoad(f *testing.F) {
	base, seeds := fuzzFS(f)
	for _, s := range seeds {
		f.Add(s)
	}
	f.Add([]byte("profile {\n  description = \"x\"\n  platforms = [\"debian-12\"]\n}\n# \xff\nplatform \"debian-12\" {\n  package_manager = \"apt\"\n}\n"))
	f.Add([]byte("x = " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300) + "\n")) // nested too deep
	f.Fuzz(func(t *testing.T, src []byte) {
		fsys := fstest.MapFS{"bad/main.hcl": &fstest.MapFile{Data: src}}
		files := map[string][]byte{}
		for n, mf := range base {
			fsys[n] = mf
			files[n] = mf.Data
		}
		files["bad/main.hcl"] = src
		p1, d1 := Load(fsys, "bad", Vars{})
		p2, d2 := Load(fsys, "bad", Vars{})
		var c1, c2 bytes.Buffer
		WriteDiagnostics(&c1, nil, d1, true)
		WriteDiagnostics(&c2, nil, d2, true)
		if c1.String() != c2.String() {
			t.Fatalf("loaded twice, different diagnostics:\n%s---\n%s", &c1, &c2)
		}
		if d1.HasErrors() {
			fuzzcheck.Diags(t, files, d1)
			return
		}
		if p1.Hash != p2.Hash {
			t.Fatalf("loaded twice, hashes %s and %s", p1.Hash, p2.Hash)
		}
		for _, plat := range p1.Platforms {
			r1, _ := p1.Render(plat)
			r2, _ := p2.Render(plat)
			if r1 == nil || r2 == nil {
				t.Fatalf("%s: loaded without errors, yet does not render", plat)
			}
			j1, _ := json.Marshal(r1.Offline())
			j2, _ := json.Marshal(r2.Offline())
			if !bytes.Equal(j1, j2) {
				t.Fatalf("%s: rendered twice, different plans", plat)
			}
		}
	})
}
