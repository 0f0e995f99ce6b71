package cloud

import (
	"fmt"

	"github.com/wptest/wptest/internal/exitcode"
)

// DownCommand is the command that removes what a run left behind.
func DownCommand(run string) string { return "wptest down --run " + run }

// TeardownError says that removing a run's resources did not finish: machines
// may still be billed. Its message ends with the command to finish the job.
type TeardownError struct {
	Run string
	Err error
}

func (e *TeardownError) Error() string {
	return fmt.Sprintf("teardown incomplete, machines may still be billed: %v\n  finish it with: %s", e.Err, DownCommand(e.Run))
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
