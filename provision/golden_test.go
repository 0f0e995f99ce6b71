package provision

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/wptest/wptest/internal/golden"
	"github.com/wptest/wptest/internal/hcldiag"
)

// TestErrorGolden loads each testdata/errors/*.txtar profile (files under
// "bad/", optional "vars" section with one -var per line and "bad.vars.hcl"
// as a var file) and compares every diagnostic, in both the compact
// file:line:col form and HCL's snippet form, with the "want" section.
func TestErrorGolden(t *testing.T) {
	golden.Archives(t, "testdata/errors/*.txtar", func(t *testing.T, ar *txtar.Archive) map[string]string {
		fsys := fstest.MapFS{}
		var vars Vars
		for _, f := range ar.Files {
			switch {
			case f.Name == "want":
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
		for _, d := range diags {
			if d.Subject == nil && !strings.Contains(d.Detail, "-var") {
				t.Errorf("diagnostic without a source range: %s", hcldiag.Compact(d))
			}
		}
		return map[string]string{"want": got.String()}
	})
}
