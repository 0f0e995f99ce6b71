package flock

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
)

// TestTakeExcludes: an exclusive lock shuts out another (a second open file
// of the same path, as another process's would be) until it is freed; the
// lock's directory is made when missing.
func TestTakeExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.lock")
	unlock, err := Take(path, syscall.LOCK_EX)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Take(path, syscall.LOCK_EX|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Fatalf("second exclusive lock while held: %v, want EWOULDBLOCK", err)
	}
	if _, err := Take(path, syscall.LOCK_SH|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Fatalf("shared lock while an exclusive one is held: %v, want EWOULDBLOCK", err)
	}
	unlock()
	again, err := Take(path, syscall.LOCK_EX|syscall.LOCK_NB)
	if err != nil {
		t.Fatalf("exclusive lock once freed: %v", err)
	}
	again()
}

// TestTakeShared: shared locks stand together, and keep an exclusive one out.
func TestTakeShared(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	a, err := Take(path, syscall.LOCK_SH)
	if err != nil {
		t.Fatal(err)
	}
	defer a()
	b, err := Take(path, syscall.LOCK_SH|syscall.LOCK_NB)
	if err != nil {
		t.Fatalf("second shared lock: %v", err)
	}
	defer b()
	if _, err := Take(path, syscall.LOCK_EX|syscall.LOCK_NB); !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Fatalf("exclusive lock under shared ones: %v, want EWOULDBLOCK", err)
	}
}
