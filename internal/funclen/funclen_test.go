package funclen

import (
	"os"
	"path/filepath"
	"testing"
)

// limit is one screen. A function over it either gets split into helpers
// that say what each part does or goes in allowlist with a reason.
const limit = 80

// allowlist names the functions allowed over limit and why. Keep it short:
// an entry whose function is gone or back under the limit fails the test,
// so the list only shrinks.
var allowlist = map[string]string{}

func TestFunctionLength(t *testing.T) {
	funcs, err := Scan(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if len(funcs) < 100 {
		t.Fatalf("found %d functions; is the root right?", len(funcs))
	}
	for i, f := range funcs[:10] {
		t.Logf("longest %2d: %s", i+1, f)
	}
	long := map[string]bool{}
	for _, f := range funcs {
		if f.Lines <= limit {
			continue
		}
		long[f.Name] = true
		if _, ok := allowlist[f.Name]; !ok {
			t.Errorf("%s:%d: %s is %d lines, over %d: split it into helpers that say what each part does", f.File, f.Line, f.Name, f.Lines, limit)
		}
	}
	for name := range allowlist {
		if !long[name] {
			t.Errorf("allowlist: %s is gone or within %d lines: remove its entry", name, limit)
		}
	}
}

func TestScan(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, src string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/a.go", `package a

type T[K any] struct{}

// Doc comments do not count.
func (t *T[K]) M() {
	_ = 1
	_ = 2
}

func F() {}

func decl()
`)
	write("a/a_test.go", "package a\n\nfunc TestX() {\n\n\n}\n")
	write("a/testdata/x.go", "package x\n\nfunc Hidden() {\n\n\n\n}\n")
	write("b/c/b.go", "package c\n\ntype U struct{}\n\nfunc (U) N() {\n}\n")
	funcs, err := Scan(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Func{
		{Name: "a.T.M", File: "a/a.go", Line: 6, Lines: 4},
		{Name: "b/c.U.N", File: "b/c/b.go", Line: 5, Lines: 2},
		{Name: "a.F", File: "a/a.go", Line: 11, Lines: 1},
	}
	if len(funcs) != len(want) {
		t.Fatalf("got %v, want %v", funcs, want)
	}
	for i := range want {
		if funcs[i] != want[i] {
			t.Errorf("funcs[%d] = %+v, want %+v", i, funcs[i], want[i])
		}
	}

	write("bad/bad.go", "package bad\nfunc (\n")
	if _, err := Scan(dir); err == nil {
		t.Error("Scan of a file that does not parse: no error")
	}
}
