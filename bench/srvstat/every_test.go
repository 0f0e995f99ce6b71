package srvstat

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Every, the one sampling loop: count samples of this machine, each given
// to fn; fn's error ends the loop with that error; a cancelled context
// ends it without one.
func TestEvery(t *testing.T) {
	s := New(Config{NoPSS: true})
	defer s.Close()
	ctx := context.Background()
	var got []Sample
	err := Every(ctx, s, time.Millisecond, 3, func(smp Sample, err error) error {
		if err != nil {
			return err
		}
		got = append(got, smp)
		return nil
	})
	if err != nil || len(got) != 3 {
		t.Fatalf("count 3: %d samples, %v", len(got), err)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Unix < got[i-1].Unix {
			t.Errorf("sample %d is older than the one before it", i)
		}
	}
	stop := errors.New("enough")
	calls := 0
	err = Every(ctx, s, time.Millisecond, 0, func(Sample, error) error {
		if calls++; calls == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 2 {
		t.Errorf("fn's error: %v after %d calls, want %v after 2", err, calls, stop)
	}
	cctx, cancel := context.WithCancel(ctx)
	calls = 0
	err = Every(cctx, s, time.Hour, 0, func(Sample, error) error {
		calls++
		cancel()
		return nil
	})
	if err != nil || calls != 1 {
		t.Errorf("cancelled: %v after %d calls, want nil after 1", err, calls)
	}
}
