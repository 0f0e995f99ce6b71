package srvstat

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/testsrv"
)

// BenchmarkSampleWithApachePrefork measures one full sample (all of /proc,
// PSS of every web-server process, /server-status) with Apache prefork
// running 150 workers, and reports it as the share of one core srvstat costs
// at 1 Hz (goal < 1%).
//
//	go test -run '^$' -bench SampleWithApache ./bench/srvstat/
func BenchmarkSampleWithApachePrefork(b *testing.B) {
	s := testsrv.StartApache(b, testsrv.ApacheOptions{MPM: "prefork", MaxRequestWorkers: 150})
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"default", Config{StatusURL: s.URL("/server-status?auto")}},
		{"pss-every-sample", Config{StatusURL: s.URL("/server-status?auto"), PSSEvery: 1}},
		{"no-pss", Config{StatusURL: s.URL("/server-status?auto"), NoPSS: true}},
	} {
		b.Run(c.name, func(b *testing.B) { benchSample(b, c.cfg) })
	}
}

func benchSample(b *testing.B, cfg Config) {
	sm := New(cfg)
	defer sm.Close()
	ctx := context.Background()
	// Prefork spawns its children a few dozen per second: wait for all.
	for deadline := time.Now().Add(30 * time.Second); ; {
		smp, err := sm.Sample(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if smp.Groups["web"].Procs > 150 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	var last Sample
	cpu0 := selfCPU()
	for b.Loop() {
		var err error
		if last, err = sm.Sample(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	// CPU, not wall time: the status request waits on Apache.
	cpuPerSample := float64((selfCPU() - cpu0).Nanoseconds()) / float64(b.N)
	b.ReportMetric(cpuPerSample/1e9*100, "%core@1Hz")
	b.ReportMetric(float64(last.Procs), "procs")
	b.ReportMetric(float64(last.Groups["web"].Procs), "web-procs")
	if last.Apache == nil || last.Apache.Error != "" || last.Groups["web"].Procs < 150 {
		b.Fatalf("sample incomplete: apache %+v web %+v", last.Apache, last.Groups["web"])
	}
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
