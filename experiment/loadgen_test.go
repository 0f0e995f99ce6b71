package experiment

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"github.com/wptest/wptest/results"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/provision/cloud"
)

// peerServer is an HTTP server on addr that records which address every
// request came from.
type peerServer struct {
	URL   string
	mu    sync.Mutex
	peers map[string]int64
}

func startPeerServer(t *testing.T, addr string) *peerServer {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
	if err != nil {
		t.Fatal(err)
	}
	ps := &peerServer{URL: "http://" + ln.Addr().String(), peers: map[string]int64{}}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, _, _ := net.SplitHostPort(r.RemoteAddr)
		ps.mu.Lock()
		ps.peers[h]++
		ps.mu.Unlock()
		w.Write([]byte("hello from the server"))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ps
}

func (ps *peerServer) seen() map[string]int64 {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	m := map[string]int64{}
	for k, v := range ps.peers {
		m[k] = v
	}
	return m
}

func (ps *peerServer) reset() {
	ps.mu.Lock()
	ps.peers = map[string]int64{}
	ps.mu.Unlock()
}

func buildExe(t *testing.T) string {
	t.Helper()
	testenv.Integration(t) // its callers go on to a network namespace: not a build for nothing
	return testenv.WptestBinary(t)
}

// loadHostInNamespace starts a real sshd in a network namespace of its own
// (its own address, 10.213.X.2) as the load generator machine, pinned in
// runDir's known_hosts like a machine the run made.
func loadHostInNamespace(t *testing.T, runDir string) (*testenv.NetNS, cloud.Machine) {
	t.Helper()
	ns := testenv.NewNetNS(t)
	hostKey, err := cloud.NewKeyPair(nil, "loadgen-1")
	if err != nil {
		t.Fatal(err)
	}
	client, err := cloud.ClientKey(runDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ns.StartSSHD(t, []string{hostKey.PrivatePEM}, []string{client.Public})
	m := cloud.Machine{Name: "loadgen-1", Role: cloud.RoleLoadGen, Driver: "static", Address: ns.NSIP, Port: 22, User: "root", HostKey: hostKey.Public}
	if err := cloud.WriteKnownHosts(filepath.Join(runDir, cloud.KnownHostsFile), []cloud.Machine{m}); err != nil {
		t.Fatal(err)
	}
	return ns, m
}

// The load comes from the load generator machine: the runner picks it from
// the machines list, installs this build there over SSH and runs each job
// with it. The server sees every request arrive from the load host's own
// address (a namespace with its own network stack, reached only through
// SSH), the results come back through SSH with every attempt in a bucket,
// and the job's progress is in the run log under the machine's name.
func TestRemoteLoadComesFromTheLoadMachine(t *testing.T) {
	exe := buildExe(t)
	runDir := t.TempDir()
	ns, lm := loadHostInNamespace(t, runDir)
	srv := startPeerServer(t, ns.HostIP)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	log := &testenv.SyncBuffer{}
	r := &runner{dir: runDir, opt: Options{Exe: exe, Log: log}, man: &results.Manifest{}}
	// Local load generators (the local driver's) are this process.
	if lg, err := r.loadGenerator(ctx, []cloud.Machine{{Name: "local", Role: cloud.RoleServer, Local: true},
		{Name: "local-loadgen-1", Role: cloud.RoleLoadGen, Local: true}}); err != nil || lg.Name() != LocalLoadHost {
		t.Fatalf("local machines: %v %v", lg, err)
	}
	lg, err := r.loadGenerator(ctx, []cloud.Machine{{Name: "server", Role: cloud.RoleServer, Address: "203.0.113.7"}, lm})
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	rl, ok := lg.(*remoteLoad)
	if !ok || lg.Name() != "loadgen-1" || rl.exe != AgentPath {
		t.Fatalf("load generator %T %q", lg, lg.Name())
	}
	// The uploaded binary is this build (the namespace shares the file system).
	want, _ := os.ReadFile(exe)
	got, err := os.ReadFile(AgentPath)
	if err != nil || sha256.Sum256(got) != sha256.Sum256(want) {
		t.Fatalf("%s is not the build under test: %v", AgentPath, err)
	}
	if !strings.Contains(log.String(), "[loadgen-1] wptest load generator ("+AgentPath+"): ") {
		t.Fatalf("install not logged:\n%s", log.String())
	}

	onlyFromLoadHost := func(what string, attempts int64) {
		t.Helper()
		seen := srv.seen()
		if len(seen) != 1 || seen[ns.NSIP] < attempts || attempts == 0 {
			t.Fatalf("%s: the server saw requests from %v, want only from the load host %s (at least %d)", what, seen, ns.NSIP, attempts)
		}
		srv.reset()
	}
	sums := func(what string, runs ...result.Run) {
		t.Helper()
		for _, r := range runs {
			if r.Outcomes.Sum() != r.Attempts || r.Outcomes.OK == 0 {
				t.Fatalf("%s %s: outcomes %+v do not sum to %d attempts, or none ok", what, r.Name, r.Outcomes, r.Attempts)
			}
		}
	}

	run, err := lgRun(ctx, lg, benchgen.Config{Name: "c=3", URL: srv.URL + "/", Visitors: 3, KeepAlive: true,
		Duration: time.Second, Warmup: 200 * time.Millisecond, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	sums("run", run)
	if run.ClientCPUMs <= 0 {
		t.Fatalf("no client CPU in the result: %+v", run)
	}
	onlyFromLoadHost("run", run.Attempts+run.WarmupAttempts)
	l := log.String()
	for _, w := range []string{"[loadgen-1] bench-job run c=3: " + srv.URL + "/ on ", "(" + AgentPath + ", pid ", "[loadgen-1] bench-job run c=3: done after"} {
		if !strings.Contains(l, w) {
			t.Fatalf("run log lacks %q:\n%s", w, l)
		}
	}

	base := benchgen.Config{URL: srv.URL + "/", KeepAlive: true, Duration: 400 * time.Millisecond, Timeout: 5 * time.Second}
	cr, err := lgCrowd(ctx, lg, benchgen.CrowdConfig{Base: base, Visitors: 4, ClickEvery: 100 * time.Millisecond, ProbeEvery: 50 * time.Millisecond,
		GiveUp: 3 * time.Second, Warmup: 100 * time.Millisecond, Duration: 400 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	sums("crowd", cr.Background)
	if len(cr.Probes) != 8 || cr.ProbeOutcomes.OK != 8 || cr.ClientRSSKB <= 0 {
		t.Fatalf("crowd: %d probes, outcomes %+v, rss %d", len(cr.Probes), cr.ProbeOutcomes, cr.ClientRSSKB)
	}
	onlyFromLoadHost("crowd", cr.Background.Attempts+8)

	k, err := lgKit(ctx, lg, benchgen.KitConfig{Base: base, Concurrency: 2, Levels: []int{1, 2}, ErrorClients: 3})
	if err != nil {
		t.Fatal(err)
	}
	sums("kit", append([]result.Run{k.Throughput, k.KeepAliveOff, k.Errors}, k.Scaling...)...)
	if len(k.Scaling) != 2 || k.Errors.Visitors != 3 || k.Startup != nil {
		t.Fatalf("kit: %+v", k)
	}
	onlyFromLoadHost("kit", k.Throughput.Attempts)
	// Each of the kit's runs carries the load generator's CPU, as a run
	// does, so results.BenchLimit judges a kit point on it.
	for _, r := range append([]result.Run{k.Throughput, k.KeepAliveOff, k.Errors}, k.Scaling...) {
		if r.ClientCPUs < 1 || r.ClientCPUMs <= 0 || r.Bytes.WireIn <= 0 || r.Bytes.WireOut <= 0 {
			t.Fatalf("kit %s: the load generator's CPU %d CPUs, %.2f ms; wire in/out %d/%d", r.Name, r.ClientCPUs, r.ClientCPUMs, r.Bytes.WireIn, r.Bytes.WireOut)
		}
	}

	// The startup job's restart command runs on that machine, in its
	// network namespace.
	marker := filepath.Join(t.TempDir(), "restart")
	st, err := rl.Startup(ctx, base, "ip -4 -o addr show >> "+host.Quote(marker), 2)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(marker); len(st.Rounds) != 2 || strings.Count(string(b), " "+ns.NSIP+"/30 ") != 2 {
		t.Fatalf("startup %+v; the restart saw:\n%s", st, b)
	}
}

// A job that fails says which machine, which step and what it printed.
func TestRemoteLoadErrorsNameHostStepAndOutput(t *testing.T) {
	exe := buildExe(t)
	runDir := t.TempDir()
	_, lm := loadHostInNamespace(t, runDir)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r := &runner{dir: runDir, opt: Options{Exe: exe, Log: &testenv.SyncBuffer{}}, man: &results.Manifest{}}
	lg, err := r.loadGenerator(ctx, []cloud.Machine{lm})
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	rl := lg.(*remoteLoad)

	check := func(what string, err error, wants ...string) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error", what)
		}
		for _, w := range wants {
			if !strings.Contains(err.Error(), w) {
				t.Fatalf("%s: error lacks %q:\n%v", what, w, err)
			}
		}
	}
	_, err = lgRun(ctx, lg, benchgen.Config{Name: "c=1", URL: "ftp://nowhere/", Duration: time.Second})
	check("bad URL", err, "load generator loadgen-1", "bench-job run c=1", "exit status 6", `url "ftp://nowhere/"`)

	missing := &remoteLoad{h: rl.h, name: "loadgen-1", exe: "/nonexistent/wptest"}
	_, err = lgRun(ctx, missing, benchgen.Config{Name: "c=1", URL: "http://127.0.0.1/", Duration: time.Second})
	check("binary missing", err, "load generator loadgen-1", "bench-job run c=1", "exit status 127", "/nonexistent/wptest: not found")

	// A binary that answers something else than a result.
	echo := &remoteLoad{h: rl.h, name: "loadgen-1", exe: "/bin/echo"}
	_, err = lgKit(ctx, echo, benchgen.KitConfig{Base: benchgen.Config{Name: "kit", URL: "http://127.0.0.1/", Duration: time.Second}})
	check("not a result", err, "load generator loadgen-1", "bench-job kit kit", "not a result", "bench-job")

	// Functions cannot cross: refused before anything runs.
	_, err = lgKit(ctx, lg, benchgen.KitConfig{Base: benchgen.Config{URL: "http://127.0.0.1/", Duration: time.Second},
		Restart: func(context.Context) error { return nil }})
	check("kit with Restart", err, "Restart")

	// No binary to install: never silently load from here instead.
	r.opt.Exe = ""
	_, err = r.loadGenerator(ctx, []cloud.Machine{lm})
	check("no Exe", err, "load generator loadgen-1", "no wptest binary")
}

func TestLoopbackURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://203.0.113.7:8080/a?b=1": "http://127.0.0.1:8080/a?b=1",
		"https://[2001:db8::1]/x":       "https://127.0.0.1:443/x",
		"http://example.org/":           "http://127.0.0.1:80/",
	} {
		if got, err := loopbackURL(in); err != nil || got != want {
			t.Errorf("loopbackURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, a := range []string{"127.0.0.1", "::1", "localhost", "127.1.2.3"} {
		if !isLoopback(a) {
			t.Errorf("%s: not loopback", a)
		}
	}
	if isLoopback("10.213.4.2") || isLoopback("example.org") {
		t.Error("a remote address counted as loopback")
	}
}

// A load machine is refused only when the binary given for it is not built
// for its arch, as its ELF header says: an --agent build for another arch
// than this wptest's is what such a machine needs.
func TestCheckArch(t *testing.T) {
	self, err := os.Executable() // this test binary: linux, runtime.GOARCH
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	arm := filepath.Join(dir, "wptest-arm64")
	writeELFHeader(t, arm, elf.EM_AARCH64)
	text := filepath.Join(dir, "not-elf")
	if err := os.WriteFile(text, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	other := map[string]string{"amd64": "aarch64", "arm64": "x86_64"}[runtime.GOARCH]
	for _, c := range []struct {
		arch, exe, want string
	}{
		{runtime.GOARCH, self, ""},
		{other, self, "give a linux/" + host.Facts{Arch: other}.GoArch() + " build (--agent)"},
		{"aarch64", arm, ""},
		{"x86_64", arm, "built for EM_AARCH64"},
		{"riscv64", self, ""},
		{"x86_64", text, "is not a Linux executable"},
	} {
		err := checkArch("loadgen-1", host.Facts{Arch: c.arch}, c.exe)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "loadgen-1")) {
			t.Errorf("%s on %s: %v, want %q", filepath.Base(c.exe), c.arch, err, c.want)
		}
	}
}

// writeELFHeader writes a bare ELF64 executable header for machine m.
func writeELFHeader(t *testing.T, path string, m elf.Machine) {
	t.Helper()
	h := elf.Header64{Type: uint16(elf.ET_EXEC), Machine: uint16(m), Version: uint32(elf.EV_CURRENT), Ehsize: 64, Phentsize: 56, Shentsize: 64}
	copy(h.Ident[:], elf.ELFMAG)
	h.Ident[elf.EI_CLASS], h.Ident[elf.EI_DATA], h.Ident[elf.EI_VERSION] = byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)
	var b bytes.Buffer
	if err := binary.Write(&b, binary.LittleEndian, h); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o755); err != nil {
		t.Fatal(err)
	}
}

// lgRun, lgCrowd and lgKit run a job of their kind on lg.
func lgRun(ctx context.Context, lg loadGen, cfg benchgen.Config) (result.Run, error) {
	j, err := benchgen.NewRunJob(cfg)
	if err != nil {
		return result.Run{}, err
	}
	res, err := lg.Do(ctx, j)
	if err != nil {
		return result.Run{}, err
	}
	return *res.Run, nil
}

func lgCrowd(ctx context.Context, lg loadGen, cc benchgen.CrowdConfig) (result.Crowd, error) {
	j, err := benchgen.NewCrowdJob(cc)
	if err != nil {
		return result.Crowd{}, err
	}
	res, err := lg.Do(ctx, j)
	if err != nil {
		return result.Crowd{}, err
	}
	return *res.Crowd, nil
}

func lgKit(ctx context.Context, lg loadGen, kc benchgen.KitConfig) (result.Kit, error) {
	j, err := benchgen.NewKitJob(kc)
	if err != nil {
		return result.Kit{}, err
	}
	res, err := lg.Do(ctx, j)
	if err != nil {
		return result.Kit{}, err
	}
	return *res.Kit, nil
}
