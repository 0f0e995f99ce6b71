package srvstat

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/testsrv"
	"github.com/wptest/wptest/internal/testenv"
)

// BenchmarkSampleWithApachePrefork measures samples (all of /proc, PSS
// within its budget, /server-status) taken once a second with Apache prefork
// running 150 workers, idle or 100 of them kept busy by ab (-c 100 -k; the
// status request needs a free one), and reports
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
				cmd := exec.Command(ab, "-q", "-k", "-c", "100", "-n", "1000000000", "-t", "3600", s.URL(testsrv.Small))
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				defer func() { cmd.Process.Kill(); cmd.Wait() }()
			}
			benchSample(b, c.cfg)
		})
	}
}

// BenchmarkSamplerProcess runs the sampler as processes of their own at
// 1 Hz (this test binary as `srvstat`, like `wptest srvstat` on a server:
// JSON lines out, Go's runtime and all), the default and --no-pss side by
// side (so that both see the same machine), next to Apache prefork with 150
// workers, and reports each process's CPU time per second of wall time.
//
//	go test -run '^$' -bench SamplerProcess -benchtime 5x ./bench/srvstat/   # 5 rounds of 30 s
func BenchmarkSamplerProcess(b *testing.B) {
	s := testsrv.StartApache(b, testsrv.ApacheOptions{MPM: "prefork", MaxRequestWorkers: 150})
	// Prefork spawns its children a few dozen per second: wait for all.
	sm := New(Config{NoPSS: true})
	for deadline := time.Now().Add(60 * time.Second); sample(b, sm).Groups["web"].Procs <= 150; {
		if time.Now().After(deadline) {
			b.Fatal("prefork's children not all there after 60 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	sm.Close()
	const samples = 30
	variants := []struct {
		name string
		args []string
	}{
		{"default", []string{"--pss"}},
		{"pss-budget-2ms", []string{"--pss", "--pss-budget", "2ms"}},
		{"no-pss", nil},
		{"acct", []string{"--pss", "--acct"}}, // process accounting: the CLI's default
	}
	// Per variant, per round: CPU % over the whole run, and in steady state.
	total, steady := make([][]float64, len(variants)), make([][]float64, len(variants))
	for b.Loop() {
		type run struct {
			cmd  *exec.Cmd
			out  bytes.Buffer
			wall time.Duration
			err  error
		}
		runs := make([]run, len(variants))
		var wg sync.WaitGroup
		for i, v := range variants {
			r := &runs[i]
			r.cmd = exec.Command(os.Args[0], append([]string{"srvstat", "--count", strconv.Itoa(samples), "--interval", "1s",
				"--status-url", s.URL("/server-status?auto")}, v.args...)...)
			r.cmd.Stdout = &r.out
			wg.Go(func() {
				t0 := time.Now()
				r.err = r.cmd.Run()
				r.wall = time.Since(t0)
			})
		}
		wg.Wait()
		for i, v := range variants {
			r := &runs[i]
			if r.err != nil {
				b.Fatalf("%s: %v", v.name, r.err)
			}
			ss, err := Read(&r.out)
			if err != nil || len(ss) != samples {
				b.Fatalf("%s: %d samples, %v", v.name, len(ss), err)
			}
			if w := ss[samples-1]; w.Apache == nil || w.Apache.Error != "" || w.Groups["web"].Procs < 150 {
				b.Fatalf("%s: last sample: apache %+v web %+v", v.name, w.Apache, w.Groups["web"])
			}
			cpu := r.cmd.ProcessState.UserTime() + r.cmd.ProcessState.SystemTime()
			total[i] = append(total[i], 100*cpu.Seconds()/r.wall.Seconds())
			// Without the start (exec, the runtime's start, the first
			// sample's full PSS read): from the samples' own self_cpu_s.
			first, last := ss[1], ss[samples-1]
			steady[i] = append(steady[i], 100*(last.SelfCPUSec-first.SelfCPUSec)/(last.Unix-first.Unix))
		}
	}
	// Medians over the rounds: this machine's load comes and goes.
	for i, v := range variants {
		b.ReportMetric(median(total[i]), "%core@1Hz-"+v.name)
		b.ReportMetric(median(steady[i]), "%core@1Hz-steady-"+v.name)
	}
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func benchSample(b *testing.B, cfg Config) {
	sm := New(cfg)
	defer sm.Close()
	ctx := context.Background()
	// Prefork spawns its children a few dozen per second: wait for all, and
	// for them to have a PSS reading (the steady state). The "web" group
	// also has other web servers running on this machine, which may come
	// and go.
	for deadline := time.Now().Add(60 * time.Second); ; {
		smp, err := sm.Sample(ctx)
		if err != nil {
			b.Fatal(err)
		}
		web := smp.Groups["web"]
		if web.Procs > 150 && (cfg.NoPSS || web.PSSRead > 150) {
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
	var inSample time.Duration
	complete, statusErrs := 0, 0
	spent0 := sm.pssSpent
	cpu0 := selfCPU()
	next := time.Now().Add(time.Second)
	for b.Loop() {
		// No StopTimer around the wait: it reads the runtime's memory
		// statistics (stopping the world), a cost that is not srvstat's.
		time.Sleep(time.Until(next))
		next = next.Add(time.Second)
		var err error
		c0 := selfCPU()
		if last, err = sm.Sample(ctx); err != nil {
			b.Fatal(err)
		}
		inSample += selfCPU() - c0
		if last.Groups["web"].PSSKB > 0 {
			complete++
		}
		if last.Apache == nil || last.Apache.Error != "" {
			statusErrs++
		}
	}
	b.StopTimer()
	// CPU, not wall time: the status request waits on Apache. All of this
	// process's CPU time, the seconds in between included (a Go process
	// that only sleeps costs ~0.05% of a core here), and the part spent
	// inside Sample.
	cpuPerSample := float64((selfCPU() - cpu0).Nanoseconds()) / float64(b.N)
	b.ReportMetric(cpuPerSample/1e9*100, "%core@1Hz")
	b.ReportMetric(float64(inSample.Nanoseconds())/float64(b.N)/1e6, "ms-in-sample")
	b.ReportMetric(float64(last.Procs), "procs")
	web := last.Groups["web"]
	b.ReportMetric(float64(web.Procs), "web-procs")
	if !cfg.NoPSS {
		// A cycle that re-reads every named group's process costs the sum
		// of their reads; the budget pays for it at its rate (over 20
		// samples the spending is lumpy: a large process, mariadbd at
		// ~18 ms, is paid for in one go): at 1 Hz, the refresh period in
		// seconds. With --pss-all, at the rate spent.
		cycle := time.Duration(0)
		for _, p := range sm.procs {
			if p.group != sm.other {
				cycle += p.pssCost
			}
		}
		perSample := float64(sm.pssSpent-spent0) / float64(b.N)
		rate := float64(sm.cfg.PSSBudget)
		if cfg.PSSAll {
			rate = perSample
		}
		b.ReportMetric(perSample/1e6, "pss-ms/sample")
		b.ReportMetric(float64(cycle)/rate, "pss-refresh-s@1Hz")
		b.ReportMetric(float64(cycle)/1e6, "pss-cycle-ms")
		// Samples with the web group's pss_kb (every member read).
		b.ReportMetric(100*float64(complete)/float64(b.N), "web-pss-%samples")
		if web.PSSRead < 150 || web.PSSAgeS == nil {
			b.Fatalf("web group's PSS not read: %+v", web)
		}
	}
	if statusErrs > 0 || web.Procs < 150 {
		b.Fatalf("%d samples without Apache's status (last: %+v), web %+v", statusErrs, last.Apache, web)
	}
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkNewProcess: what srvstat reads of a process it sees for the
// first time (add: its stat, comm and exe, and its pid namespace, so that
// another machine's processes are Other's), and the namespace's readlink
// alone: its share of a new process's cost. On this test's own pid.
//
//	go test -run '^$' -bench NewProcess ./bench/srvstat/
func BenchmarkNewProcess(b *testing.B) {
	pid := os.Getpid()
	s := New(Config{NoPSS: true})
	defer s.Close()
	b.Run("add", func(b *testing.B) {
		for b.Loop() {
			s.add(pid)
			p := s.procs[pid]
			if p == nil || p.foreign {
				b.Fatal("not added, or foreign")
			}
			rawClose(p.fd)
			delete(s.procs, pid)
		}
	})
	b.Run("namespace", func(b *testing.B) {
		for b.Loop() {
			if s.foreignPid(pid) {
				b.Fatal("this process is foreign")
			}
		}
	})
}
