package provision

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wptest/wptest/internal/hcldiag"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestErrorGolden loads each testdata/errors/*.txtar profile (files under
// "bad/", optional "vars" section with one -var per line and "bad.vars.hcl"
// as a var file) and compares every diagnostic, in both the compact
// file:line:col form and HCL's snippet form, with the "want" section.
func TestErrorGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/errors/*.txtar")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			fsys := fstest.MapFS{}
			var vars Vars
			wantIdx := -1
			for i, f := range ar.Files {
				switch {
				case f.Name == "want":
					wantIdx = i
				case f.Name == "vars":
					for _, l := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
						if l != "" {
							vars.Args = append(vars.Args, l)
						}
					}
				case f.Name == "bad.vars.hcl":
					vars.Files = append(vars.Files, VarFile{Name: f.Name, Src: f.Data})
				default:
					fsys[f.Name] = &fstest.MapFile{Data: f.Data}
				}
			}
			p, diags := Load(fsys, "bad", vars)
			if !diags.HasErrors() {
				t.Fatalf("Load succeeded; want errors")
			}
			var got bytes.Buffer
			WriteDiagnostics(&got, nil, diags, true)
			got.WriteString("\n")
			WriteDiagnostics(&got, p.Files(), diags, false)
			if _, d := p.Render("debian-12"); !d.HasErrors() {
				t.Errorf("a profile with errors rendered")
			}
			if *update {
				if wantIdx < 0 {
					ar.Files = append(ar.Files, txtar.File{Name: "want"})
					wantIdx = len(ar.Files) - 1
				}
				ar.Files[wantIdx].Data = got.Bytes()
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if wantIdx < 0 {
				t.Fatal("no want section (run with -update)")
			}
			if want := string(ar.Files[wantIdx].Data); got.String() != want {
				t.Errorf("diagnostics differ.\n--- got ---\n%s\n--- want ---\n%s", got.String(), want)
			}
			for _, d := range diags {
				if d.Subject == nil && !strings.Contains(d.Detail, "-var") {
					t.Errorf("diagnostic without a source range: %s", hcldiag.Compact(d))
				}
			}
		})
	}
}
