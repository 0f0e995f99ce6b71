package machine

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
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
	"time"

	"github.com/wptest/wptest/internal/flock"
	"github.com/wptest/wptest/internal/subnet"
)

// What every machine shares, kept on this host across runs: the rootfs of
// each release (built once by debootstrap), the images baked on it
// (image.go) and the apt-cacher-ng that caches every package a machine
// installs. UseCache moves them.
var (
	CacheDir = "/var/cache/wptest"
	// AptCacherPort is where the host's one apt-cacher-ng for these
	// machines listens. Not 3142: that is the Debian service's own port.
	AptCacherPort = 3149
	// AptCacherLog is the log of the host's apt-cacher-ng: a line per file
	// it served, naming the machine's address.
	AptCacherLog = filepath.Join(CacheDir, "apt-cacher-ng", "log", "apt-cacher.log")
)

// DefaultAptCacherPort is AptCacherPort unless UseCache moved it.
const DefaultAptCacherPort = 3149

// UseCache makes this process keep its machines' cache (rootfs, images,
// machines' state, apt-cacher-ng) in dir and run that apt-cacher-ng on
// aptPort: a second set beside the usual one, which neither sees nor
// restarts the other (a measurement from an empty cache, as a fresh host
// has it). Call it before any machine is made.
func UseCache(dir string, aptPort int) {
	CacheDir, AptCacherPort = dir, aptPort
	AptCacherLog = filepath.Join(CacheDir, "apt-cacher-ng", "log", "apt-cacher.log")
	hostsDir = filepath.Join(CacheDir, "hosts")
}

const (
	// AptCacherAddr is the only address it listens on: a /32 this host
	// keeps on its loopback device (label AptCacherLabel), which each
	// machine routes via its link's Gateway. Never a wildcard or public
	// address: on a host with a public address that would be an open
	// proxy to strangers.
	AptCacherAddr = subnet.ServiceAddr
	// AptCacherLabel names that address in `ip addr`, so a user sees whose it is.
	AptCacherLabel = "lo:wptest-acng"
)

// Suites are the Debian releases a machine can be, by suite: the platform
// wptest's host facts make of them (and the image names the machines
// block takes).
var Suites = map[string]string{"bookworm": "debian-12", "trixie": "debian-13"}

// Platform is the platform (host facts, profiles) of a suite, "" if unknown.
func Platform(suite string) string { return Suites[suite] }

// SuiteOf reads a machines block's image: a platform ("debian-13") or a
// suite ("trixie").
func SuiteOf(image string) (string, error) {
	if _, ok := Suites[image]; ok {
		return image, nil
	}
	for s, p := range Suites {
		if p == image {
			return s, nil
		}
	}
	return "", fmt.Errorf("image %q: want debian-12 (bookworm) or debian-13 (trixie)", image)
}

// include is what the rootfs holds beyond debootstrap's minbase: what a
// fresh cloud image has that wptest needs to reach and inspect it.
var include = []string{"openssh-server", "iproute2", "ca-certificates", "procps"}

// rootfsVersion changes whenever what ensureRootfs does to the debootstrap
// result changes, so an old cache is not reused.
const rootfsVersion = "2"

// dpkgConfig is the rootfs's dpkg configuration: a machine here lives as
// long as its run, as a container does. dpkg does not sync each file it
// unpacks (force-unsafe-io: a crash loses the machine anyway; a baked
// image is synced before it is marked ready), and
// unpacks no manuals, info pages or docs but their copyright files, so
// man-db's trigger after each install has no pages to index. What a
// profile installs and configures is the same.
const dpkgConfig = `# wptest netns machine: lives as long as its run (wptest rootfs.go, dpkgConfig)
force-unsafe-io
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/doc/*
path-include=/usr/share/doc/*/copyright
`

// debianMirrors reads this host's apt sources for the Debian archive and
// its security archive, so machines fetch from where this host does
// (whatever release it runs: one archive holds every suite).
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
			if _, ok := Suites[release]; !ok {
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

// hostAptProxy is the HTTP proxy this host's own apt uses, if any:
// apt-cacher-ng must go through it too.
func hostAptProxy() string {
	out, err := exec.Command("apt-config", "shell", "P", "Acquire::http::Proxy").Output()
	if err != nil {
		return ""
	}
	// Prints P='http://...'
	s := strings.TrimSpace(string(out))
	s = strings.TrimPrefix(s, "P=")
	return strings.Trim(s, "'\"")
}

// aptCacherConfig is the config of the host's apt-cacher-ng: the Debian
// and security archives remapped to this host's mirrors, everything under
// dir. It fetches from those mirrors and nothing else (ForceManaged: a URL
// no Remap names is refused, whichever host it names, this host's own
// loopback included; no CONNECT tunnel, no redirect followed, no SOAP
// pass-through): a machine must not reach through it what this host
// keeps to itself.
func aptCacherConfig(dir string) map[string]string {
	archive, security := debianMirrors()
	conf := strings.Join([]string{
		"# Written by wptest (provision/cloud/netns) for its machines on this host.",
		"CacheDir: " + filepath.Join(dir, "cache"),
		"LogDir: " + filepath.Join(dir, "log"),
		"SupportDir: /usr/lib/apt-cacher-ng",
		"Port: " + strconv.Itoa(AptCacherPort),
		"BindAddress: " + AptCacherAddr,
		"PidFile: " + filepath.Join(dir, "pid"),
		"SocketPath: " + filepath.Join(dir, "socket"),
		"UnbufferLogs: 1",
		"ReportPage: acng-report.html",
		"ExThreshold: 4",
		"Remap-debrep: file:deb_mirror*.gz /debian ; file:backends_debian",
		"Remap-secdeb: security.debian.org security.debian.org/debian-security deb.debian.org/debian-security /debian-security ; " + security,
		"ForceManaged: 1",
		// A CONNECT target is host:port, never empty: no tunnel anywhere.
		"PassThroughPattern: ^$",
		"RedirMax: 0",
		"ForwardBtsSoap: 0",
	}, "\n") + "\n"
	if p := hostAptProxy(); p != "" {
		conf += "Proxy: " + p + "\n"
	}
	return map[string]string{
		"acng.conf":       conf,
		"backends_debian": archive + "/\n",
	}
}

// ensureAptCacher makes sure the host's apt-cacher-ng for these machines
// runs (starting it once, under a lock, for every process). It is left
// running: its cache is what makes a second `apt-get install` of a
// profile's packages fast.
func ensureAptCacher(ctx context.Context) error {
	bin, err := exec.LookPath("apt-cacher-ng")
	if err != nil {
		return fmt.Errorf("apt-cacher-ng: %w", err)
	}
	dir := filepath.Join(CacheDir, "apt-cacher-ng")
	unlock, err := flock.Take(filepath.Join(CacheDir, "apt-cacher-ng.lock"), syscall.LOCK_EX)
	if err != nil {
		return err
	}
	defer unlock()
	// The address first: apt-cacher-ng binds it, and the health check
	// dials it.
	if err := ensureAptCacherAddr(); err != nil {
		return err
	}
	conf := filepath.Join(dir, "conf")
	changed, err := writeAptCacherConfig(dir, conf)
	if err != nil {
		return err
	}
	pidFile := filepath.Join(dir, "pid")
	running := aptCacherAnswers()
	// An apt-cacher-ng an older build started listened on 0.0.0.0: it
	// answers at AptCacherAddr too, but must not stay.
	stray := strayListeners()
	if running && !changed && len(stray) == 0 {
		return nil
	}
	if running || len(stray) > 0 {
		// Ours with an older config (this code changed): restart it.
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && procComm(pid) == "apt-cacher-ng" {
				_ = syscall.Kill(pid, syscall.SIGTERM)
				if err := poll(ctx, 30*time.Second, func() bool { return !processAlive(pid) }); err != nil {
					return fmt.Errorf("the old apt-cacher-ng (pid %d) did not exit", pid)
				}
			}
		}
	}
	if stray := strayListeners(); len(stray) > 0 {
		return fmt.Errorf("port %d is held by a program that is not wptest's apt-cacher-ng (listening on %s): stop it",
			AptCacherPort, strings.Join(stray, ", "))
	}
	startLog := filepath.Join(dir, "log", "start.log")
	lf, err := os.OpenFile(startLog, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer lf.Close()
	// It daemonizes (ForeGround=0): its own session, and output to a file,
	// never to a pipe of ours that a caller would wait on.
	cmd := exec.Command(bin, "-c", conf, "ForeGround=0")
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("start apt-cacher-ng: %v\n%s", err, readTail(startLog, 20))
	}
	if err := poll(ctx, 60*time.Second, aptCacherAnswers); err != nil {
		return fmt.Errorf("apt-cacher-ng did not answer at %s:%d:\n%s\n%s", AptCacherAddr, AptCacherPort,
			readTail(startLog, 20), readTail(filepath.Join(dir, "log", "apt-cacher.err"), 20))
	}
	return nil
}

// writeAptCacherConfig writes the config into conf unless it is there
// (changed: it was not), and prunes the cache of what an older config let
// in: any host's files, this host's loopback among them, must not be
// served from it either.
func writeAptCacherConfig(dir, conf string) (changed bool, err error) {
	for _, d := range []string{conf, filepath.Join(dir, "cache"), filepath.Join(dir, "log")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return false, err
		}
	}
	for name, body := range aptCacherConfig(dir) {
		p := filepath.Join(conf, name)
		if old, err := os.ReadFile(p); err == nil && string(old) == body {
			continue
		}
		changed = true
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return false, err
		}
	}
	return changed, pruneUnmanaged(filepath.Join(dir, "cache"))
}

// managedCache are the cache's own directories: the remapped archives
// (Remap-debrep, Remap-secdeb) and apt-cacher-ng's internal ones ("_...").
// Anything else in it was fetched by URL from another host.
var managedCache = map[string]bool{"debrep": true, "secdeb": true}

// pruneUnmanaged removes from apt-cacher-ng's cache what no Remap names.
func pruneUnmanaged(cache string) error {
	es, err := os.ReadDir(cache)
	if err != nil {
		return nil // none yet
	}
	for _, e := range es {
		if managedCache[e.Name()] || strings.HasPrefix(e.Name(), "_") {
			continue
		}
		if err := os.RemoveAll(filepath.Join(cache, e.Name())); err != nil {
			return fmt.Errorf("apt-cacher-ng cache: %w", err)
		}
	}
	return nil
}

// ensureAptCacherAddr puts AptCacherAddr/32 on this host's loopback device
// unless it is there. Loopback, not a dummy device: every kernel has it. It
// is kept, like apt-cacher-ng itself.
func ensureAptCacherAddr() error {
	has := func() bool {
		out, _ := exec.Command("ip", "-o", "-4", "addr", "show", "dev", "lo").Output()
		return strings.Contains(string(out), " "+AptCacherAddr+"/32 ")
	}
	if has() {
		return nil
	}
	if err := ip("addr", "add", AptCacherAddr+"/32", "dev", "lo", "label", AptCacherLabel); err != nil && !has() {
		return fmt.Errorf("apt-cacher-ng's address: %w", err)
	}
	return nil
}

// strayListeners lists what listens on AptCacherPort in this host's
// network namespace at any address but AptCacherAddr ("0.0.0.0", "::").
func strayListeners() []string {
	var stray []string
	port := fmt.Sprintf(":%04X", AptCacherPort)
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n")[1:] {
			// sl local_address rem_address st ...; st 0A is LISTEN.
			fl := strings.Fields(l)
			if len(fl) < 4 || fl[3] != "0A" || !strings.HasSuffix(fl[1], port) {
				continue
			}
			if a := procNetAddr(strings.TrimSuffix(fl[1], port)); a != AptCacherAddr {
				stray = append(stray, a)
			}
		}
	}
	return stray
}

// procNetAddr reads an address of /proc/net/tcp{,6}: hex, in 32-bit words
// of host byte order.
func procNetAddr(h string) string {
	b, err := hex.DecodeString(h)
	if err != nil || (len(b) != 4 && len(b) != 16) {
		return h
	}
	for i := 0; i < len(b); i += 4 {
		w := binary.NativeEndian.Uint32(b[i:])
		binary.BigEndian.PutUint32(b[i:], w)
	}
	return net.IP(b).String()
}

// aptCacherAnswers reports whether apt-cacher-ng serves its report page at
// its address (and not some other program).
func aptCacherAnswers() bool {
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil}}
	resp, err := c.Get("http://" + net.JoinHostPort(AptCacherAddr, strconv.Itoa(AptCacherPort)) + "/acng-report.html")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return strings.Contains(string(b), "Apt-Cacher NG")
}

// rootfsKey names the cached rootfs of suite by what makes it.
func rootfsKey(suite string) string {
	inc := append([]string(nil), include...)
	sort.Strings(inc)
	sum := sha256.Sum256([]byte(suite + " minbase " + strings.Join(inc, ",") + " v" + rootfsVersion))
	return suite + "-minbase-" + hex.EncodeToString(sum[:6])
}

// ensureRootfs returns the cached root filesystem of suite every machine
// of that release starts from, building it with debootstrap (through
// apt-cacher-ng, so a rebuild downloads nothing) if no process has yet. It
// is read-only from then on: machines get an overlay of it.
func ensureRootfs(ctx context.Context, suite string, log io.Writer) (string, error) {
	dir := filepath.Join(CacheDir, "rootfs", rootfsKey(suite))
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	debootstrap, err := exec.LookPath("debootstrap")
	if err != nil {
		return "", fmt.Errorf("debootstrap: %w", err)
	}
	waited := time.Now()
	unlock, err := flock.Take(filepath.Join(CacheDir, "rootfs.lock"), syscall.LOCK_EX)
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(dir); err == nil {
		fmt.Fprintf(log, "netns: waited %s for another process to build the %s rootfs\n", time.Since(waited).Round(100*time.Millisecond), suite)
		return dir, nil
	}
	fmt.Fprintf(log, "netns: building the %s (%s) rootfs in %s, once for this host (debootstrap: minutes)\n", Platform(suite), suite, dir)
	start := time.Now()
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil { // a build that was cut short
		return "", err
	}
	// Fetched through apt-cacher-ng, which remaps the URL to this host's mirror.
	args := []string{"--variant=minbase", "--include=" + strings.Join(include, ","), suite, tmp, "http://deb.debian.org/debian"}
	cmd := exec.CommandContext(ctx, debootstrap, args...)
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"http_proxy=http://" + net.JoinHostPort(AptCacherAddr, strconv.Itoa(AptCacherPort)), "LC_ALL=C"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("debootstrap %s: %v\n%s\n%s", strings.Join(args, " "), err, tail(out, 20),
			readTail(filepath.Join(tmp, "debootstrap", "debootstrap.log"), 30))
	}
	// What every machine gets its own of is not shared: host keys (made
	// per machine), downloaded packages and lists.
	for _, glob := range []string{"etc/ssh/ssh_host_*", "var/cache/apt/archives/*.deb", "var/lib/apt/lists/*_*"} {
		m, _ := filepath.Glob(filepath.Join(tmp, glob))
		for _, f := range m {
			if err := os.Remove(f); err != nil {
				return "", err
			}
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, "etc/dpkg/dpkg.cfg.d/wptest-netns"), []byte(dpkgConfig), 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	fmt.Fprintf(log, "netns: built the %s rootfs in %s (debootstrap minbase + %s)\n",
		suite, time.Since(start).Round(100*time.Millisecond), strings.Join(include, ","))
	return dir, nil
}
