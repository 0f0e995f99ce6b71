//go:build !libcclock || !cgo

package srvstat

import "time"

// sampleTime is the clock a sample's time (Sample.Unix) comes from: Go's,
// which reads the kernel's realtime clock through the vDSO. The libcclock
// build reads it through libc instead (clock_libc.go).
func sampleTime() time.Time { return time.Now() }
