// Package flock takes the file locks (flock(2)) that separate processes
// wait on for each other: test packages that run in parallel processes,
// several wptest processes making machines on one host.
package flock

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Take takes a flock (syscall.LOCK_EX or LOCK_SH) on path, made with its
// directory if missing, waiting for it. The returned func frees it.
func Take(path string, how int) (func(), error) {
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
