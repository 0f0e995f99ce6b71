package benchgen

import (
	"context"
	"fmt"

	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wptest/wptest/bench/hdr"
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

// CrowdConfig is the crowd scenario: Visitors hold keep-alive connections and
// click every ClickEvery (paced from their intended click times); every
// ProbeEvery a new visitor opens a fresh connection and asks for ProbeURL; a
// probe with no answer within GiveUp gave up, and is counted.
type CrowdConfig struct {
	Base       Config // URL, Proto, TLS settings, headers for the background clicks
	ProbeURL   string // "" = Base.URL
	Visitors   int
	ClickEvery time.Duration // default 10 s
	ProbeEvery time.Duration // default 0.5 s
	GiveUp     time.Duration // default 30 s
	// Warmup lets the crowd connect before probes start (default ClickEvery);
	// Duration is the probing window (default 30 s).
	Warmup, Duration time.Duration
	// ProbeSlot of ProbeSlots: with several load generators, this one sends
	// newcomers ProbeSlot, ProbeSlot+ProbeSlots, ... of the schedule, so
	// together they keep one newcomer every ProbeEvery (0 of 0: all).
	ProbeSlot, ProbeSlots int
}

// Crowd runs the crowd scenario. It returns after the last probe has been
// answered or has given up.
func Crowd(ctx context.Context, cc CrowdConfig) (result.Crowd, error) {
	if cc.ClickEvery <= 0 {
		cc.ClickEvery = 10 * time.Second
	}
	if cc.ProbeEvery <= 0 {
		cc.ProbeEvery = 500 * time.Millisecond
	}
	if cc.GiveUp <= 0 {
		cc.GiveUp = DefaultTimeout
	}
	if cc.Warmup <= 0 {
		cc.Warmup = cc.ClickEvery
	}
	if cc.Duration <= 0 {
		cc.Duration = 30 * time.Second
	}
	if cc.Visitors <= 0 {
		return result.Crowd{}, fmt.Errorf("crowd: need at least one background visitor")
	}
	if cc.ProbeSlots < 0 || cc.ProbeSlot < 0 || cc.ProbeSlot >= max(cc.ProbeSlots, 1) {
		return result.Crowd{}, fmt.Errorf("crowd: probe slot %d of %d", cc.ProbeSlot, cc.ProbeSlots)
	}
	bg := cc.Base
	bg.StartAt = time.Time{} // waited for below, before the probes' schedule is set
	bg.Name = "background"
	bg.Visitors = cc.Visitors
	bg.KeepAlive = true
	bg.Rate = float64(cc.Visitors) / cc.ClickEvery.Seconds()
	bg.Warmup, bg.Duration, bg.Requests = cc.Warmup, cc.Duration, 0
	bg.Timeout = cc.GiveUp
	pb := cc.Base
	if cc.ProbeURL != "" {
		pb.URL = cc.ProbeURL
	}
	pb.KeepAlive = false
	pt, err := newTarget(&pb)
	if err != nil {
		return result.Crowd{}, err
	}
	if _, err := newTarget(&bg); err != nil {
		return result.Crowd{}, err
	}
	// The crowd's connections and the newcomers that may be waiting at once.
	waiting := int(cc.GiveUp/cc.ProbeEvery) + 1
	if err := ensureFiles(cc.Visitors+waiting, fmt.Sprintf("%d visitors and up to %d newcomers waiting at once", cc.Visitors, waiting)); err != nil {
		return result.Crowd{}, err
	}

	if err := waitUntil(ctx, cc.Base.StartAt); err != nil {
		return result.Crowd{}, err
	}
	var bgRun result.Run
	var bgErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		bgRun, bgErr = Run(ctx, bg)
	}()

	start := time.Now().Add(cc.Warmup)
	slots := max(cc.ProbeSlots, 1)
	n := (int(cc.Duration/cc.ProbeEvery) - cc.ProbeSlot + slots - 1) / slots // this generator's share of the schedule
	n = max(n, 0)
	probes := make([]result.Probe, n)
	outs := make([]result.Outcome, n)
	wait, conn := hdr.New(), hdr.New()
	var mu sync.Mutex
	var pwg sync.WaitGroup
	for i := range n {
		at := start.Add(time.Duration(cc.ProbeSlot+i*slots) * cc.ProbeEvery)
		select {
		case <-ctx.Done():
			n = i
		case <-time.After(time.Until(at)):
		}
		if ctx.Err() != nil {
			n = i
			break
		}
		pwg.Add(1)
		go func(i int, at time.Time) {
			defer pwg.Done()
			c := pt.newClient()
			defer c.close()
			a := attempt{start: at}
			c.do(context.WithoutCancel(ctx), at.Add(cc.GiveUp), &a)
			p := result.Probe{At: ms(at.Sub(start)), Outcome: a.outcome.String(), Status: a.status,
				ConnectMs: ms(a.connect), TotalMs: ms(a.end.Sub(at))}
			if !a.firstByte.IsZero() {
				p.TTFBMs = ms(a.firstByte.Sub(a.sent))
			}
			mu.Lock()
			probes[i], outs[i] = p, a.outcome
			if a.gotHead {
				wait.Record(a.end.Sub(at))
			}
			if a.newConn {
				conn.Record(a.connect)
			}
			mu.Unlock()
		}(i, at)
	}
	pwg.Wait()
	wg.Wait()
	if bgErr != nil {
		return result.Crowd{}, bgErr
	}
	probes, outs = probes[:n], outs[:n]
	var counts [result.NumOutcomes]int64
	var gaveUp int64
	for _, o := range outs {
		counts[o]++
		if o == result.ReadTimeout || o == result.ConnectTimeout {
			gaveUp++
		}
	}
	cr := result.Crowd{
		Visitors: cc.Visitors, ClickEveryMs: ms(cc.ClickEvery), ProbeEveryMs: ms(cc.ProbeEvery), GiveUpMs: ms(cc.GiveUp),
		Background: bgRun, Probes: probes, ProbeOutcomes: result.FromArray(counts), GaveUp: gaveUp,
		Wait: Summary(wait, true), ConnectWait: Summary(conn, false), ClientRSSKB: selfHWM(),
	}
	if cc.Base.Raw {
		cr.Raw = &result.CrowdRaw{Wait: wait, Connect: conn}
	}
	return cr, nil
}

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
