package srvstat

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
)

// A netns server and load generator with CPUs of their own (the netns
// driver's default split of this machine's CPUs) and a memory limit: this
// test binary, copied onto each, is the server (an HTTP server whose
// "kernel" requests each make many one-byte writes, kernel work, and whose
// "plain" ones do not) and the load generator (machineRole). Both are
// pinned to their own CPUs (taskset -p of their processes, their cgroups'
// cpuset.cpus) and limited in memory; the server's sampler, in the
// machine's cgroup namespace, counts its CPU from the machine's cgroup,
// and the kernel requests' extra CPU per request shows there, as system
// time, not user time.

const (
	machineRole  = "WPTEST_SRVSTAT_MACHINE" // "server" or "loadgen" in the copies
	machineReqs  = 200                      // requests of each kind
	kernelWrites = 3000                     // one-byte writes per kernel request
	goFile       = "/tmp/wptest-go"         // the copies wait for it before they exit
	machineMem   = 256 << 20
)

// machineResult is what the server copy prints: samples before the plain
// requests, between, and after the kernel ones, and the CPU per request
// Summarize makes of each window.
type machineResult struct {
	Samples          [3]Sample
	PlainMs, KernMs  float64
	PlainPct, KernPc float64
	// WritesMs: the writes' own CPU per kernel request, by the writing
	// thread's CPU clock (its kernel time included).
	WritesMs float64
}

func TestMachineCPUFromCgroup(t *testing.T) {
	switch os.Getenv(machineRole) {
	case "server":
		machineServer(t)
		return
	case "loadgen":
		machineLoad(t)
		return
	}
	srvCPUs, loadCPUs := testenv.SplitCPUs(t)
	hs := testenv.BareHostsLimited(t, testenv.BareSpec{Name: "server", CPUs: srvCPUs, Memory: machineMem},
		testenv.BareSpec{Name: "loadgen", CPUs: loadCPUs, Memory: machineMem})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	exe, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	var hosts []host.Host
	for i, want := range [][]int{srvCPUs, loadCPUs} {
		checkLimits(t, hs[i], testenv.CPUList(want))
		// A fresh machine, nothing of it ran yet: no link planted there.
		if err := os.WriteFile(filepath.Join(hs[i].Root, "usr/local/bin/srvstat.test"), exe, 0o755); err != nil {
			t.Fatal(err)
		}
		hosts = append(hosts, openHost(t, hs[i]))
	}
	// Each copy is started in the background, its affinity and cgroup
	// read while it waits for goFile, then let go.
	run := func(h host.Host, role string, out io.Writer) error {
		_, err := h.Run(ctx, host.Cmd{Label: role, Timeout: 4 * time.Minute, Stdout: out, Script: `rm -f ` + goFile + `
` + machineRole + `=` + role + ` /usr/local/bin/srvstat.test -test.run='^TestMachineCPUFromCgroup$' -test.v >/tmp/out 2>&1 & p=$!
echo "TASKSET $(taskset -pc $p)"
echo "CGROUP $(grep -E ':cpuset:|^0::' /proc/$p/cgroup | tr '\n' ' ')"
echo "CPUSET $(cat /sys/fs/cgroup/cpuset/cpuset.cpus /sys/fs/cgroup/cpuset.cpus 2>/dev/null)"
echo "RO $(echo 0 2>&1 >/sys/fs/cgroup/cpuset/cpuset.cpus || echo refused)"
touch ` + goFile + `
wait $p; rc=$?; cat /tmp/out; exit $rc`})
		return err
	}
	var srvOut testenv.SyncBuffer
	srvDone := make(chan error, 1)
	go func() { srvDone <- run(hosts[0], "server", &srvOut) }()
	testenv.WaitFor(t, time.Minute, "the server copy to listen on :8080", func() bool {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(hs[0].IP, "8080"), time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	var loadOut testenv.SyncBuffer
	if err := run(hosts[1], "loadgen", &loadOut); err != nil {
		t.Fatalf("load generator: %v\n%s", err, loadOut.String())
	}
	if err := <-srvDone; err != nil {
		t.Fatalf("server: %v\n%s", err, srvOut.String())
	}
	checkPinned(t, "server", srvOut.String(), srvCPUs)
	checkPinned(t, "load generator", loadOut.String(), loadCPUs)
	checkKernelTime(t, srvOut.String())
}

// checkLimits reads the host's cgroups on this machine: its cpuset is
// want, its memory limit machineMem.
func checkLimits(t *testing.T, h *testenv.BareHost, want string) {
	t.Helper()
	found := map[string]string{}
	for _, cg := range h.Cgroups() {
		for _, f := range []string{"cpuset.cpus", "memory.limit_in_bytes", "memory.max"} {
			if b, err := os.ReadFile(filepath.Join(cg, f)); err == nil {
				found[strings.TrimSuffix(f, "limit_in_bytes")] = strings.TrimSpace(string(b))
				t.Logf("%s: %s/%s = %s", h.Name, cg, f, strings.TrimSpace(string(b)))
			}
		}
	}
	mem := found["memory."]
	if mem == "" {
		mem = found["memory.max"]
	}
	if found["cpuset.cpus"] != want || mem != strconv.Itoa(machineMem) {
		t.Errorf("%s: cgroups %v: cpuset.cpus %q, memory limit %q; want %q and %d", h.Name, h.Cgroups(), found["cpuset.cpus"], mem, want, machineMem)
	}
}

// checkPinned reads what the copy's shell printed: taskset -p of the
// copy's process, the cpuset.cpus its machine sees, and that the machine
// cannot change it.
func checkPinned(t *testing.T, who, out string, cpus []int) {
	t.Helper()
	want := testenv.CPUList(cpus)
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "TASKSET ") || strings.HasPrefix(l, "CPUSET ") || strings.HasPrefix(l, "CGROUP ") || strings.HasPrefix(l, "RO ") {
			t.Logf("%s: %s", who, l)
		}
	}
	if !strings.Contains(out, "current affinity list: "+want+"\n") {
		t.Errorf("%s: taskset -p of its process does not say %q:\n%s", who, want, out)
	}
	if !strings.Contains(out, "\nCPUSET "+want+"\n") {
		t.Errorf("%s: the machine's /sys/fs/cgroup cpuset.cpus is not %q:\n%s", who, want, out)
	}
	if !strings.Contains(out, "\nRO ") || !strings.Contains(out, "refused") {
		t.Errorf("%s: the machine could write its own cpuset.cpus:\n%s", who, out)
	}
}

// checkKernelTime: the server's CPU came from its cgroup, and the kernel
// requests' extra CPU per request is system time, not user time.
func checkKernelTime(t *testing.T, out string) {
	t.Helper()
	_, js, ok := strings.Cut(out, "RESULT ")
	var r machineResult
	if !ok || json.Unmarshal([]byte(strings.SplitN(js, "\n", 2)[0]), &r) != nil {
		t.Fatalf("no RESULT line from the server copy:\n%s", out)
	}
	s := r.Samples
	for i := range s {
		if s[i].Machine == nil {
			t.Fatalf("sample %d has no machine CPU from its cgroup:\n%s", i, out)
		}
	}
	d := func(f func(*MachineCPU) float64, a, b int) float64 {
		return (f(s[b].Machine) - f(s[a].Machine)) * 1000 / machineReqs
	}
	usage := func(m *MachineCPU) float64 { return m.UsageS }
	user := func(m *MachineCPU) float64 { return m.UserS }
	sys := func(m *MachineCPU) float64 { return m.SystemS }
	extra, extraUser, extraSys := d(usage, 1, 2)-d(usage, 0, 1), d(user, 1, 2)-d(user, 0, 1), d(sys, 1, 2)-d(sys, 0, 1)
	t.Logf("server (%s): CPU per request, plain %.3f ms (user %.3f, system %.3f), %d one-byte writes %.3f ms (user %.3f, system %.3f; the writes themselves %.3f); %+.3f ms (user %+.3f, system %+.3f); Summarize: %.3f and %.3f ms, %.1f%% and %.1f%% of its CPUs",
		s[0].Machine.From, d(usage, 0, 1), d(user, 0, 1), d(sys, 0, 1), kernelWrites, d(usage, 1, 2), d(user, 1, 2), d(sys, 1, 2), r.WritesMs,
		extra, extraUser, extraSys, r.PlainMs, r.KernMs, r.PlainPct, r.KernPc)
	if r.PlainMs != d(usage, 0, 1) || r.KernMs != d(usage, 1, 2) {
		t.Errorf("Summarize's CPU per request %.4f and %.4f ms are not the cgroup's %.4f and %.4f", r.PlainMs, r.KernMs, d(usage, 0, 1), d(usage, 1, 2))
	}
	// The writes are kernel work, all of it inside the kernel requests'
	// window: the machine figure holds it (one kernel counter, the
	// scheduler's, under both), and the plain requests' has none of it.
	// (The user/system split is not asserted: with tick-based accounting
	// it is which mode each timer tick found the CPU in.)
	if r.WritesMs <= 0 || r.KernMs < r.WritesMs || r.PlainMs > r.WritesMs/2 {
		t.Errorf("CPU per request: plain %.3f ms, kernel %.3f ms, the kernel requests' writes %.3f ms: want the writes inside the kernel figure and not the plain one", r.PlainMs, r.KernMs, r.WritesMs)
	}
}

// machineServer is the server copy: samples, then machineReqs plain and
// machineReqs kernel requests, samples between and after, prints RESULT.
func machineServer(t *testing.T) {
	s := New(Config{NoPSS: true})
	var res machineResult
	sample := func(i int) {
		smp, err := s.Sample(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		res.Samples[i] = smp
	}
	devnull, err := syscall.Open("/dev/null", syscall.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan string, 2*machineReqs)
	b := []byte{0}
	mux := http.NewServeMux()
	var plain atomic.Int64
	var writes atomic.Int64
	sampled := make(chan struct{})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		served <- "plain"
		if plain.Add(1) == machineReqs {
			<-sampled // no kernel request before the sample between
		}
	})
	mux.HandleFunc("/kernel", func(w http.ResponseWriter, r *http.Request) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		t0 := threadCPU()
		for range kernelWrites {
			syscall.Write(devnull, b)
		}
		writes.Add(int64(threadCPU() - t0))
		served <- "kernel"
	})
	sample(0)
	ln, err := net.Listen("tcp", ":8080")
	if err != nil {
		t.Fatal(err)
	}
	go http.Serve(ln, mux)
	for i := range 2 * machineReqs {
		<-served
		if i == machineReqs-1 {
			sample(1)
			close(sampled)
		}
	}
	sample(2)
	res.WritesMs = float64(writes.Load()) / 1e6 / machineReqs
	for i, a := range []int{0, 1} {
		srv, err := Summarize(res.Samples[a:a+2], time.Unix(0, int64(res.Samples[a].Unix*1e9)), time.Unix(0, int64(res.Samples[a+1].Unix*1e9)), machineReqs, 0)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			res.PlainMs, res.PlainPct = srv.CPUMsPerRequest, srv.CPUBusyPct
		} else {
			res.KernMs, res.KernPc = srv.CPUMsPerRequest, srv.CPUBusyPct
		}
	}
	js, _ := json.Marshal(res)
	fmt.Printf("RESULT %s\n", js)
	waitGo(t)
}

// machineLoad is the load generator copy: the plain requests, then the
// kernel ones, one at a time.
func machineLoad(t *testing.T) {
	c := &http.Client{Timeout: time.Minute}
	for _, path := range []string{"/plain", "/kernel"} {
		for range machineReqs {
			resp, err := c.Get("http://server:8080" + path)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, bufio.NewReader(resp.Body))
			resp.Body.Close()
		}
	}
	waitGo(t)
}

// waitGo waits until the shell that started the copy has read its
// affinity and cgroups.
func waitGo(t *testing.T) {
	testenv.WaitFor(t, time.Minute, goFile, func() bool { _, err := os.Stat(goFile); return err == nil })
}

func openHost(t *testing.T, bh *testenv.BareHost) host.Host {
	t.Helper()
	tg, err := host.ParseTarget(bh.Target)
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Open(context.Background(), tg, host.Options{Name: bh.Name, KnownHostsFile: bh.KnownHosts, IdentityFile: bh.Identity})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}
