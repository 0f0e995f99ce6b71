package cli

import (
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/bench/srvstat"
	"github.com/wptest/wptest/bench/testsrv"
	"github.com/wptest/wptest/internal/testenv"
)

// Rasmus's ab test through the CLI: ab's flags, ab's text, and the same run as JSON.
func TestBenchABScenarioTextAndJSON(t *testing.T) {
	s := testsrv.StartApache(t, testsrv.ApacheOptions{})
	u := s.URL(testsrv.Small)
	code, out, stderr := runCLI(t, nil, "bench", "--scenario", "ab", "-c", "5", "-n", "2000", "-k", "--url", u)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Concurrency Level:      5\n", "Complete requests:      2000\n", "Failed requests:        0\n",
		"HTML transferred:       2048000 bytes\n", "Requests per second:", "Time per request:", "Transfer rate:",
		"Document Length:        1024 bytes", "(longest request)", "Protocol:               h1, HTTP/1.0 requests (closed loop)",
		// Apache's answers to ab's HTTP/1.0 requests: 1,301 bytes each, as ab counts them
		// (testsrv dates its files in the past, so every ETag is strong).
		"Total transferred:      2602000 bytes\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	code, out, stderr = runCLI(t, nil, "bench", "--scenario", "ab", "-c", "5", "-n", "500", "-k", "--http1.0=false", "-o", "json", "--url", u)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep result.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if rep.Schema != result.Schema || len(rep.Runs) != 1 || rep.Runs[0].Attempts != 500 || rep.Runs[0].Outcomes.OK != 500 ||
		rep.Runs[0].Model != "closed" || rep.Runs[0].Latency.P99 <= 0 || rep.Runs[0].HTTP10 {
		t.Fatalf("report: %+v", rep)
	}
}

// A run that cannot get a single answer exits 6 and says why; a bad flag exits 2.
func TestBenchExitCodes(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + l.Addr().String() + "/"
	l.Close()
	code, out, stderr := runCLI(t, nil, "bench", "--url", dead, "-c", "2", "-n", "10")
	if code != 6 || !strings.Contains(out, "connect_refused=10") || !strings.Contains(stderr, "no attempt answered") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	if code, _, _ := runCLI(t, nil, "bench", "--url", dead, "--proto", "h9"); code != 2 {
		t.Fatalf("bad proto: exit %d, want 2 (a usage error, before any run)", code)
	}
	if code, _, _ := runCLI(t, nil, "bench", "--url", dead, "--scenario", "nope"); code != 2 {
		t.Fatalf("bad scenario: exit %d, want 2", code)
	}
	if code, _, _ := runCLI(t, nil, "bench"); code != 2 {
		t.Fatalf("no url: exit %d, want 2", code)
	}
}

// The kit's metrics against a real Apache, sampled in-process: throughput,
// latency, scaling, keep-alive effect, transfer, errors, CPU, PSS and workers.
func TestBenchKitWithLocalSampler(t *testing.T) {
	// srvstat groups by name machine-wide: no other test's Apache (the
	// profile tests' mpm-itk forks a child per connection) may churn the
	// web group while this one is sampled.
	testenv.LockLocalServer(t)
	s := testsrv.StartApache(t, testsrv.ApacheOptions{MaxRequestWorkers: 50})
	code, out, stderr := runCLI(t, nil, "bench", "--scenario", "kit", "-o", "json", "--url", s.URL(testsrv.Small),
		"--transfer-url", s.URL(testsrv.Large), "-c", "5", "--levels", "1,10", "--duration", "500ms", "--warmup", "0",
		"--sample-local", "--status-url", s.URL("/server-status?auto"), "--max-workers", "50")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	var rep result.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	k := rep.Kit
	if k == nil || k.Throughput.RPS <= 0 || len(k.Scaling) != 2 || k.ScalingPct <= 0 || k.KeepAliveX <= 0 ||
		k.Transfer == nil || k.TransferMBs <= 0 || k.Errors.Visitors != 400 || k.Errors.KeepAlive {
		t.Fatalf("kit: %+v", k)
	}
	srv := k.Server
	if srv == nil || srv.CPUMsPerRequest <= 0 || srv.WorkerLimit != 50 || srv.MaxBusyWorkers < 1 || srv.Groups["web"].PSSPeakKB <= 0 || srv.Groups["web"].CPUMs <= 0 {
		t.Fatalf("server: %+v", srv)
	}
	t.Logf("throughput %.0f rps, keep-alive %.1fx, transfer %.0f MB/s, web CPU %.0f ms, PSS %d kB, workers %d/%d",
		k.Throughput.RPS, k.KeepAliveX, k.TransferMBs, srv.Groups["web"].CPUMs, srv.Groups["web"].PSSPeakKB, srv.MaxBusyWorkers, srv.WorkerLimit)
}

func TestSrvstatCommandWritesJSONLines(t *testing.T) {
	code, out, stderr := runCLI(t, nil, "srvstat", "--count", "2", "--interval", "100ms", "--group", "go=cli.test")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ss, err := srvstat.Read(strings.NewReader(out))
	if err != nil || len(ss) != 2 {
		t.Fatalf("%d samples, %v\n%s", len(ss), err, out)
	}
	if ss[1].Groups["go"].Procs < 1 {
		t.Fatalf("this test process not in its group: %+v", ss[1].Groups)
	}
	if code, _, _ := runCLI(t, nil, "srvstat", "--group", "bad"); code != 2 {
		t.Fatalf("bad group: exit %d", code)
	}
}

// A kind of its own package is one of bench's scenarios, by its
// registration alone: the transfer kind downloads a large file per visitor
// count and says each count's transfer rate; an unknown scenario's error
// lists it among the kinds.
func TestBenchTransferScenario(t *testing.T) {
	s := testsrv.StartApache(t, testsrv.ApacheOptions{})
	code, out, stderr := runCLI(t, nil, "bench", "--scenario", "transfer", "-c", "1,2", "--duration", "400ms", "--warmup", "100ms", "--url", s.URL(testsrv.Large))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"c=1: transfer rate ", "c=2: transfer rate ", " MB/s\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if code, _, stderr := runCLI(t, nil, "bench", "--url", s.URL(testsrv.Large), "--scenario", "nope"); code != 2 || !strings.Contains(stderr, "kit, ab, browse or transfer") {
		t.Errorf("exit %d, %q: want 2 and the kinds, transfer among them", code, stderr)
	}
}
