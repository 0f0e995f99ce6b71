// Package profiles embeds the shipped server profiles: every directory here
// is one profile (*.hcl files + templates/), loaded with provision.Load(FS,
// name, vars). The profile language is documented in package provision.
package profiles

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/wptest/wptest/internal/suggest"
)

// Only what the binary uses: each profile's and part's *.hcl files and
// templates (not the goldens, tests or README). "all:" keeps template
// files whose names start with "." or "_".
//
//go:embed */*.hcl all:*/templates _parts/*/*.hcl all:_parts/*/templates
var embedded embed.FS

// FS holds one directory per profile.
var FS fs.FS = embedded

// Names lists the profile directories, sorted.
func Names() []string {
	entries, _ := fs.ReadDir(embedded, ".")
	var names []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(e.Name(), "_") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// Lookup returns the directory of the profile called name, where name is a
// directory name or one of the aliases aliasesOf reports for a directory
// (the loader knows the aliases: they are declared in the profile block).
func Lookup(name string, aliasesOf func(dir string) []string) (string, error) {
	names := Names()
	for _, n := range names {
		if n == name {
			return n, nil
		}
	}
	if aliasesOf != nil {
		for _, n := range names {
			for _, a := range aliasesOf(n) {
				if a == name {
					return n, nil
				}
			}
		}
	}
	known := slices.Clone(names)
	if aliasesOf != nil {
		for _, n := range names {
			known = append(known, aliasesOf(n)...)
		}
	}
	return "", fmt.Errorf("no profile %q (shipped: %s)%s", name, strings.Join(names, ", "), suggest.Hint(name, known))
}
