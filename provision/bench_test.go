package provision

import (
	"os"
	"testing"
)

// BenchmarkLoadShipped measures loading (parse, variables, render for every
// platform) of each shipped profile: the cost every plan/apply/up pays
// before it touches a host.
func BenchmarkLoadShipped(b *testing.B) {
	fsys := os.DirFS("../profiles")
	entries, err := os.ReadDir("../profiles")
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name()[0] == '_' || e.Name()[0] == '.' {
			continue
		}
		b.Run(e.Name(), func(b *testing.B) {
			for b.Loop() {
				if _, diags := Load(fsys, e.Name(), Vars{}); diags.HasErrors() {
					b.Fatal(diags)
				}
			}
		})
	}
}
