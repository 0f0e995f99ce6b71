package cloud

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/fuzzcheck"
)

// FuzzLoadMachines: a machines block either loads and validates, or gives
// a config error starting at a file:line:col inside the file; loading
// again gives the same machines or the same error.
func FuzzLoadMachines(f *testing.F) {
	goldens, _ := filepath.Glob("testdata/machines/*.txtar")
	shipped, _ := filepath.Glob("../../experiments/*.hcl")
	for _, g := range goldens {
		ar, err := txtar.ParseFile(g)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range ar.Files {
			if file.Name == "input.hcl" {
				f.Add(file.Data)
			}
		}
	}
	for _, p := range shipped {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("machines \"hetzner\" {\n  ttl = \"\xff\"\n}\n"))
	f.Add([]byte("machines \"static\" {\n  hosts = " + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "\n}\n")) // nested too deep
	f.Fuzz(func(t *testing.T, src []byte) {
		m1, err1 := LoadMachines("m.hcl", src, nil)
		m2, err2 := LoadMachines("m.hcl", src, nil)
		if err1 != nil {
			if exitcode.Of(err1) != exitcode.Config {
				t.Errorf("exit code %d, want %d: %v", exitcode.Of(err1), exitcode.Config, err1)
			}
			fuzzcheck.Error(t, "m.hcl", src, err1)
			if err2 == nil || err2.Error() != err1.Error() {
				t.Fatalf("loaded twice, different answers:\n%v\n---\n%v", err1, err2)
			}
			return
		}
		if err2 != nil || !reflect.DeepEqual(m1, m2) {
			t.Fatalf("loaded twice, different answers: %v", err2)
		}
		if err := m1.Validate(); err != nil {
			t.Fatalf("loaded, yet does not validate: %v", err)
		}
	})
}
