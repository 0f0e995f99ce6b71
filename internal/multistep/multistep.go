// Package multistep runs steps in order and undoes them in reverse
// (Packer's multistep, typed): every stage of a wptest command is a step
// with its own cleanup, and this is the one runner they all go through.
package multistep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// Step is one stage of a command. S is the state the steps of one command
// share (a pointer: steps record what they made in it).
type Step[S any] interface {
	Run(ctx context.Context, s S) error
	// Cleanup undoes what Run made, or does nothing. It runs for every
	// step whose Run was called (failed or not), in reverse order, with a
	// context that Ctrl-C does not cancel.
	Cleanup(ctx context.Context, s S) error
}

// A step may have a Name method: the log calls it so ("==> NAME"), and its
// errors and its cleanup's are named after it ("NAME: ...", "cleanup NAME:
// ..."). A step without one is neither logged nor named in its error.

// NoCleanup, embedded in a step type, says it has nothing to undo: its
// cleanup is neither run nor logged.
type NoCleanup[S any] struct{}

func (NoCleanup[S]) Cleanup(context.Context, S) error { return nil }
func (NoCleanup[S]) undoes() bool                     { return false }

// Func is a step made of functions; Name is what the log and the errors
// call it ("" = unnamed: neither logged nor named in its error).
type Func[S any] struct {
	Name    string
	Do      func(ctx context.Context, s S) error
	Cleanup func(ctx context.Context, s S) error // nil: nothing to undo
}

// Do is a step that only runs fn: nothing to undo.
func Do[S any](fn func(ctx context.Context, s S) error) Step[S] {
	return funcStep[S]{Func[S]{Do: fn}}
}

// Step makes f a Step.
func (f Func[S]) Step() Step[S] { return funcStep[S]{f} }

type funcStep[S any] struct{ f Func[S] }

func (s funcStep[S]) Name() string { return s.f.Name }

func (s funcStep[S]) Run(ctx context.Context, st S) error { return s.f.Do(ctx, st) }

func (s funcStep[S]) Cleanup(ctx context.Context, st S) error {
	if s.f.Cleanup == nil {
		return nil
	}
	return s.f.Cleanup(ctx, st)
}

func (s funcStep[S]) undoes() bool { return s.f.Cleanup != nil }

// Options tune Run. The zero value is fine.
type Options struct {
	CleanupTimeout time.Duration // default 10 minutes
	Log            io.Writer     // "==> NAME" before each named step and its cleanup; nil: none
}

// Run runs steps in order until one fails or ctx ends, then the Cleanup
// of every step that was started, in reverse order, on success, error and
// cancellation alike. Cleanups get a context that is not cancelled
// (context.WithoutCancel) with its own timeout: Ctrl-C stops the work, not
// the teardown. A failed cleanup outranks the run's own error (it may
// leave machines billed): both are returned, joined.
func Run[S any](ctx context.Context, st S, steps []Step[S], opt Options) error {
	if opt.CleanupTimeout == 0 {
		opt.CleanupTimeout = 10 * time.Minute
	}
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	var ran []Step[S]
	var runErr error
	for _, s := range steps {
		if err := ctx.Err(); err != nil {
			runErr = err
			if n := name(s); n != "" {
				runErr = fmt.Errorf("before %s: %w", n, err)
			}
			break
		}
		ran = append(ran, s)
		if n := name(s); n != "" {
			fmt.Fprintf(log, "==> %s\n", n)
		}
		if err := s.Run(ctx, st); err != nil {
			runErr = named("", s, err)
			break
		}
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), opt.CleanupTimeout)
	defer cancel()
	var cleanErrs []error
	for i := len(ran) - 1; i >= 0; i-- {
		if u, ok := ran[i].(interface{ undoes() bool }); ok && !u.undoes() {
			continue
		}
		if n := name(ran[i]); n != "" {
			fmt.Fprintf(log, "==> cleanup: %s\n", n)
		}
		if err := ran[i].Cleanup(cctx, st); err != nil {
			cleanErrs = append(cleanErrs, named("cleanup ", ran[i], err))
		}
	}
	if len(cleanErrs) == 0 {
		return runErr
	}
	return errors.Join(append(cleanErrs, runErr)...)
}

// name is a step's name: its Name method's, else "".
func name(s any) string {
	if n, ok := s.(interface{ Name() string }); ok {
		return n.Name()
	}
	return ""
}

// named is err with step s's name before it, after prefix ("cleanup "); an
// unnamed step's error as it is.
func named(prefix string, s any, err error) error {
	if n := name(s); n != "" {
		return fmt.Errorf("%s%s: %w", prefix, n, err)
	}
	return err
}
