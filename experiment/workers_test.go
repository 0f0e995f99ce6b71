package experiment

import (
	"context"
	"fmt"
	"github.com/wptest/wptest/results"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/srvstat"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// The host manifest says what the live server declares: a status page on
// the server's loopback and a worker limit, or nothing and a reason.
func TestWorkersOf(t *testing.T) {
	apache := &hostmanifest.Manifest{Profile: "cpanel-apache",
		Server: &provision.Server{Status: &provision.Status{URL: "http://127.0.0.1:8080/whm-server-status?auto", Format: "apache"}, WorkerLimit: 150}}
	ws := results.WorkersOf(apache)
	if ws.StatusURL != "http://127.0.0.1:8080/whm-server-status?auto" || ws.MaxWorkers != 150 || ws.Why != "" {
		t.Errorf("cpanel-apache: %+v", ws)
	}
	// A status page without a worker limit: the scoreboard's length.
	apache.Server.WorkerLimit = 0
	if ws := results.WorkersOf(apache); ws.StatusURL != "http://127.0.0.1:8080/whm-server-status?auto" || ws.MaxWorkers != 0 {
		t.Errorf("no worker limit: %+v", ws)
	}
	for _, tc := range []struct {
		hm   *hostmanifest.Manifest
		want string
	}{
		{&hostmanifest.Manifest{Profile: "caddy", Server: &provision.Server{Protocols: []string{"h1"}}}, "caddy declares no status page"},
		{&hostmanifest.Manifest{Profile: "old"}, "old declares no status page"},
		{nil, "no host manifest"},
	} {
		ws := results.WorkersOf(tc.hm)
		if ws.StatusURL != "" || !strings.Contains(ws.Why, tc.want) {
			t.Errorf("%+v: %+v, want no URL and a reason with %q", tc.hm, ws, tc.want)
		}
	}
}

// A status page that never answered gives no worker usage, not 0% of
// MaxRequestWorkers; one that did gives the peak busy workers of
// MaxRequestWorkers (not of the scoreboard's length).
func TestWorkerUsageNeedsAReading(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	samples := func(ws ...*srvstat.Workers) []srvstat.Sample {
		var ss []srvstat.Sample
		for i, w := range ws {
			ss = append(ss, srvstat.Sample{Unix: float64(t0.Unix() + int64(i)), CPUs: 2,
				CPU: srvstat.CPU{User: float64(i), Idle: float64(i)}, Groups: map[string]srvstat.Usage{}, Apache: w})
		}
		return ss
	}
	src := results.WorkerSource{StatusURL: "http://127.0.0.1:8080/whm-server-status?auto", MaxWorkers: 150}
	from, to := t0.Add(100*time.Millisecond), t0.Add(2900*time.Millisecond)
	var log strings.Builder
	logf := func(f string, v ...any) { fmt.Fprintf(&log, f+"\n", v...) }

	s := &sampler{workers: src, logf: logf, ss: samples(
		&srvstat.Workers{Busy: 1, Idle: 4, Slots: 256}, &srvstat.Workers{Busy: 12, Idle: 3, Slots: 256},
		&srvstat.Workers{Busy: 11, Idle: 4, Slots: 256}, &srvstat.Workers{Busy: 1, Idle: 14, Slots: 256})}
	srv, err := s.summarize(context.Background(), from, to, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if srv.MaxBusyWorkers != 12 || srv.WorkerLimit != 150 || srv.WorkerUsagePct != 8 {
		t.Errorf("busy %d of %d = %.2f%%, want 12 of 150 = 8%%", srv.MaxBusyWorkers, srv.WorkerLimit, srv.WorkerUsagePct)
	}

	failed := &srvstat.Workers{Error: "status 404 <nil>"}
	s = &sampler{workers: src, logf: logf, ss: samples(failed, failed, failed, failed)}
	srv, err = s.summarize(context.Background(), from, to, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if srv.WorkerLimit != 0 || srv.WorkerUsagePct != 0 {
		t.Errorf("status page failed throughout, yet worker usage %.2f%% of %d", srv.WorkerUsagePct, srv.WorkerLimit)
	}
	if !strings.Contains(log.String(), "worker usage n/a") || !strings.Contains(log.String(), "status 404") {
		t.Errorf("the failure was not logged with its cause: %q", log.String())
	}

	// Not Apache: no status URL, nothing to read, nothing to warn about.
	log.Reset()
	s = &sampler{workers: results.WorkerSource{Why: "caddy is not Apache"}, logf: logf, ss: samples(nil, nil, nil, nil)}
	if srv, err = s.summarize(context.Background(), from, to, 1000); err != nil || srv.WorkerLimit != 0 || log.Len() != 0 {
		t.Errorf("caddy: %v, limit %d, log %q", err, srv.WorkerLimit, log.String())
	}
}
