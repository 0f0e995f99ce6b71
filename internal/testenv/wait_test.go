package testenv

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestPoll(t *testing.T) {
	var n atomic.Int32
	go func() {
		for range 5 {
			n.Add(1)
		}
	}()
	if err := Poll(time.Minute, func() bool { return n.Load() == 5 }); err != nil {
		t.Fatal(err)
	}
	if err := Poll(0, func() bool { return false }); err != ErrTimeout {
		t.Fatalf("a condition that never holds: %v, want ErrTimeout", err)
	}
	var b SyncBuffer
	b.Write([]byte("one\nstarted\n"))
	if !b.Contains("started") || b.Contains("late") {
		t.Fatalf("Contains on %q", b.String())
	}
}
