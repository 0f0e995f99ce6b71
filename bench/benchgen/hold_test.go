package benchgen

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/result"
)

// A crowd split between two load generators (Job.Share, each share sent
// as JSON, joined with Job.Join) is on the site for the whole joint probe
// window: share 0's last newcomer is one slot before share 1's, yet its
// crowd clicks until share 1's newcomers have ended too, and neither
// share's newcomers start before the other's crowd is complete. Without
// the rendezvous, share 0 stops its crowd after its own last newcomer and
// the joined window has the stop before the last newcomer's end.
func TestSplitCrowdHoldsUntilEveryShareProbed(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }))
	defer srv.Close()
	j, err := NewCrowdJob(CrowdConfig{Base: Config{URL: srv.URL + "/"}, Visitors: 7, ClickEvery: 100 * time.Millisecond,
		ProbeEvery: 100 * time.Millisecond, GiveUp: 5 * time.Second, Warmup: 100 * time.Millisecond, Duration: 600 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(200 * time.Millisecond)
	rv := NewRendezvous(2, 0)
	parts := make([]JobResult, 2)
	var wg sync.WaitGroup
	for i, v := range []int{4, 3} {
		s := j.Share(i, 2, Share{Visitors: v})
		s.Config.StartAt, s.Config.Raw = at, true
		if !s.Holds() {
			t.Fatalf("share %d of a split crowd does not hold: %s", i, s.Spec)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer rv.Leave(i)
			hold := func(ctx context.Context, stage string) error { return rv.Hold(ctx, i, stage) }
			res, err := viaJSON(t, s).Do(context.Background(), JobOptions{Hold: hold})
			if err != nil {
				t.Error(err)
				return
			}
			parts[i] = viaJSONResult(t, res)
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	joined, err := j.Join(parts)
	if err != nil {
		t.Fatal(err)
	}
	if n0, n1 := len(parts[0].Crowd.Probes), len(parts[1].Crowd.Probes); n0 != 3 || n1 != 3 || len(joined.Crowd.Probes) != 6 {
		t.Fatalf("newcomers %d + %d, joined %d: want 3 + 3", n0, n1, len(joined.Crowd.Probes))
	}
	w := joined.Crowd.Window
	if w == nil {
		t.Fatal("no joined window")
	}
	if !(w.CompleteMs <= w.ProbeStartMs && w.ProbeStartMs <= w.FirstProbeMs && w.FirstProbeMs < w.LastProbeEndMs && w.LastProbeEndMs <= w.StoppedMs) {
		t.Errorf("joined crowd window out of order: %+v\nshares: %+v, %+v", *w, *parts[0].Crowd.Window, *parts[1].Crowd.Window)
	}
}

// A rendezvous releases a stage once every share came to it or left, and
// only then; a share that left does not hold up later stages either.
func TestRendezvousWaitsForEveryShare(t *testing.T) {
	rv := NewRendezvous(3, 0)
	ctx := context.Background()
	released := make(chan int, 3)
	for i := range 2 {
		go func() {
			if err := rv.Hold(ctx, i, HoldComplete); err == nil {
				released <- i
			}
		}()
	}
	cancelled, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() { errc <- rv.Hold(cancelled, 2, HoldProbed) }()
	cancel()
	if err := <-errc; err == nil {
		t.Error("a cancelled hold returned no error")
	}
	select {
	case i := <-released:
		t.Fatalf("share %d released with share 2 not yet come", i)
	default:
	}
	if err := rv.Hold(ctx, 2, HoldComplete); err != nil {
		t.Fatal(err)
	}
	<-released
	<-released
	rv.Leave(1)
	done := make(chan error, 2)
	for _, i := range []int{0, 2} {
		go func() { done <- rv.Hold(ctx, i, HoldProbed) }()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// The stderr and stdin lines of a hold carry the stage both ways, and
// nothing else is taken for one.
func TestHoldLines(t *testing.T) {
	if s, ok := ParseHold(HoldLine(HoldProbed)); !ok || s != HoldProbed {
		t.Errorf("hold line: %q %v", s, ok)
	}
	if s, ok := ParseRelease(ReleaseLine(HoldComplete)); !ok || s != HoldComplete {
		t.Errorf("release line: %q %v", s, ok)
	}
	if _, ok := ParseHold("bench-job crowd c=7: done after 1.0s"); ok {
		t.Error("a progress line taken for a hold")
	}
}

// A crowd whose newcomers all gave up has no wait to show, and its summary
// says none was answered rather than a wait of 0 ms.
func TestCrowdSummaryWithNoneAnswered(t *testing.T) {
	var b strings.Builder
	WriteCrowd(&b, result.Crowd{Visitors: 300, Probes: make([]result.Probe, 60), GaveUp: 60})
	if out := b.String(); !strings.Contains(out, "answered 0, gave up 60") || !strings.Contains(out, "wait (connect + answer): none answered") || strings.Contains(out, "p50 0.00 ms, p90") {
		t.Errorf("summary:\n%s", out)
	}
}
