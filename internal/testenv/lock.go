package testenv

import (
	"os"
	"syscall"
	"testing"
)

// LockLocalServer serialises the tests (of any package: `go test ./...` runs
// packages in parallel processes) that drive this machine's one web server
// profile on 8080/8443 and its host manifest, or that sample its processes.
// The lock is held until the test ends.
func LockLocalServer(t testing.TB) {
	t.Helper()
	f, err := os.OpenFile("/tmp/wptest-local-server.lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() })
}
