package host_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
)

// A host on this machine's clock: whatever the round trips were, the
// offset is within its uncertainty of zero (the host read the clock
// between our send and our receive), on Local and over SSH.
func TestMeasureClockSameClock(t *testing.T) {
	for _, th := range bothHosts(t) {
		t.Run(th.name, func(t *testing.T) {
			c, err := host.MeasureClock(context.Background(), th.h, 8)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("offset %s ± %s", c.Offset, c.Uncertainty)
			if c.Rounds != 8 || c.Uncertainty <= 0 {
				t.Errorf("clock %+v: want 8 rounds and an uncertainty", c)
			}
			if abs(c.Offset) > c.Uncertainty {
				t.Errorf("offset %s is beyond its uncertainty ± %s of the same clock", c.Offset, c.Uncertainty)
			}
		})
	}
}

// A host whose clock reads a known 3 s ahead (libfaketime under its
// shell and date; this process's clock is not shifted): the measured
// offset is the shift, within its uncertainty.
func TestMeasureClockShifted(t *testing.T) {
	lib := testenv.LibFaketime(t)
	// Declared: a local command inherits nothing else of this process's environment.
	h := host.NewLocal(nil).WithEnv("LD_PRELOAD="+lib, "FAKETIME=+3s")
	for _, rounds := range []int{1, 12} {
		c, err := host.MeasureClock(context.Background(), h, rounds)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d round(s): offset %s ± %s", rounds, c.Offset, c.Uncertainty)
		if d := abs(c.Offset - 3*time.Second); d > c.Uncertainty {
			t.Errorf("%d round(s): offset %s, want 3s ± %s (off by %s)", rounds, c.Offset, c.Uncertainty, d)
		}
	}
}

func TestMeasureClockErrors(t *testing.T) {
	h := host.NewLocal(nil)
	if _, err := host.MeasureClock(context.Background(), h, 0); err == nil {
		t.Error("0 rounds: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := host.MeasureClock(ctx, h, 4); err == nil {
		t.Error("cancelled: no error")
	}
}

// endedHost is a real host whose clock session ends after reading the
// first round's line, before its answer (a shell that died, a dropped
// connection).
type endedHost struct{ host.Host }

func (endedHost) Run(_ context.Context, cmd host.Cmd) (host.Result, error) {
	_, _ = cmd.Stdin.Read(make([]byte, 1))
	return host.Result{Exit: 1}, errors.New("the session ended")
}

// A session that ends before its first answer is an error naming it, at
// once: the round that saw the end and the wait after it both learn it
// (the wait once blocked for ever, the round having taken the only word
// of it, and so did a cancelled measure about one time in two).
func TestMeasureClockSessionEndsFirst(t *testing.T) {
	for _, c := range []struct {
		name string
		h    host.Host
		ctx  func() context.Context
	}{
		{"ended session", endedHost{host.NewLocal(nil)}, context.Background},
		{"cancelled", host.NewLocal(nil), func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for i := 0; i < 50; i++ {
				res := make(chan error, 1)
				go func() {
					_, err := host.MeasureClock(c.ctx(), c.h, 4)
					res <- err
				}()
				select {
				case err := <-res:
					if err == nil {
						t.Fatalf("try %d: no error", i+1)
					}
				case <-time.After(time.Minute):
					t.Fatalf("try %d: MeasureClock still waiting a minute after its session ended", i+1)
				}
			}
		})
	}
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
