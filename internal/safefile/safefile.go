// Package safefile reads and writes the files of a directory someone else
// may have filled: a run directory (runs/<id>) is a file anyone can send.
// Nothing here follows a link at a file's name, blocks on a FIFO or a
// device, reads more than its caller's bound, or writes into a file that
// was there before unless it is a regular file with one name: a write
// makes a new file (os.CreateTemp: O_EXCL, a name nobody could plant) and
// renames it into place, so a link at the final name is replaced, never
// written through.
//
// Only a path's last element is checked: the directory is the one the
// person running wptest named (runs/, a run directory they pass).
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Write replaces path with b, durably: a new file in path's directory,
// written, made mode, fsynced, then renamed over path.
func Write(path string, b []byte, mode os.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := f.Chmod(mode); err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// Open opens path as os.OpenFile does (flag: O_RDONLY, O_WRONLY|O_APPEND|
// O_CREATE, O_RDWR|O_CREATE, ...), but only a regular file: never through
// a link at its name (O_NOFOLLOW), never waiting for a FIFO's other end
// (O_NONBLOCK, then the file's type is checked on what was opened), and,
// when it may write, only a file with no other name (a hard link would
// let the write land in a file elsewhere).
func Open(path string, flag int, mode os.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi.Mode())
	}
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, mode)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) { // a link planted since the Lstat
			return nil, notRegular(path, fs.ModeSymlink)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path, fi.Mode())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && flag&(os.O_WRONLY|os.O_RDWR) != 0 && st.Nlink > 1 {
		f.Close()
		return nil, fmt.Errorf("%s: has %d names (hard links): wptest writes only a file of its own here", path, st.Nlink)
	}
	return f, nil
}

// Append opens path for appending (made, mode, if it is not there), as
// Open does.
func Append(path string, mode os.FileMode) (*os.File, error) {
	return Open(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, mode)
}

// ReadFile reads path, a regular file (Open), of at most max bytes.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, max)
}

// ReadAll reads what is left of f, refusing more than max bytes: its size
// says so before anything is read, and a file that grows while it is read
// is cut at max+1 and refused.
func ReadAll(f *os.File, max int64) ([]byte, error) {
	if fi, err := f.Stat(); err == nil && fi.Size() > max {
		return nil, TooLarge(f.Name(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, TooLarge(f.Name(), max)
	}
	return b, nil
}

// TooLarge is the error for a file over its bound.
func TooLarge(path string, max int64) error {
	return fmt.Errorf("%s: larger than %s, more than wptest ever writes there: refusing to read it", path, size(max))
}

func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func notRegular(path string, m fs.FileMode) error {
	what := "a special file"
	switch {
	case m&fs.ModeSymlink != 0:
		what = "a symbolic link"
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	}
	return fmt.Errorf("%s: is %s, not a regular file: wptest reads and writes only regular files here, never through a link", path, what)
}
