//go:build libcclock && cgo

package srvstat

/*
#include <time.h>

static long long wptest_realtime_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
*/
import "C"

import "time"

// sampleTime reads the realtime clock through libc's clock_gettime, so
// that libfaketime (LD_PRELOAD) shifts a sample's time as it shifts every
// C program's on the host: the clock test's sampler on a host whose clock
// is off by a known amount. Built only with -tags libcclock (CGO_ENABLED=1);
// the shipped binary is pure Go (clock.go).
func sampleTime() time.Time { return time.Unix(0, int64(C.wptest_realtime_ns())) }
