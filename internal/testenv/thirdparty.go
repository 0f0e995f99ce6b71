package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// Ruid2Source is the path of mod_ruid2 0.9.8's mod_ruid2.c kept beside the
// checkout (../shared/third_party/mod_ruid2-0.9.8/, with where it comes
// from and its SHA-256; or in a shared/ beside a directory further up): the cpanel-apache profile downloads it on users'
// hosts; tests, which have no internet, hand it the copy instead
// (-var ruid2_source_url=file://PATH, after putting it on a remote host).
func Ruid2Source(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
	// Beside the checkout, or beside a directory above it (a git worktree
	// kept in a subdirectory of the checkout's parent).
	first := ""
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", "third_party", "mod_ruid2-0.9.8", "mod_ruid2.c")
		if first == "" {
			first = p
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	Need(t, false, "mod_ruid2 0.9.8 source at "+first)
	return first
}
