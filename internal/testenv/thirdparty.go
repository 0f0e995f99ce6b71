package testenv

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Ruid2Source is the path of mod_ruid2 0.9.8's mod_ruid2.c kept beside the
// checkout (../shared/third_party/mod_ruid2-0.9.8/, with where it comes
// from and its SHA-256): the cpanel-apache profile downloads it on users'
// hosts; tests, which have no internet, hand it the copy instead
// (-var ruid2_source_url=file://PATH, after putting it on a remote host).
func Ruid2Source(t testing.TB) string {
	t.Helper()
	p, err := FindRuid2Source()
	if err != nil && p == "" {
		t.Fatal(err)
	}
	Need(t, err == nil, "mod_ruid2 0.9.8 source at "+p)
	return p
}

// FindRuid2Source is Ruid2Source without a test: the path, or an error
// with the first place it looked.
func FindRuid2Source() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test's directory")
		}
		dir = parent
	}
	// Beside the checkout, or beside a directory above it (a git worktree
	// kept in a subdirectory of where the checkout lives).
	rel := filepath.Join("shared", "third_party", "mod_ruid2-0.9.8", "mod_ruid2.c")
	first := filepath.Join(filepath.Dir(dir), rel)
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		p := filepath.Join(d, rel)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return first, os.ErrNotExist
}
