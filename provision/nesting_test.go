package provision

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"
)

// TestLoadDeepNesting: every way a profile reads HCL (its files, a
// -var-file, a -var value, a template, templatefile()) refuses 200 KB of
// nested parentheses (which crashed HCL's parser with a stack dump) with
// an error at file:line:col.
func TestLoadDeepNesting(t *testing.T) {
	deep := strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000)
	for _, tc := range []struct {
		name, body, tmpl string
		vars             Vars
		want             string
	}{
		{name: "profile file", body: "locals {\n  x = " + deep + "\n}\n", want: "p/main.hcl:18:262: error: Nested too deep"},
		{name: "var file", vars: Vars{Files: []VarFile{{Name: "deep.hcl", Src: []byte("n = " + deep + "\n")}}}, want: "deep.hcl:1:261: error: Nested too deep"},
		{name: "var value", body: "variable \"l\" {\n  type    = list(string)\n  default = []\n}\n", vars: Vars{Args: []string{"l=" + strings.Repeat("[", 100000)}}, want: "-var l: Nested too deep"},
		{name: "template", body: "file \"f\" {\n  path     = \"/x\"\n  template = \"templates/deep.tmpl\"\n}\n", tmpl: "${" + deep + "}", want: "p/templates/deep.tmpl:1:"},
		{name: "templatefile", body: "command \"c\" {\n  run = templatefile(\"templates/deep.tmpl\", {})\n}\n", tmpl: "${" + deep + "}", want: "p/templates/deep.tmpl:1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := secretProfile(tc.body)
			if tc.tmpl != "" {
				fsys["p/templates/deep.tmpl"] = &fstest.MapFile{Data: []byte(tc.tmpl)}
			}
			vars := tc.vars
			vars.Args = append(vars.Args, "pw=x")
			p, diags := Load(fsys, "p", vars)
			var b bytes.Buffer
			_ = WriteDiagnostics(&b, p.Files(), diags, true)
			if !diags.HasErrors() || !strings.Contains(b.String(), tc.want) || !strings.Contains(b.String(), "deep") && tc.name != "var value" {
				t.Errorf("want an error at %s:\n%.600s", tc.want, b.String())
			}
		})
	}
}
