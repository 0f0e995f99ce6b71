package experiment

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/exitcode"
)

const passThrough = `experiment "x" {}
fixture "minimal" { seed = 1 }
variable "src" {
  default = ""
}
variable "workers" {
  default = 150
}
profile "cpanel-apache" {
  vars = { ruid2_source_url = var.src, max_request_workers = var.workers }
}
scenario "p" {
  kind     = "page"
  visitors = [1]
}
`

// The operator's own -var reaches an operator_only variable through the
// file's pass-through (var.NAME unchanged), a local file included; left
// unset, the empty default passes nothing and the profile's pinned default
// applies. The plan says where every value came from.
func TestOperatorVarsPassThrough(t *testing.T) {
	src := filepath.Join(t.TempDir(), "mod_ruid2.c")
	if err := os.WriteFile(src, []byte("/* c */\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		vars        []string
		url, origin string
		uploads     int
	}{
		{nil, "", "", 0},
		{[]string{"src=https://mirror.example/mod_ruid2.c"}, "https://mirror.example/mod_ruid2.c", "command line: -var src", 0},
		{[]string{"src=local+file://" + src}, "file:///var/lib/wptest/uploads/", "command line: -var src", 1},
	} {
		sp, err := Load("exp.hcl", []byte(passThrough), LoadOptions{Vars: tc.vars})
		if err != nil {
			t.Fatalf("%v: %v", tc.vars, err)
		}
		c := sp.Columns[0]
		got, set := c.Vars["ruid2_source_url"]
		if tc.url == "" && set {
			t.Errorf("%v: ruid2_source_url = %q passed, want the profile's default", tc.vars, got)
		}
		if tc.url != "" && !strings.HasPrefix(got, tc.url) {
			t.Errorf("%v: ruid2_source_url = %q, want %q", tc.vars, got, tc.url)
		}
		if o := sp.VarFrom["cpanel-apache"]["ruid2_source_url"]; tc.url != "" && o.String() != tc.origin {
			t.Errorf("%v: origin %q, want %q", tc.vars, o, tc.origin)
		}
		if len(sp.Uploads) != tc.uploads {
			t.Errorf("%v: %d uploads, want %d", tc.vars, len(sp.Uploads), tc.uploads)
		}
		var plan bytes.Buffer
		vars, err := columnVars(c, sp.VarFrom[c.ID])
		if err != nil {
			t.Fatal(err)
		}
		writeVars(&plan, vars)
		wantURL := `var ruid2_source_url +\= "https://raw\.githubusercontent\.com/[^"]+"  \(profile default; operator only\)`
		if tc.url != "" {
			wantURL = `var ruid2_source_url +\= "` + regexp.QuoteMeta(tc.url) + `[^"]*"  \(command line: -var src; operator only\)`
		}
		for _, want := range []string{wantURL,
			`var max_request_workers = 150  \(experiment file: the default of var\.workers\)`,
			`var http_port +\= 80  \(experiment block\)`,
			`var ruid2_source_sha256 = "37f5c38f[0-9a-f]+"  \(profile default; operator only\)`,
			`var site_user +\= "wpsite"  \(profile default\)`,
		} {
			if !regexp.MustCompile(want).MatchString(plan.String()) {
				t.Errorf("%v: plan lacks %s:\n%s", tc.vars, want, plan.String())
			}
		}
	}
	// The same value written as the default is the file's: refused.
	withDefault := strings.Replace(passThrough, `default = ""`, `default = "https://mirror.example/mod_ruid2.c"`, 1)
	if _, err := Load("exp.hcl", []byte(withDefault), LoadOptions{}); err == nil || exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "exp.hcl:10:31") {
		t.Errorf("a source in the file's default: %v (exit %d), want a config error at exp.hcl:10:31", err, exitcode.Of(err))
	}
	// ... and given on the command line, the same value is the operator's.
	if _, err := Load("exp.hcl", []byte(withDefault), LoadOptions{Vars: []string{"src=https://mirror.example/mod_ruid2.c"}}); err != nil {
		t.Errorf("the same source from -var: %v", err)
	}
}
