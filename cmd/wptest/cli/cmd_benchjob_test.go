package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/benchgen"
)

func runJobCLI(t *testing.T, stdin string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), &App{Args: []string{"bench-job"}, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, WorkDir: t.TempDir()})
	return code, out.String(), errb.String()
}

// jobJSON takes a benchgen.NewXJob's results as they come.
func jobJSON(t *testing.T) func(benchgen.Job, error) string {
	return func(j benchgen.Job, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(j)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
}

// `wptest bench-job` as the load host runs it: the job on stdin, the result
// as JSON on stdout (nothing else there), progress on stderr.
func TestBenchJobRunsTheJobFromStdin(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Write([]byte("hello"))
	}))
	defer srv.Close()

	in := jobJSON(t)(benchgen.NewRunJob(benchgen.Config{Name: "c=2", URL: srv.URL + "/", Visitors: 2, KeepAlive: true,
		Duration: 500 * time.Millisecond, Timeout: 5 * time.Second}))
	code, out, stderr := runJobCLI(t, in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res benchgen.JobResult
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("stdout is not one result: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("more than the result on stdout:\n%s", out)
	}
	r := res.Run
	if res.Kind != "run" || r == nil || r.Outcomes.OK == 0 || r.Outcomes.Sum() != r.Attempts {
		t.Fatalf("result: %+v", res)
	}
	if served.Load() < r.Attempts {
		t.Fatalf("server saw %d requests, result counts %d attempts", served.Load(), r.Attempts)
	}
	exe, _ := os.Executable()
	host, _ := os.Hostname()
	if res.Exe != exe || res.Host != host {
		t.Fatalf("ran by %q on %q, want %q on %q", res.Exe, res.Host, exe, host)
	}
	if !strings.Contains(stderr, "bench-job run c=2: "+srv.URL+"/ on "+host) || !strings.Contains(stderr, "bench-job run c=2: done after") {
		t.Fatalf("stderr lacks the start and end lines:\n%s", stderr)
	}

	// Startup: the restart command runs in this machine's shell.
	marker := filepath.Join(t.TempDir(), "restarted")
	in = jobJSON(t)(benchgen.NewStartupJob(benchgen.Config{URL: srv.URL + "/"}, "echo x >> "+marker, 2))
	if code, out, stderr = runJobCLI(t, in); code != 0 {
		t.Fatalf("startup: exit %d: %s", code, stderr)
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Startup == nil || len(res.Startup.Rounds) != 2 {
		t.Fatalf("startup result %v: %s", err, out)
	}
	if b, _ := os.ReadFile(marker); string(b) != "x\nx\n" {
		t.Fatalf("restart ran %q, want twice", b)
	}
}

// A job that cannot be read is a usage error (2); one that cannot run is a
// load error (6) whose message says what went wrong; stdout stays empty.
func TestBenchJobErrors(t *testing.T) {
	for _, c := range []struct {
		name, in string
		code     int
		want     string
	}{
		{"not json", "{", 2, "job on stdin"},
		{"unknown field", `{"kind":"run","config":{"url":"http://127.0.0.1:1/"},"frobnicate":1}`, 2, `unknown field "frobnicate"`},
		{"bad url", `{"kind":"run","config":{"url":"ftp://nowhere/","duration_ns":1000000}}`, 6, `url "ftp://nowhere/"`},
		{"unknown kind", `{"kind":"sleep","config":{"url":"http://127.0.0.1:1/"}}`, 6, `kind "sleep"`},
		{"failing restart", `{"kind":"startup","config":{"url":"http://127.0.0.1:1/"},"spec":{"restart":"echo broken >&2; exit 3"}}`, 6, "broken"},
	} {
		code, out, stderr := runJobCLI(t, c.in)
		if code != c.code || !strings.Contains(stderr, c.want) || out != "" {
			t.Errorf("%s: exit %d (want %d), stdout %q, stderr:\n%s", c.name, code, c.code, out, stderr)
		}
	}
}

// holdAnswerer is a split crowd's controller on the job's pipes: it
// answers each hold line on stderr with its release on stdin, and keeps
// the stages in the order they came.
type holdAnswerer struct {
	mu     sync.Mutex
	stdin  *io.PipeWriter
	stages []string
	errb   bytes.Buffer
}

func (h *holdAnswerer) Write(b []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.errb.Write(b)
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if stage, ok := benchgen.ParseHold(l); ok {
			h.stages = append(h.stages, stage)
			go io.WriteString(h.stdin, benchgen.ReleaseLine(stage))
		}
	}
	return len(b), nil
}

// A share of a split crowd says on stderr where it waits for the other
// load generators and goes on when stdin releases it, the stdin staying
// open (as the controller keeps it); run by hand, with nothing after the
// job on stdin, it goes on alone.
func TestBenchJobCrowdShareWaitsForItsRelease(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }))
	defer srv.Close()
	j, err := benchgen.NewCrowdJob(benchgen.CrowdConfig{Base: benchgen.Config{Name: "c=3", URL: srv.URL + "/"}, Visitors: 3,
		ClickEvery: 100 * time.Millisecond, ProbeEvery: 100 * time.Millisecond, GiveUp: 5 * time.Second, Duration: 400 * time.Millisecond,
		ProbeSlot: 1, ProbeSlots: 2})
	in := jobJSON(t)(j, err)
	pr, pw := io.Pipe()
	defer pw.Close()
	h := &holdAnswerer{stdin: pw}
	var out bytes.Buffer
	code := Run(context.Background(), &App{Args: []string{"bench-job"}, Stdin: io.MultiReader(strings.NewReader(in), pr), Stdout: &out, Stderr: h, WorkDir: t.TempDir()})
	h.mu.Lock()
	stages, stderr := h.stages, h.errb.String()
	h.mu.Unlock()
	var res benchgen.JobResult
	if code != 0 || json.Unmarshal(out.Bytes(), &res) != nil || res.Crowd == nil || len(res.Crowd.Probes) != 2 {
		t.Fatalf("exit %d, result %s\n%s", code, out.String(), stderr)
	}
	if strings.Join(stages, ",") != benchgen.HoldComplete+","+benchgen.HoldProbed {
		t.Errorf("held at %q, want complete then probed:\n%s", stages, stderr)
	}
	code, outs, stderr := runJobCLI(t, in)
	if code != 0 || !strings.Contains(outs, `"crowd"`) || !strings.Contains(stderr, strings.TrimSpace(benchgen.HoldLine(benchgen.HoldProbed))) {
		t.Errorf("run by hand: exit %d, stdout %q, stderr:\n%s", code, outs, stderr)
	}
}
