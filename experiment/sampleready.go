package experiment

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ready waits for the sampler's first sample. A remote srvstat begins with
// an upload of the wptest binary and an SSH session, which can take longer
// than a short warm-up; a window that starts before the first sample has no
// sample before it to take differences from ("need two around the window").
func (s *sampler) ready(ctx context.Context, timeout time.Duration) error {
	// A timer, not a clock: the run's clock (Options.Now) may be a test's.
	late := time.NewTimer(timeout)
	defer late.Stop()
	expired := false
	for {
		s.mu.Lock()
		n, err := len(s.ss), s.err
		s.mu.Unlock()
		switch {
		case n > 0:
			return nil
		case err != nil:
			return fmt.Errorf("srvstat: %w", err)
		case expired:
			return fmt.Errorf("srvstat: no sample within %s of its start", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.done:
			s.mu.Lock()
			n, err = len(s.ss), s.err
			s.mu.Unlock()
			if n > 0 {
				return nil
			}
			if err == nil {
				err = errors.New("it ended before its first sample")
			}
			return fmt.Errorf("srvstat: %w", err)
		case <-late.C:
			expired = true
		case <-time.After(50 * time.Millisecond):
		}
	}
}
