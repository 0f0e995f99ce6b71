package benchgen

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// An open loop's schedule ends with its window whatever the rate: at a rate
// no machine keeps (1e308/s, the largest float) the run returns, and every
// send the schedule intended in the window is an attempt (answered, or a
// queue timeout once its deadline passed without a free connection), so the
// attempts are exactly window × rate, the rate at most one send per
// nanosecond: a count, not a time. Before, at 1e308/s every intended time
// was the start and the run never ended; at 1e7/s it counted its queue
// timeouts one by one, long after the window.
func TestOpenLoopScheduleEndsWithItsWindow(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Write([]byte("hello"))
	}))
	defer srv.Close()
	const warmup, window = 100 * time.Millisecond, 300 * time.Millisecond
	for _, tc := range []struct {
		name string
		rate float64
		want int64 // intended sends in the window
	}{
		{"1e308", 1e308, int64(window / time.Nanosecond)},
		{"max float", math.MaxFloat64, int64(window / time.Nanosecond)},
		{"1e12", 1e12, int64(window / time.Nanosecond)},
		{"1e9", 1e9, int64(window / time.Nanosecond)},
		// A rate well past what one machine sends: still window × rate.
		{"1e7", 1e7, 3_000_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Only a safety net: a run that hangs fails here instead of
			// timing out the package.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			r, err := Run(ctx, Config{URL: srv.URL + "/", Visitors: 4, KeepAlive: true, Rate: tc.rate,
				Warmup: warmup, Duration: window, Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if ctx.Err() != nil {
				t.Fatalf("the run ended only when the test's safety deadline cancelled it")
			}
			if r.Model != "open" || r.Attempts == 0 || r.Outcomes.OK == 0 {
				t.Fatalf("model %s, %d attempts, %d ok: want an open loop that sent", r.Model, r.Attempts, r.Outcomes.OK)
			}
			if r.Attempts != tc.want {
				t.Errorf("%d attempts, want the %d the schedule intended in the window", r.Attempts, tc.want)
			}
			if r.Outcomes.QueueTimeout == 0 || r.Outcomes.Sum() != r.Attempts {
				t.Errorf("outcomes %+v: want queue timeouts (no machine keeps %g/s), every attempt in one bucket", r.Outcomes, tc.rate)
			}
			if int64(served.Load()) < r.Outcomes.OK {
				t.Errorf("server saw %d requests, fewer than %d answered", served.Load(), r.Outcomes.OK)
			}
		})
	}
}

// A rate that is not a finite number >= 0, a negative duration or count,
// a URL that is not http(s) with a host, an unknown proto or method, a
// header without a colon: Validate refuses each before anything runs.
func TestValidate(t *testing.T) {
	ok := Config{URL: "http://127.0.0.1:1/", Duration: time.Second}
	if err := Validate(ok); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Config)
	}{
		{"ftp URL", func(c *Config) { c.URL = "ftp://127.0.0.1/" }},
		{"no scheme", func(c *Config) { c.URL = "127.0.0.1:8080/" }},
		{"no host", func(c *Config) { c.URL = "http:///x" }},
		{"proto h9", func(c *Config) { c.Proto = "h9" }},
		{"h2 over http", func(c *Config) { c.Proto = "h2" }},
		{"method POST", func(c *Config) { c.Method = "POST" }},
		{"header without colon", func(c *Config) { c.Header = []string{"nocolon"} }},
		{"header with newline", func(c *Config) { c.Header = []string{"X: a\r\nEvil: b"} }},
		{"rate -1", func(c *Config) { c.Rate = -1 }},
		{"rate NaN", func(c *Config) { c.Rate = math.NaN() }},
		{"rate +Inf", func(c *Config) { c.Rate = math.Inf(1) }},
		{"duration -1s", func(c *Config) { c.Duration = -time.Second }},
		{"warm-up -5s", func(c *Config) { c.Warmup = -5 * time.Second }},
		{"timeout -1s", func(c *Config) { c.Timeout = -time.Second }},
		{"requests -1", func(c *Config) { c.Requests = -1 }},
		{"neither requests nor duration", func(c *Config) { c.Duration = 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			if err := Validate(c); err == nil {
				t.Errorf("Validate(%+v) = nil, want an error", c)
			}
		})
	}
	cc := CrowdConfig{Base: Config{URL: ok.URL}, GiveUp: -time.Second}
	if err := ValidateCrowd(cc); err == nil {
		t.Error("ValidateCrowd with give up -1s = nil, want an error")
	}
	kc := KitConfig{Base: Config{URL: ok.URL}, Levels: []int{1, -1}}
	if err := ValidateKit(kc); err == nil {
		t.Error("ValidateKit with level -1 = nil, want an error")
	}
}
