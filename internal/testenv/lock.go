package testenv

import (
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/flock"
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
	unlock, err := flock.Take(localServerLock, syscall.LOCK_EX)
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
	unlock, err := flock.Take(localServerLock, syscall.LOCK_SH)
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
