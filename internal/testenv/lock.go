package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// LockLocalServer serialises the tests (of any package: `go test ./...` runs
// packages in parallel processes) that drive this machine's one web server
// profile on 8080/8443 and its host manifest, or that sample its processes.
// The lock is held until the test ends.
func LockLocalServer(t testing.TB) {
	t.Helper()
	unlock, err := lockFile("/tmp/wptest-local-server.lock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unlock)
}

// lockFile takes an exclusive flock on path (created if missing), waiting
// for it: test packages run in parallel processes. The returned func frees it.
func lockFile(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("flock %s: %w", path, err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
