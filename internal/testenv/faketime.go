package testenv

import (
	"path/filepath"
	"testing"
)

// LibFaketime is the path of Debian's libfaketime (package faketime):
// LD_PRELOADed with FAKETIME="+3s", every libc clock read of a process
// (date, sshd, a cgo program) is shifted; a pure Go program's is not (it
// reads the clock through the vDSO, not libc). Missing, it skips, or fails
// under CI=true.
func LibFaketime(t testing.TB) string {
	t.Helper()
	Integration(t)
	m, _ := filepath.Glob("/usr/lib/*/faketime/libfaketime.so.1")
	Need(t, len(m) > 0, "libfaketime not installed (Debian: faketime)")
	return m[0]
}
