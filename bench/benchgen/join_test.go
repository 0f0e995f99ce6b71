package benchgen

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/hdr"
	"github.com/wptest/wptest/bench/result"
)

// Two shares of one run, started together at an agreed time and sent as
// jobs (JSON both ways), join exactly: attempts and outcomes add, and the
// joined percentiles are those of one histogram of all their samples.
func TestJoinRunsOfJobsStartedTogether(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }))
	defer srv.Close()
	at := time.Now().Add(300 * time.Millisecond).Round(0)
	for _, rate := range []float64{0, 200} {
		shares := make([]result.Run, 2)
		var wg sync.WaitGroup
		for i, v := range []int{3, 2} {
			cfg := Config{Name: "c=5", URL: srv.URL + "/", Visitors: v, KeepAlive: true, Duration: 400 * time.Millisecond,
				Rate: rate * float64(v) / 5, Timeout: 5 * time.Second, StartAt: at, Raw: true}
			wg.Add(1)
			go func() {
				defer wg.Done()
				j, _ := NewRunJob(cfg)
				res, err := viaJSON(t, j).Do(context.Background(), JobOptions{})
				if err != nil {
					t.Error(err)
					return
				}
				shares[i] = *viaJSONResult(t, res).Run
			}()
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		checkJoined(t, shares, at)
		at = time.Now().Add(300 * time.Millisecond).Round(0)
	}
}

func checkJoined(t *testing.T, shares []result.Run, at time.Time) {
	t.Helper()
	j, err := JoinRuns(shares)
	if err != nil {
		t.Fatal(err)
	}
	all := hdr.New()
	var attempts, ok int64
	for _, s := range shares {
		if st, _ := time.Parse(time.RFC3339Nano, s.Start); st.Before(at) {
			t.Errorf("a share's window began at %v, before the agreed %v", st, at)
		}
		all.Merge(s.Raw.Latency)
		attempts += s.Attempts
		ok += s.Outcomes.OK
		checkInvariant(t, s)
	}
	checkInvariant(t, j)
	want := Summary(all, true)
	if j.Attempts != attempts || j.Outcomes.OK != ok || j.Visitors != 5 || j.Latency.Count != uint64(ok) ||
		j.Latency.P50 != want.P50 || j.Latency.P99 != want.P99 || j.Latency.Max != want.Max {
		t.Errorf("joined: attempts %d (sum %d), ok %d (sum %d), visitors %d, latency %+v, want %+v", j.Attempts, attempts, j.Outcomes.OK, ok, j.Visitors, j.Latency, want)
	}
	if (j.Model == "open") != (j.Queue != nil) || j.Model == "open" && j.Rate != 200 {
		t.Errorf("model %s, rate %v, queue %v", j.Model, j.Rate, j.Queue)
	}
}

// A crowd split over two load generators keeps one newcomer every
// ProbeEvery: each sends every other one of the schedule, and the joined
// crowd has the whole schedule in order.
func TestJoinCrowdsKeepsTheProbeSchedule(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }))
	defer srv.Close()
	at := time.Now().Add(300 * time.Millisecond)
	shares := make([]result.Crowd, 2)
	var wg sync.WaitGroup
	for i := range shares {
		cc := CrowdConfig{Base: Config{URL: srv.URL + "/", Timeout: 5 * time.Second, StartAt: at, Raw: true}, Visitors: 3 + i,
			ClickEvery: 100 * time.Millisecond, ProbeEvery: 50 * time.Millisecond, GiveUp: 2 * time.Second,
			Warmup: 100 * time.Millisecond, Duration: 350 * time.Millisecond, ProbeSlot: i, ProbeSlots: 2}
		wg.Add(1)
		go func() {
			defer wg.Done()
			j, _ := NewCrowdJob(cc)
			res, err := viaJSON(t, j).Do(context.Background(), JobOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			shares[i] = *viaJSONResult(t, res).Crowd
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if len(shares[0].Probes) != 4 || len(shares[1].Probes) != 3 {
		t.Fatalf("probes per share %d + %d, want 4 + 3 (7 in 350 ms, one every 50 ms)", len(shares[0].Probes), len(shares[1].Probes))
	}
	j, err := JoinCrowds(shares)
	if err != nil {
		t.Fatal(err)
	}
	for k, p := range j.Probes {
		if p.At != float64(50*k) {
			t.Errorf("probe %d at %v ms, want %d", k, p.At, 50*k)
		}
	}
	w := hdr.New()
	w.Merge(shares[0].Raw.Wait)
	w.Merge(shares[1].Raw.Wait)
	if j.Visitors != 7 || j.ProbeOutcomes.OK != 7 || j.Wait.P99 != Summary(w, true).P99 || j.Wait.Count != 7 ||
		j.Background.Attempts != shares[0].Background.Attempts+shares[1].Background.Attempts {
		t.Errorf("joined crowd: visitors %d, probes ok %d, wait %+v, background attempts %d", j.Visitors, j.ProbeOutcomes.OK, j.Wait, j.Background.Attempts)
	}
	// The window: from the joined crowd's start, the earliest share's
	// first newcomer and the latest share's end; shares recorded before
	// windows were join without one.
	if w := j.Window; w == nil || w.FirstProbeMs > w.LastProbeEndMs || w.LastProbeEndMs < max(shares[0].Window.LastProbeEndMs, shares[1].Window.LastProbeEndMs)-50 {
		t.Errorf("joined window %+v of %+v and %+v", j.Window, shares[0].Window, shares[1].Window)
	}
	shares[1].Window = nil
	if j, err := JoinCrowds(shares); err != nil || j.Window != nil {
		t.Errorf("a share without a window: joined window %+v, %v", j.Window, err)
	}
}

// Shares without their histograms cannot be joined exactly: refused.
func TestJoinRefusesSummariesAlone(t *testing.T) {
	r := result.Run{Name: "c=1", Start: time.Now().UTC().Format(time.RFC3339Nano)}
	if _, err := JoinRuns([]result.Run{r, r}); err == nil {
		t.Fatal("joined runs without histograms")
	}
	if _, err := JoinCrowds([]result.Crowd{{Background: r}}); err == nil {
		t.Fatal("joined crowds without histograms")
	}
}

// viaJSONResult is what the orchestrator decodes from what the load host printed.
func viaJSONResult(t *testing.T, r JobResult) JobResult {
	b, err := json.Marshal(r)
	if err != nil {
		t.Error(err)
	}
	var out JobResult
	if err := json.Unmarshal(b, &out); err != nil {
		t.Errorf("decode %s: %v", b, err)
	}
	return out
}
