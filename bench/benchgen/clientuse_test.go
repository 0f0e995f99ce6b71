package benchgen

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A load generator that shares its CPU with a busy process waits for it,
// and selfWait sees the wait: its own CPU alone would not show that it set
// the pace. Three threads pinned to one CPU each burn 30 ms of their own
// CPU time; whatever the scheduler does, while one runs the others wait,
// so together they waited at least 30 ms (two threads' worth of one
// thread's run, less any the kernel counts late: 1 ms is the floor asked).
func TestSelfWaitSeesAStarvedThread(t *testing.T) {
	var one unix.CPUSet
	var have unix.CPUSet
	if err := unix.SchedGetaffinity(0, &have); err != nil {
		t.Fatal(err)
	}
	for i := range 1024 {
		if have.IsSet(i) {
			one.Set(i)
			break
		}
	}
	w0 := selfWait()
	done, measured := make(chan error, 3), make(chan struct{})
	for range 3 {
		go func() {
			runtime.LockOSThread() // the thread ends with the goroutine: its wait is read before
			if err := unix.SchedSetaffinity(0, &one); err != nil {
				done <- err
				return
			}
			start := threadCPU()
			for threadCPU()-start < 30*time.Millisecond {
			}
			done <- nil
			<-measured // keep the thread (and its schedstat) until it is read
		}()
	}
	for range 3 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	w := selfWait() - w0
	close(measured)
	if w < time.Millisecond {
		t.Fatalf("three threads on one CPU waited %v in all: the run-queue wait is not read", w)
	}
}

func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
