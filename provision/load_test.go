package provision

import (
	"os"
	"testing"
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

func TestLoadDemoOffline(t *testing.T) {
	p := loadDemo(t, Vars{})
	r, diags := p.Render("debian-12")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	r.Offline().WriteText(os.Stdout)
}
