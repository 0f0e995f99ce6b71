package testenv

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// What every bare host shares, kept for the machine across test runs.
const (
	bareCacheDir = "/var/cache/wptest"
	// AptCacherPort is where the machine's one apt-cacher-ng for bare hosts
	// listens (all addresses, so each host reaches it at its gateway). Not
	// 3142: that is the Debian service's own port.
	AptCacherPort = 3149
)

// BareSuiteEnv names the Debian release bare hosts are made from when a
// test does not choose one (BareHostsOn): "bookworm" (Debian 12, the
// default) or "trixie" (Debian 13; CI runs the bare-host tests on it).
// Each release's rootfs is cached on its own.
const BareSuiteEnv = "WPTEST_BARE_SUITE"

// bareSuites are the releases a bare host can be, by suite: the platform
// wptest's host facts make of them.
var bareSuites = map[string]string{"bookworm": "debian-12", "trixie": "debian-13"}

// BareSuite is the release bare hosts are made from by default
// ($WPTEST_BARE_SUITE, else bookworm); an unknown one fails the test.
func BareSuite(t testing.TB) string {
	t.Helper()
	s := os.Getenv(BareSuiteEnv)
	if s == "" {
		s = "bookworm"
	}
	if _, ok := bareSuites[s]; !ok {
		t.Fatalf("%s=%q: bare hosts are made from %s", BareSuiteEnv, s, strings.Join(sortedKeys(bareSuites), " or "))
	}
	return s
}

// BarePlatform is the platform (host facts, profiles) of a suite.
func BarePlatform(suite string) string { return bareSuites[suite] }

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// bareInclude is what the rootfs holds beyond debootstrap's minbase: what a
// fresh cloud image has that the tests need to reach and inspect it.
var bareInclude = []string{"openssh-server", "iproute2", "ca-certificates", "procps"}

// rootfsVersion changes whenever what ensureRootfs does to the debootstrap
// result changes, so an old cache is not reused.
const rootfsVersion = "1"

// debianMirrors reads this machine's apt sources for the Debian archive and
// its security archive, so bare hosts fetch from where this machine does
// (whatever release this machine runs: one archive holds every suite).
func debianMirrors() (archive, security string) {
	archive, security = "http://deb.debian.org/debian", "http://deb.debian.org/debian-security"
	var files []string
	if m, _ := filepath.Glob("/etc/apt/sources.list.d/*.sources"); m != nil {
		files = append(files, m...)
	}
	files = append(files, "/etc/apt/sources.list")
	foundA, foundS := false, false
	set := func(uri string, suites []string) {
		for _, s := range suites {
			release, sub, _ := strings.Cut(s, "-")
			if _, ok := bareSuites[release]; !ok {
				continue
			}
			switch {
			case sub == "" && !foundA:
				archive, foundA = strings.TrimSuffix(uri, "/"), true
			case sub == "security" && !foundS:
				security, foundS = strings.TrimSuffix(uri, "/"), true
			}
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if strings.HasSuffix(f, ".sources") {
			// deb822: stanzas of "Key: value" separated by blank lines.
			for _, st := range strings.Split(string(b), "\n\n") {
				kv := map[string]string{}
				for _, l := range strings.Split(st, "\n") {
					if k, v, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(l, "#") {
						kv[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
					}
				}
				for _, uri := range strings.Fields(kv["uris"]) {
					set(uri, strings.Fields(kv["suites"]))
				}
			}
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			f := strings.Fields(l)
			if len(f) >= 3 && f[0] == "deb" {
				if strings.HasPrefix(f[1], "[") { // deb [opts] uri suite
					for len(f) > 1 && !strings.HasSuffix(f[1], "]") {
						f = append(f[:1], f[2:]...)
					}
					f = append(f[:1], f[2:]...)
				}
				if len(f) >= 3 {
					set(f[1], f[2:3])
				}
			}
		}
	}
	return archive, security
}

// machineAptProxy is the HTTP proxy this machine's own apt uses, if any:
// apt-cacher-ng must go through it too.
func machineAptProxy() string {
	out, err := exec.Command("apt-config", "shell", "P", "Acquire::http::Proxy").Output()
	if err != nil {
		return ""
	}
	// Prints P='http://...'
	s := strings.TrimSpace(string(out))
	s = strings.TrimPrefix(s, "P=")
	return strings.Trim(s, "'\"")
}

// aptCacherConfig is the config of the machine's apt-cacher-ng for bare
// hosts: the Debian and security archives remapped to this machine's
// mirrors, everything under bareCacheDir.
func aptCacherConfig(dir string) map[string]string {
	archive, security := debianMirrors()
	conf := strings.Join([]string{
		"# Written by wptest's internal/testenv for its bare test hosts.",
		"CacheDir: " + filepath.Join(dir, "cache"),
		"LogDir: " + filepath.Join(dir, "log"),
		"SupportDir: /usr/lib/apt-cacher-ng",
		"Port: " + strconv.Itoa(AptCacherPort),
		"BindAddress: 0.0.0.0",
		"PidFile: " + filepath.Join(dir, "pid"),
		"SocketPath: " + filepath.Join(dir, "socket"),
		"UnbufferLogs: 1",
		"ReportPage: acng-report.html",
		"ExThreshold: 4",
		"Remap-debrep: file:deb_mirror*.gz /debian ; file:backends_debian",
		"Remap-secdeb: security.debian.org security.debian.org/debian-security deb.debian.org/debian-security /debian-security ; " + security,
	}, "\n") + "\n"
	if p := machineAptProxy(); p != "" {
		conf += "Proxy: " + p + "\n"
	}
	return map[string]string{
		"acng.conf":       conf,
		"backends_debian": archive + "/\n",
	}
}

// ensureAptCacher makes sure the machine's apt-cacher-ng for bare hosts
// runs (starting it once, under a lock, for every test process) and returns
// its log file. It is left running for later tests and runs: its cache is
// what makes a second `apt-get install` of a profile's packages fast.
func ensureAptCacher(t testing.TB) string {
	t.Helper()
	bin := NeedBinary(t, "apt-cacher-ng")
	dir := filepath.Join(bareCacheDir, "apt-cacher-ng")
	unlock, err := lockFile(filepath.Join(bareCacheDir, "apt-cacher-ng.lock"), syscall.LOCK_EX)
	if err != nil {
		t.Fatalf("bare hosts: %v", err)
	}
	defer unlock()
	conf := filepath.Join(dir, "conf")
	for _, d := range []string{conf, filepath.Join(dir, "cache"), filepath.Join(dir, "log")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatalf("bare hosts: %v", err)
		}
	}
	changed := false
	for name, body := range aptCacherConfig(dir) {
		p := filepath.Join(conf, name)
		if old, err := os.ReadFile(p); err == nil && string(old) == body {
			continue
		}
		changed = true
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatalf("bare hosts: %v", err)
		}
	}
	pidFile := filepath.Join(dir, "pid")
	running := aptCacherAnswers()
	if running && !changed {
		return filepath.Join(dir, "log", "apt-cacher.log")
	}
	if running {
		// Ours with an older config (this code changed): restart it.
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && procComm(pid) == "apt-cacher-ng" {
				_ = syscall.Kill(pid, syscall.SIGTERM)
				WaitFor(t, 30*time.Second, "the old apt-cacher-ng to exit", func() bool { return !processAlive(pid) })
			}
		}
	}
	startLog := filepath.Join(dir, "log", "start.log")
	lf, err := os.OpenFile(startLog, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatalf("bare hosts: %v", err)
	}
	defer lf.Close()
	// It daemonizes (ForeGround=0): its own session, and output to a file,
	// never to a pipe of ours that `go test` would wait on.
	cmd := exec.Command(bin, "-c", conf, "ForeGround=0")
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Run(); err != nil {
		t.Fatalf("bare hosts: start apt-cacher-ng: %v\n%s", err, readTail(startLog, 20))
	}
	if err := Poll(60*time.Second, aptCacherAnswers); err != nil {
		t.Fatalf("bare hosts: apt-cacher-ng did not answer on port %d:\n%s\n%s", AptCacherPort,
			readTail(startLog, 20), readTail(filepath.Join(dir, "log", "apt-cacher.err"), 20))
	}
	return filepath.Join(dir, "log", "apt-cacher.log")
}

// aptCacherAnswers reports whether apt-cacher-ng serves its report page on
// its port (and not some other program).
func aptCacherAnswers() bool {
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil}}
	resp, err := c.Get("http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(AptCacherPort)) + "/acng-report.html")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return strings.Contains(string(b), "Apt-Cacher NG")
}

// rootfsKey names the cached rootfs of suite by what makes it.
func rootfsKey(suite string) string {
	inc := append([]string(nil), bareInclude...)
	sort.Strings(inc)
	sum := sha256.Sum256([]byte(suite + " minbase " + strings.Join(inc, ",") + " v" + rootfsVersion))
	return suite + "-minbase-" + hex.EncodeToString(sum[:6])
}

// ensureRootfs returns the cached root filesystem of suite every bare host
// of that release starts from, building it with debootstrap (through
// apt-cacher-ng, so a rebuild downloads nothing) if no test process has
// yet. It is read-only from then on: hosts get an overlay of it.
func ensureRootfs(t testing.TB, suite string) string {
	t.Helper()
	dir := filepath.Join(bareCacheDir, "rootfs", rootfsKey(suite))
	if _, err := os.Stat(dir); err == nil {
		return dir
	}
	debootstrap := NeedBinary(t, "debootstrap")
	waited := time.Now()
	unlock, err := lockFile(filepath.Join(bareCacheDir, "rootfs.lock"), syscall.LOCK_EX)
	if err != nil {
		t.Fatalf("bare hosts: %v", err)
	}
	defer unlock()
	if _, err := os.Stat(dir); err == nil {
		t.Logf("bare hosts: waited %s for another test process to build the rootfs cache", time.Since(waited).Round(100*time.Millisecond))
		return dir
	}
	start := time.Now()
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil { // a build that was cut short
		t.Fatalf("bare hosts: %v", err)
	}
	// Fetched through apt-cacher-ng, which remaps the URL to this machine's mirror.
	args := []string{"--variant=minbase", "--include=" + strings.Join(bareInclude, ","), suite, tmp, "http://deb.debian.org/debian"}
	cmd := exec.Command(debootstrap, args...)
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"http_proxy=http://127.0.0.1:" + strconv.Itoa(AptCacherPort), "LC_ALL=C"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bare hosts: debootstrap %s: %v\n%s\n%s", strings.Join(args, " "), err, tail(out, 20),
			readTail(filepath.Join(tmp, "debootstrap", "debootstrap.log"), 30))
	}
	// What every host gets its own of is not shared: host keys (made per
	// host) and the machine's own resolver and name.
	for _, glob := range []string{"etc/ssh/ssh_host_*", "var/cache/apt/archives/*.deb", "var/lib/apt/lists/*_*"} {
		m, _ := filepath.Glob(filepath.Join(tmp, glob))
		for _, f := range m {
			if err := os.Remove(f); err != nil {
				t.Fatalf("bare hosts: %v", err)
			}
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		t.Fatalf("bare hosts: %v", err)
	}
	t.Logf("bare hosts: built the %s (%s) rootfs cache %s in %s (debootstrap minbase + %s)",
		BarePlatform(suite), suite, dir, time.Since(start).Round(100*time.Millisecond), strings.Join(bareInclude, ","))
	return dir
}

func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func readTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return path + ":\n" + tail(b, n)
}

// procComm is the command name of pid ("" if it is gone).
func procComm(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// processAlive reports whether pid exists and is not a zombie.
func processAlive(pid int) bool {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "State:"); ok {
			return !strings.HasPrefix(strings.TrimSpace(v), "Z")
		}
	}
	return false
}
