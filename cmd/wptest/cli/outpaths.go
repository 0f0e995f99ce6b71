package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/wptest/wptest/internal/exitcode"
)

// The rule for every flag naming a place to write (fixture build --out,
// seed --manifest-out, run --runs): bad input loses nothing. A command
// refuses, before it does anything, a path that already holds what it would
// replace, and never removes what it did not make.

// newFileFlag checks that the file flag names does not exist yet.
func newFileFlag(flag, p string) error {
	if _, err := os.Lstat(p); err == nil {
		return exitcode.With(exitcode.Config, fmt.Errorf("%s %s: already exists (wptest never replaces a file it did not make: remove it or name another)", flag, p))
	} else if !errors.Is(err, os.ErrNotExist) {
		return exitcode.With(exitcode.Config, fmt.Errorf("%s: %w", flag, err))
	}
	return nil
}

// writeNewFile writes b to p, which must not exist (O_EXCL: a file that
// appeared since newFileFlag is not replaced either).
func writeNewFile(p string, b []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(p)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(p)
		return err
	}
	return nil
}

// dirFlag checks that the directory flag names is one, or does not exist
// yet (it is made).
func dirFlag(flag, p string) error {
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return exitcode.With(exitcode.Config, fmt.Errorf("%s: %w", flag, err))
	case !fi.IsDir():
		return exitcode.With(exitcode.Config, fmt.Errorf("%s %s: exists and is not a directory", flag, p))
	}
	return nil
}
