package cloud

import (
	"fmt"
	"strings"

	"github.com/wptest/wptest/internal/exitcode"
)

// DownCommand is the command that removes what a run left behind.
func DownCommand(run string) string { return "wptest down --run " + run }

// TeardownError says that removing a run's resources did not finish: machines
// may still be billed. It names what is still there (Left, as the provider
// listed it under the run's label after the last attempt; empty if even
// that list failed) and its message ends with the command to finish the job.
type TeardownError struct {
	Run  string
	Left []Resource
	Err  error
}

func (e *TeardownError) Error() string {
	left := ""
	if len(e.Left) > 0 {
		names := make([]string, len(e.Left))
		for i, r := range e.Left {
			names[i] = r.String()
		}
		left = "still there: " + strings.Join(names, ", ") + "; "
	}
	return fmt.Sprintf("teardown incomplete, machines may still be billed: %s%v\n  finish it with: %s", left, e.Err, DownCommand(e.Run))
}
func (e *TeardownError) Unwrap() error { return e.Err }

// Teardown wraps err (if any) as a TeardownError with exit code 7.
func Teardown(run string, err error) error {
	if err == nil {
		return nil
	}
	return exitcode.With(exitcode.Teardown, &TeardownError{Run: run, Err: err})
}

// Capacity wraps err with exit code 3 (capacity or quota).
func Capacity(err error) error { return exitcode.With(exitcode.Capacity, err) }

// ConfigErr wraps err with exit code 2.
func ConfigErr(err error) error { return exitcode.With(exitcode.Config, err) }

// ProvisionErr wraps err with exit code 4.
func ProvisionErr(err error) error { return exitcode.With(exitcode.Provision, err) }
