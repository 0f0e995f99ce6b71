package testenv

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"
)

// UserIDs is the uid and login gid of a user of this machine (Need: skips
// without it, fails under CI=true).
func UserIDs(t testing.TB, name string) (uid, gid int) {
	t.Helper()
	u, err := user.Lookup(name)
	Need(t, err == nil, "user "+name)
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid
}

// PassableTempDir is t.TempDir() with it and the directory testing made it
// in opened for other users to pass through (0711, as a home directory is):
// a site user working in it must reach it. It stays root's.
func PassableTempDir(t testing.TB) string {
	t.Helper()
	d := t.TempDir()
	for _, p := range []string{d, filepath.Dir(d)} {
		if err := os.Chmod(p, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	return d
}
