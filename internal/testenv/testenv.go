// Package testenv holds what integration tests share: the rule that a missing
// real dependency skips locally but fails under CI=true, and starters for the
// real services the tests talk to (sshd on loopback, MariaDB), up to whole
// fresh Debian 12 or 13 machines (BareHosts).
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// Integration marks t as an integration test (it needs root, namespaces,
// a service or a bare host): under -short (make test-short) it skips, even
// with CI=true, since -short asks for the fast tests alone; without -short
// it does nothing and the test goes on to Need, which fails under CI=true
// what it cannot get. The starters below call it first.
func Integration(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: skipped under -short (make test-short); make test runs it")
	}
}

// InCI reports whether we run under CI (CI=true), where skipping is failing.
func InCI() bool { return os.Getenv("CI") == "true" }

// Need skips the test when a real dependency is missing, or fails it under
// CI, where a skip would hide it; not under -short, which asks for less.
func Need(t testing.TB, ok bool, why string) {
	t.Helper()
	if ok {
		return
	}
	if InCI() && !testing.Short() {
		t.Fatalf("CI=true and a test dependency is missing: %s (run `make deps`)", why)
	}
	t.Skipf("skipping: %s (run `make deps`; under CI=true this fails)", why)
}

// NeedBinary calls Need for an executable that must be on PATH or at an absolute path.
func NeedBinary(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	Need(t, err == nil, name+" not found")
	return p
}

// NeedRoot calls Need for tests that must run as root (start services, chown).
func NeedRoot(t testing.TB) {
	t.Helper()
	Integration(t)
	Need(t, os.Geteuid() == 0, "needs root")
}
