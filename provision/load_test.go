package provision

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wptest/wptest/internal/golden"
)

func loadDemo(t *testing.T, vars Vars) *Profile {
	t.Helper()
	p, diags := Load(os.DirFS("testdata/profiles"), "demo", vars)
	if diags.HasErrors() {
		var b stringsBuilder
		WriteDiagnostics(&b, nil, diags, true)
		t.Fatalf("load demo: %s", b.String())
	}
	return p
}

type stringsBuilder struct{ s []byte }

func (b *stringsBuilder) Write(p []byte) (int, error) { b.s = append(b.s, p...); return len(p), nil }
func (b *stringsBuilder) String() string              { return string(b.s) }

// TestPlanGolden renders the demo profile offline for each platform and
// compares the text and JSON plans (every op in order, file bodies in full,
// the sensitive token hidden) with testdata/plans.
func TestPlanGolden(t *testing.T) {
	p := loadDemo(t, Vars{})
	for _, plat := range []string{"debian-12", "almalinux-9"} {
		r, diags := p.Render(plat)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		var txt bytes.Buffer
		if err := r.Offline().WriteText(&txt); err != nil {
			t.Fatal(err)
		}
		js, err := json.MarshalIndent(r.Offline(), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		for name, got := range map[string][]byte{"demo-" + plat + ".txt": txt.Bytes(), "demo-" + plat + ".json": append(js, '\n')} {
			golden.File(t, filepath.Join("testdata", "plans", name), got)
			if bytes.Contains(got, []byte("s3cret-demo-token")) {
				t.Errorf("%s shows the sensitive token", name)
			}
		}
	}
}

// TestRenderDeterministic: the same inputs render the same bytes, and a
// changed variable changes only the ops that use it.
func TestRenderDeterministic(t *testing.T) {
	specs := func(vars Vars) map[string]string {
		r, diags := loadDemo(t, vars).Render("debian-12")
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		m := map[string]string{}
		for _, o := range r.Offline().Ops {
			b, _ := json.Marshal(o)
			m[o.ID] = string(b)
		}
		return m
	}
	a, b := specs(Vars{}), specs(Vars{})
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two renders of the same profile differ")
	}
	c := specs(Vars{Args: []string{"title=other"}})
	var diff []string
	for id := range a {
		if a[id] != c[id] {
			diff = append(diff, id)
		}
	}
	if len(diff) != 1 || diff[0] != "file.index" {
		t.Fatalf("title change changed %v, want [file.index]", diff)
	}
}

func TestVarPrecedence(t *testing.T) {
	vf := VarFile{Name: "a.hcl", Src: []byte("greeting = \"from-file\"\nport = 20000\n")}
	p := loadDemo(t, Vars{Files: []VarFile{vf}, Args: []string{"greeting=from-flag"}})
	got := map[string]string{}
	for _, v := range p.Variables {
		got[v.Name] = v.Value.GoString()
	}
	if got["greeting"] != `cty.StringVal("from-flag")` || got["port"] != "cty.NumberIntVal(20000)" || got["title"] != `cty.StringVal("wptest demo")` {
		t.Fatalf("values: %v", got)
	}
}
