// Package exitcode holds the one table of exit codes every command uses
// (k6's model: typed codes a script can act on). Packages below the CLI may
// wrap an error with a code; the CLI maps any error to its code.
package exitcode

import "errors"

const (
	OK        = 0
	Unknown   = 1 // unexpected error
	Config    = 2 // usage or config error: bad flag, bad HCL
	Capacity  = 3 // cloud capacity or quota
	Provision = 4 // an op or a check failed
	Mismatch  = 5 // fixture hash mismatch
	Load      = 6 // load run failed its thresholds or could not run
	Teardown  = 7 // teardown incomplete: machines may still be billed
	// Interrupted: SIGINT or SIGTERM stopped a command that makes machines,
	// and everything it made was removed and confirmed gone by label. (If
	// something is left, the code is Teardown.)
	Interrupted = 8
)

// Error carries an exit code with an error.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// With wraps err with code. With(code, nil) is nil.
func With(code int, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err}
}

// Of returns the code of err: 0 for nil, the outermost coded wrapper's code,
// or Unknown.
func Of(err error) int {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Unknown
}
