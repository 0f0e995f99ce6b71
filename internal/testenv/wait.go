package testenv

import (
	"strings"
	"testing"
	"time"
)

// WaitFor polls cond until it holds: how the suite waits for something to
// happen (a port listening, a process exiting, CPU burnt, a line printed)
// instead of sleeping for a guess of how long it takes. limit only bounds a
// hang: on a loaded 2-core machine things take long, so make it generous.
// Call it from the test's goroutine (it may call t.Fatalf).
func WaitFor(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	if err := Poll(limit, cond); err != nil {
		t.Fatalf("waited %s for %s", limit, what)
	}
}

// Poll is WaitFor for goroutines that are not the test's: it returns
// ErrTimeout instead of failing the test.
func Poll(limit time.Duration, cond func() bool) error {
	deadline := time.Now().Add(limit)
	for d := time.Millisecond; !cond(); d = min(2*d, 50*time.Millisecond) {
		if time.Now().After(deadline) {
			return ErrTimeout
		}
		time.Sleep(d)
	}
	return nil
}

// ErrTimeout is Poll's error when the condition never held.
var ErrTimeout = timeoutError{}

type timeoutError struct{}

func (timeoutError) Error() string { return "condition not met in time" }

// Contains reports whether s appears in what was written so far (a command's
// "started" line, for WaitFor).
func (s *SyncBuffer) Contains(sub string) bool { return strings.Contains(s.String(), sub) }
