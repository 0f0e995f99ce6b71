package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/cloud"
)

// runsDir is where runs are made and found (run --runs names another).
const runsDir = "runs"

// findRun is the directory of the run name names, found the same way by
// every command that names a run (report, compare, --baseline, down --run,
// run --resume, --target run:ID): a run id is its directory under runs
// (the one place a run is made); where a directory is taken (pathOK:
// report, compare) a path to it is too. It is returned as the user would
// write it (runs/ID, or name), for absPath. A run that is not there is
// "no such run", a config error (exit 2), said before the command does
// anything else.
func findRun(a *App, runs, name string, pathOK bool) (string, error) {
	if cloud.ValidRunID(name) == nil {
		if p := filepath.Join(runs, name); isDir(absPath(a, p)) {
			return p, nil
		}
	}
	if pathOK && name != "" && isDir(absPath(a, name)) {
		return name, nil
	}
	where, err := filepath.Abs(absPath(a, runs))
	if err != nil {
		where = runs
	}
	return "", exitcode.With(exitcode.Config, fmt.Errorf("no such run: %s (runs are in %s)", name, where))
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// runTargetSpec is the run a --target names, "ID" or "ID/MACHINE": run:SPEC,
// or a bare id of the shape wptest gives runs (20261205-101500-a1b2c3).
func runTargetSpec(target string) (string, bool) {
	if spec, ok := strings.CutPrefix(target, "run:"); ok {
		return spec, true
	}
	id, _, _ := strings.Cut(target, "/")
	return target, isNewRunID(id)
}

// isNewRunID says whether id has the shape newRunID gives: a UTC time
// and six hex digits.
func isNewRunID(id string) bool {
	const shape = "00000000-000000-xxxxxx"
	if len(id) != len(shape) {
		return false
	}
	for i, c := range []byte(id) {
		switch shape[i] {
		case '0':
			if c < '0' || c > '9' {
				return false
			}
		case 'x':
			if !strings.ContainsRune("0123456789abcdef", rune(c)) {
				return false
			}
		default:
			if c != shape[i] {
				return false
			}
		}
	}
	return true
}
