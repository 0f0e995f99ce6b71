package benchgen

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/result"
)

// viaJSON is what the load host decodes from what the orchestrator encoded.
func viaJSON(t *testing.T, j Job) Job {
	t.Helper()
	b, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	var out Job
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return out
}

// Every field of every config arrives as it was sent (durations to the
// nanosecond); only the functions stay behind.
func TestJobConfigsSurviveJSON(t *testing.T) {
	base := Config{Name: "c=7", URL: "https://203.0.113.7:8443/x?y=1", Method: "HEAD", Proto: "h2", Header: []string{AcceptGzip, "X-A: b"}, HTTP10: true,
		Visitors: 7, KeepAlive: true, Requests: 123, Duration: 1500*time.Millisecond + 1, Warmup: 250 * time.Millisecond,
		Rate: 12.5, Timeout: 3 * time.Second, ServerName: "localhost", Insecure: true,
		StartAt: time.Date(2026, 12, 1, 18, 0, 0, 123456789, time.UTC), Raw: true,
		Progress: func(int64, time.Duration) {}}
	want := base
	want.Progress = nil

	j, err := NewRunJob(base)
	if err != nil {
		t.Fatal(err)
	}
	got := viaJSON(t, j)
	if got.Kind != JobRun || !reflect.DeepEqual(got.Config.Config(), want) {
		t.Fatalf("run job: got %+v\nwant %+v", got.Config.Config(), want)
	}

	cc := CrowdConfig{Base: base, ProbeURL: "http://h/p", Visitors: 300, ClickEvery: 10 * time.Second, ProbeEvery: 500 * time.Millisecond,
		GiveUp: 30 * time.Second, Warmup: 2 * time.Second, Duration: 20 * time.Second, ProbeSlot: 1, ProbeSlots: 3}
	if j, err = NewCrowdJob(cc); err != nil {
		t.Fatal(err)
	}
	got = viaJSON(t, j)
	wantCrowd := CrowdJob{ProbeURL: cc.ProbeURL, Visitors: 300, ClickEvery: cc.ClickEvery, ProbeEvery: cc.ProbeEvery, GiveUp: cc.GiveUp,
		Warmup: cc.Warmup, Duration: cc.Duration, ProbeSlot: 1, ProbeSlots: 3}
	if c := specOf[CrowdJob](got); got.Kind != JobCrowd || c == nil || *c != wantCrowd || !reflect.DeepEqual(got.Config.Config(), want) {
		t.Fatalf("crowd job: %+v %s", got, got.Spec)
	}

	kc := KitConfig{Base: base, TransferURL: "http://h/1m", Concurrency: 50, Levels: []int{1, 10}, ErrorClients: 40}
	if j, err = NewKitJob(kc); err != nil {
		t.Fatal(err)
	}
	got = viaJSON(t, j)
	if k := specOf[KitJob](got); got.Kind != JobKit || k == nil || !reflect.DeepEqual(*k, KitJob{TransferURL: kc.TransferURL, Concurrency: 50, Levels: []int{1, 10}, ErrorClients: 40}) {
		t.Fatalf("kit job: %s", got.Spec)
	}

	if j, err = NewStartupJob(base, "wptest-svc caddy restart", 2); err != nil {
		t.Fatal(err)
	}
	got = viaJSON(t, j)
	if s := specOf[StartupJob](got); got.Kind != JobStartup || s == nil || *s != (StartupJob{Restart: "wptest-svc caddy restart", Rounds: 2}) {
		t.Fatalf("startup job: %s", got.Spec)
	}
}

// What cannot cross is refused when the job is made, not dropped silently.
func TestJobRefusesWhatCannotCross(t *testing.T) {
	cfg := Config{URL: "http://127.0.0.1:1/", Duration: time.Second}
	withCAs := cfg
	withCAs.RootCAs = x509.NewCertPool()
	if _, err := NewRunJob(withCAs); err == nil || !strings.Contains(err.Error(), "RootCAs") {
		t.Fatalf("RootCAs: %v", err)
	}
	if _, err := NewKitJob(KitConfig{Base: cfg, Restart: func(context.Context) error { return nil }}); err == nil || !strings.Contains(err.Error(), "Restart") {
		t.Fatalf("kit Restart: %v", err)
	}
	if _, err := NewKitJob(KitConfig{Base: cfg, Server: func(time.Time, time.Time, int64) (*result.Server, error) { return nil, nil }}); err == nil {
		t.Fatal("kit Server accepted")
	}
	if _, err := NewStartupJob(cfg, "", 1); err == nil {
		t.Fatal("startup without a restart command accepted")
	}
	ctx := context.Background()
	if _, err := (Job{Kind: "nope", Config: JobConfig{URL: cfg.URL}}).Do(ctx, JobOptions{}); err == nil || !strings.Contains(err.Error(), `kind "nope"`) {
		t.Fatalf("unknown kind: %v", err)
	}
	if _, err := (Job{Kind: JobKit, Config: JobConfig{URL: cfg.URL}}).Do(ctx, JobOptions{}); err == nil {
		t.Fatal("kit job without kit settings ran")
	}
	sj, _ := NewStartupJob(cfg, "true", 1)
	if _, err := sj.Do(ctx, JobOptions{}); err == nil || !strings.Contains(err.Error(), "shell") {
		t.Fatalf("startup without a shell: %v", err)
	}
	if _, err := (Job{Kind: JobRun, Config: JobConfig{URL: "ftp://x/", Duration: time.Second}}).Do(ctx, JobOptions{}); err == nil || !strings.Contains(err.Error(), "ftp://x/") {
		t.Fatalf("bad URL: %v", err)
	}
}

// Each kind runs against a real HTTP server and answers with its own result;
// every attempt the server saw is in an outcome bucket.
func TestJobDoEachKind(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Write([]byte("hello"))
	}))
	defer srv.Close()
	ctx := context.Background()
	base := Config{URL: srv.URL + "/", Visitors: 3, KeepAlive: true, Duration: 300 * time.Millisecond, Timeout: 5 * time.Second}

	var progress atomic.Int64
	opt := JobOptions{Progress: func(int64, time.Duration) { progress.Add(1) }}
	j, _ := NewRunJob(Config{Name: "c=3", URL: base.URL, Visitors: 3, KeepAlive: true, Duration: 1200 * time.Millisecond, Timeout: 5 * time.Second})
	res, err := viaJSON(t, j).Do(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != JobRun || res.Run == nil || res.Run.Name != "c=3" || res.Run.Outcomes.OK == 0 || res.Crowd != nil {
		t.Fatalf("run result: %+v", res)
	}
	checkInvariant(t, *res.Run)
	if progress.Load() == 0 {
		t.Fatal("the job's progress function was never called")
	}

	j, _ = NewCrowdJob(CrowdConfig{Base: base, Visitors: 4, ClickEvery: 100 * time.Millisecond, ProbeEvery: 50 * time.Millisecond,
		GiveUp: 2 * time.Second, Warmup: 100 * time.Millisecond, Duration: 300 * time.Millisecond})
	res, err = viaJSON(t, j).Do(ctx, JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Crowd == nil || len(res.Crowd.Probes) != 6 || res.Crowd.ProbeOutcomes.OK != 6 || res.Crowd.Background.Outcomes.OK == 0 {
		t.Fatalf("crowd result: %+v", res.Crowd)
	}
	checkInvariant(t, res.Crowd.Background)

	j, _ = NewKitJob(KitConfig{Base: base, Concurrency: 2, Levels: []int{1, 2}, ErrorClients: 3})
	res, err = viaJSON(t, j).Do(ctx, JobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	k := res.Kit
	if k == nil || k.Startup != nil || len(k.Scaling) != 2 || k.Errors.Visitors != 3 || k.Throughput.Outcomes.OK == 0 {
		t.Fatalf("kit result: %+v", k)
	}
	for _, r := range append([]result.Run{k.Throughput, k.KeepAliveOff, k.Errors}, k.Scaling...) {
		checkInvariant(t, r)
	}

	// Startup: the shell gets the restart command once per round.
	var scripts []string
	j, _ = NewStartupJob(base, "restart-it", 2)
	res, err = viaJSON(t, j).Do(ctx, JobOptions{Shell: func(_ context.Context, s string) error { scripts = append(scripts, s); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Startup == nil || len(res.Startup.Rounds) != 2 || !reflect.DeepEqual(scripts, []string{"restart-it", "restart-it"}) {
		t.Fatalf("startup: %+v, shell ran %q", res.Startup, scripts)
	}
	// A failing restart is the job's error.
	_, err = j.Do(ctx, JobOptions{Shell: func(context.Context, string) error { return errors.New("no such service") }})
	if err == nil || !strings.Contains(err.Error(), "no such service") {
		t.Fatalf("failed restart: %v", err)
	}
}

// A job's settings this binary does not understand are refused, not
// half-run with defaults: a field its kind has not (another version's, or
// another kind's), none at all, or null. The error says which and why.
func TestJobRefusesSettingsItDoesNotKnow(t *testing.T) {
	for _, c := range []struct{ name, job, want string }{
		{"an unknown field", `{"kind":"crowd","config":{"url":"http://127.0.0.1:1/"},"spec":{"visitors":1,"frobnicate":1}}`, `job: kind crowd: its settings: json: unknown field "frobnicate"`},
		{"another kind's", `{"kind":"browse","config":{"url":"http://127.0.0.1:1/"},"spec":{"visitors":1,"probe_url":"http://127.0.0.1:1/p"}}`, `unknown field "probe_url"`},
		{"null", `{"kind":"kit","config":{"url":"http://127.0.0.1:1/"},"spec":null}`, "job: kind kit without its settings"},
		{"none", `{"kind":"startup","config":{"url":"http://127.0.0.1:1/"}}`, "job: kind startup without its settings"},
	} {
		var j Job
		if err := json.Unmarshal([]byte(c.job), &j); err != nil {
			t.Fatal(err)
		}
		if _, err := j.Do(context.Background(), JobOptions{Shell: func(context.Context, string) error { return nil }}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want refused: %s", c.name, err, c.want)
		}
	}
}
