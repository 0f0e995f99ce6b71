package srvstat

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/testsrv"
	"github.com/wptest/wptest/internal/testenv"
)

// BenchmarkSampleWithApachePrefork measures samples (all of /proc, PSS
// within its budget, /server-status) taken once a second with Apache prefork
// running 150 workers, idle or kept busy by ab (-c 150 -k), and reports
// srvstat's CPU time as the share of one core it costs at 1 Hz (goal < 1%
// with the default config), and how often each process's PSS is refreshed.
// Each op is one sample; the second between samples is not timed.
//
//	go test -run '^$' -bench SampleWithApache -benchtime 20x ./bench/srvstat/
func BenchmarkSampleWithApachePrefork(b *testing.B) {
	s := testsrv.StartApache(b, testsrv.ApacheOptions{MPM: "prefork", MaxRequestWorkers: 150})
	status := s.URL("/server-status?auto")
	for _, c := range []struct {
		name string
		cfg  Config
		busy bool
	}{
		{"default", Config{StatusURL: status}, false},
		{"default-busy", Config{StatusURL: status}, true},
		{"no-pss", Config{StatusURL: status, NoPSS: true}, false},
		{"no-pss-busy", Config{StatusURL: status, NoPSS: true}, true},
		{"pss-all", Config{StatusURL: status, PSSAll: true}, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			if c.busy {
				ab := testenv.NeedBinary(b, "ab")
				cmd := exec.Command(ab, "-q", "-k", "-c", "150", "-n", "1000000000", "-t", "3600", s.URL(testsrv.Small))
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				defer func() { cmd.Process.Kill(); cmd.Wait() }()
			}
			benchSample(b, c.cfg)
		})
	}
}

func benchSample(b *testing.B, cfg Config) {
	sm := New(cfg)
	defer sm.Close()
	ctx := context.Background()
	// Prefork spawns its children a few dozen per second: wait for all, and
	// for every one to have a PSS reading (the steady state).
	for deadline := time.Now().Add(60 * time.Second); ; {
		smp, err := sm.Sample(ctx)
		if err != nil {
			b.Fatal(err)
		}
		web := smp.Groups["web"]
		if web.Procs > 150 && (cfg.NoPSS || web.PSSKB > 0) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("not steady after 60 s: web %+v", web)
		}
		if web.Procs <= 150 {
			time.Sleep(200 * time.Millisecond)
		}
	}
	var last Sample
	reads0 := sm.pssReads
	cpu0 := selfCPU()
	next := time.Now().Add(time.Second)
	for b.Loop() {
		b.StopTimer()
		time.Sleep(time.Until(next))
		next = next.Add(time.Second)
		b.StartTimer()
		var err error
		if last, err = sm.Sample(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	// CPU, not wall time: the status request waits on Apache. All of this
	// process's CPU time, the seconds in between included.
	cpuPerSample := float64((selfCPU() - cpu0).Nanoseconds()) / float64(b.N)
	b.ReportMetric(cpuPerSample/1e9*100, "%core@1Hz")
	b.ReportMetric(float64(last.Procs), "procs")
	web := last.Groups["web"]
	b.ReportMetric(float64(web.Procs), "web-procs")
	if !cfg.NoPSS {
		// Every named group's process is re-read once per (processes ÷
		// reads per sample) samples: at 1 Hz, that many seconds.
		named := 0
		for g, u := range last.Groups {
			if g != Other {
				named += u.Procs
			}
		}
		perSample := float64(sm.pssReads-reads0) / float64(b.N)
		b.ReportMetric(perSample, "pss-reads/sample")
		b.ReportMetric(float64(named)/perSample, "pss-refresh-s@1Hz")
		if web.PSSKB <= 0 || web.PSSRead != web.Procs || web.PSSAgeS == nil {
			b.Fatalf("web group without a complete PSS: %+v", web)
		}
		b.ReportMetric(*web.PSSAgeS, "web-pss-age-s")
	}
	if last.Apache == nil || last.Apache.Error != "" || web.Procs < 150 {
		b.Fatalf("sample incomplete: apache %+v web %+v", last.Apache, web)
	}
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
