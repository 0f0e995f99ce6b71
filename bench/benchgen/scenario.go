package benchgen

import (
	"context"
	"fmt"

	"os"
	"strconv"
	"strings"
	"time"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/internal/redact"
)

// Sweep runs base once per visitor count (the page, static and compression
// scenarios: N visitors, each its own keep-alive connection, closed loop
// unless base.Rate is set). Steps are named "c=N".
func Sweep(ctx context.Context, base Config, visitors []int) ([]result.Run, error) {
	var runs []result.Run
	for _, n := range visitors {
		if ctx.Err() != nil {
			return runs, ctx.Err()
		}
		cfg := base
		cfg.Visitors = n
		if cfg.Name == "" || len(visitors) > 1 {
			cfg.Name = fmt.Sprintf("c=%d", n)
		}
		r, err := Run(ctx, cfg)
		if err != nil {
			return runs, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// Compression is the compression scenario's request: the browser's header,
// so the server may compress; bytes are counted at the connection.
const AcceptGzip = "Accept-Encoding: gzip, deflate, br"

// selfHWM is this process's peak resident memory in KiB (VmHWM).
func selfHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// KitConfig is the Apache kit's ten metrics (the Apache performance kit) against one server.
type KitConfig struct {
	Base         Config // URL of the small (1 KB) page, Proto, Duration, Warmup, Timeout
	TransferURL  string // the 1 MB file ("" skips the transfer metric)
	Concurrency  int    // default 50
	Levels       []int  // default 1, 10, 50, 100, 200, 400
	ErrorClients int    // default 400, without keep-alive
	// Restart, if set, restarts the server; Startup polls Base.URL every
	// 10 ms until a 2xx and records restart → first good answer, StartupRounds times.
	Restart       func(ctx context.Context) error
	StartupRounds int
	// Server, if set, summarises the server's own samples (srvstat) over the
	// throughput run's window; ok is the answers in it.
	Server func(from, to time.Time, ok int64) (*result.Server, error)
}

// Kit runs the kit's load tests in order: startup, throughput (+latency,
// CPU, memory, workers), scaling, keep-alive effect, transfer, errors.
func Kit(ctx context.Context, kc KitConfig) (result.Kit, error) {
	if kc.Concurrency <= 0 {
		kc.Concurrency = 50
	}
	if len(kc.Levels) == 0 {
		kc.Levels = []int{1, 10, 50, 100, 200, 400}
	}
	if kc.ErrorClients <= 0 {
		kc.ErrorClients = 400
	}
	var k result.Kit
	if kc.Restart != nil {
		st, err := Startup(ctx, kc.Restart, kc.Base, kc.StartupRounds)
		if err != nil {
			return k, err
		}
		k.Startup = &st
	}
	run := func(name string, c int, ka bool, url string) (result.Run, error) {
		cfg := kc.Base
		cfg.Name, cfg.Visitors, cfg.KeepAlive, cfg.Rate = name, c, ka, 0
		if url != "" {
			cfg.URL = url
		}
		return Run(ctx, cfg)
	}
	var err error
	if k.Throughput, err = run("throughput", kc.Concurrency, true, ""); err != nil {
		return k, err
	}
	if kc.Server != nil {
		from, to := window(k.Throughput)
		if k.Server, err = kc.Server(from, to, k.Throughput.Outcomes.OK); err != nil {
			return k, fmt.Errorf("server samples: %w", err)
		}
	}
	best := 0.0
	for _, c := range kc.Levels {
		r, err := run(fmt.Sprintf("c=%d", c), c, true, "")
		if err != nil {
			return k, err
		}
		k.Scaling = append(k.Scaling, r)
		best = max(best, r.RPS)
	}
	if best > 0 {
		k.ScalingPct = 100 * k.Scaling[len(k.Scaling)-1].RPS / best
	}
	k.KeepAliveOn = k.Throughput
	if k.KeepAliveOff, err = run("keepalive-off", kc.Concurrency, false, ""); err != nil {
		return k, err
	}
	if k.KeepAliveOff.RPS > 0 {
		k.KeepAliveX = k.KeepAliveOn.RPS / k.KeepAliveOff.RPS
	}
	if kc.TransferURL != "" {
		r, err := run("transfer", kc.Concurrency, true, kc.TransferURL)
		if err != nil {
			return k, err
		}
		k.Transfer = &r
		if r.ElapsedMs > 0 {
			k.TransferMBs = float64(r.Bytes.Body) / (r.ElapsedMs / 1000) / 1e6
		}
	}
	if k.Errors, err = run("errors", kc.ErrorClients, false, ""); err != nil {
		return k, err
	}
	return k, nil
}

// window returns a run's measured window.
func window(r result.Run) (time.Time, time.Time) {
	from, _ := time.Parse(time.RFC3339Nano, r.Start)
	return from, from.Add(time.Duration(r.ElapsedMs * float64(time.Millisecond)))
}

// Startup measures restart → first 2xx on base.URL, polling every 10 ms with
// fresh connections, rounds times (default 3).
func Startup(ctx context.Context, restart func(context.Context) error, base Config, rounds int) (result.Startup, error) {
	if rounds <= 0 {
		rounds = 3
	}
	t, err := newTarget(&base)
	if err != nil {
		return result.Startup{}, err
	}
	var st result.Startup
	for range rounds {
		t0 := time.Now()
		if err := restart(ctx); err != nil {
			return st, fmt.Errorf("restart: %w", err)
		}
		limit := t0.Add(time.Minute)
		for {
			c := t.newClient()
			a := attempt{start: time.Now()}
			c.do(ctx, time.Now().Add(time.Second), &a)
			c.close()
			if a.outcome == result.OK {
				st.Rounds = append(st.Rounds, ms(a.end.Sub(t0)))
				break
			}
			if time.Now().After(limit) || ctx.Err() != nil {
				return st, fmt.Errorf("no 2xx from %s within a minute of the restart (last: %s %s)", redact.URLs(base.URL), a.outcome, redact.URLs(fmt.Sprint(a.err)))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	sum := 0.0
	for _, r := range st.Rounds {
		sum += r
	}
	st.MeanMs = sum / float64(len(st.Rounds))
	return st, nil
}
