package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

const localServerLock = "/tmp/wptest-local-server.lock"

// exclusive counts this process's tests holding LockLocalServer: a web
// server they start themselves must not wait for the shared lock they
// exclude (flock would deadlock the process with itself).
var exclusive atomic.Int32

// LockLocalServer serialises the tests (of any package: `go test ./...` runs
// packages in parallel processes) that drive this machine's one web server
// profile on 8080/8443 and its host manifest, or that sample its processes
// by name: no other test's web server (ShareLocalServer) runs meanwhile, so
// their CPU cannot land in the sampled groups. Held until the test ends.
func LockLocalServer(t testing.TB) {
	t.Helper()
	Integration(t)
	start := time.Now()
	unlock, err := lockFile(localServerLock, syscall.LOCK_EX)
	if err != nil {
		t.Fatal(err)
	}
	logWait(t, start)
	exclusive.Add(1)
	t.Cleanup(func() { exclusive.Add(-1); unlock() })
}

// ShareLocalServer is held by a test that runs a web server of its own on
// this machine (bench/testsrv): any number at once, but none while a test
// holds LockLocalServer.
func ShareLocalServer(t testing.TB) {
	t.Helper()
	Integration(t)
	if exclusive.Load() > 0 {
		return
	}
	start := time.Now()
	unlock, err := lockFile(localServerLock, syscall.LOCK_SH)
	if err != nil {
		t.Fatal(err)
	}
	logWait(t, start)
	t.Cleanup(unlock)
}

// logWait says how long the test waited for the local server's lock,
// when it waited: time another package's test held it (where the suite's
// time goes: `go test -json` counts it in this test's).
func logWait(t testing.TB, start time.Time) {
	if d := time.Since(start); d >= time.Second {
		t.Logf("waited %s for the local server (%s: another test held it)", d.Round(100*time.Millisecond), localServerLock)
	}
}

// lockFile takes a flock (LOCK_EX or LOCK_SH) on path (created if missing),
// waiting for it: test packages run in parallel processes. The returned
// func frees it.
func lockFile(path string, how int) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, fmt.Errorf("flock %s: %w", path, err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
