package testenv

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// BareHost is a fresh Debian machine for a test (Debian 12, or 13 with
// $WPTEST_BARE_SUITE=trixie or BareHostsOn): the nearest thing on this
// machine to a new Hetzner VM. It has nothing but debootstrap's minbase
// with openssh-server, iproute2, ca-certificates and procps; no systemd, no
// web server, no database, nothing `make deps` installed here.
//
// A test gets a set of them and talks to them over SSH like wptest talks to
// any server:
//
//	hs := testenv.BareHosts(t, "server", "loadgen")
//	tg, _ := host.ParseTarget(hs[0].Target)
//	h, err := host.Open(ctx, tg, host.Options{KnownHostsFile: hs[0].KnownHosts, IdentityFile: hs[0].Identity})
//	// ... wptest up/seed/run against hs[0].Target, the load from hs[1] ...
//	used, _ := hs[0].CPUUsage() // all CPU the server's processes ran, exited ones too
//
// Each host is sshd -D as PID 1 of its own PID, mount, UTS and IPC
// namespaces, chrooted into an overlay of a cached rootfs, inside its own
// network namespace: `ps` on it shows only its processes, its hostname is
// its name. It reaches this machine (its Gateway) over a veth and every
// other host of its set over a direct veth; names of the set resolve through
// its /etc/hosts. There is no NAT and no default route: the internet is
// unreachable (fails at once), but apt works through the machine's
// apt-cacher-ng at Gateway:AptCacherPort, which caches every package for
// later hosts and runs. /sys and /proc/sys are read-only: a host must not
// change this machine's kernel settings.
//
// Cost: the rootfs is built once per machine (debootstrap: 1.5 minutes on
// a quiet machine, 3.5 to 5.5 on a busy 2-core one; kept in
// /var/cache/wptest, keyed by what it includes); after that a host takes
// one to two seconds, and its first `apt-get update` 7 to 15. Everything a host made (processes,
// namespaces, veths, mounts, cgroup, files) is removed in t.Cleanup, and the
// cleanup fails the test if anything is left. Needs root, debootstrap,
// apt-cacher-ng (`make deps`): testenv.Need skips without them, and fails
// under CI=true.
type BareHost struct {
	Name       string // its hostname, and its name in the set's /etc/hosts
	Suite      string // the Debian release it was made from: "bookworm", "trixie"
	Platform   string // that release's platform: "debian-12", "debian-13"
	IP         string // its address, from this machine and from the other hosts
	Gateway    string // this machine's address on its link (its apt proxy)
	Target     string // "ssh://root@IP:22"
	KnownHosts string // known_hosts pinning the ed25519 host key of every host of the set
	Identity   string // the private key root's authorized_keys holds (every host of the set)
	Root       string // its root filesystem, as seen from this machine

	netns  string
	links  []string // veths made in this machine's namespace
	dir    string
	cg     *cpuCgroup
	cgErr  error
	cmd    *exec.Cmd
	done   chan struct{}
	log    *SyncBuffer
	state  *os.File
	pidOne int
}

// CPUUsage is all the CPU time the host's processes have used since it
// started, exited processes included (its cgroup's counter).
func (h *BareHost) CPUUsage() (time.Duration, error) {
	if h.cg == nil {
		return 0, fmt.Errorf("bare host %s has no CPU accounting: %w", h.Name, h.cgErr)
	}
	d, err := h.cg.usage()
	if err != nil {
		return 0, fmt.Errorf("bare host %s: CPU usage: %w", h.Name, err)
	}
	return d, nil
}

// Log is what the host's sshd (-e) and its start-up printed: logins,
// refused keys, why it did not start.
func (h *BareHost) Log() string { return h.log.String() }

var hostName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,30}$`)

// BareHosts makes fresh bare hosts with the given names (hostnames: lower
// case letters, digits, '-'), each reachable from this machine and from
// each other, all gone after the test, from the default release
// (BareSuite: $WPTEST_BARE_SUITE, else bookworm).
func BareHosts(t testing.TB, names ...string) []*BareHost {
	t.Helper()
	Integration(t)
	return BareHostsOn(t, BareSuite(t), names...)
}

// BareHostsOn is BareHosts from the given Debian release ("bookworm",
// "trixie"), for a test that compares releases in one run.
func BareHostsOn(t testing.TB, suite string, names ...string) []*BareHost {
	t.Helper()
	Integration(t)
	if BarePlatform(suite) == "" {
		t.Fatalf("BareHostsOn: unknown suite %q", suite)
	}
	if len(names) == 0 {
		t.Fatal("BareHosts: no names")
	}
	seen := map[string]bool{}
	for _, n := range names {
		if !hostName.MatchString(n) || seen[n] {
			t.Fatalf("BareHosts: bad or repeated host name %q", n)
		}
		seen[n] = true
	}
	NeedRoot(t)
	for _, b := range []string{"ip", "nsenter", "chroot", "mount", "mknod", "debootstrap", "apt-cacher-ng"} {
		NeedBinary(t, b)
	}
	ensureAptCacher(t)
	rootfs := ensureRootfs(t, suite)
	sweepStaleBareHosts(t)
	start := time.Now()

	setDir := t.TempDir()
	identity, authorized := bareIdentity(t, setDir)
	hosts := make([]*BareHost, len(names))
	for i, name := range names {
		hosts[i] = newBareHost(t, name, rootfs)
		hosts[i].Identity = identity
		hosts[i].Suite, hosts[i].Platform = suite, BarePlatform(suite)
	}
	// A direct link between every two hosts, with a route to the other's
	// address both ways (this machine does not forward).
	for i := range hosts {
		for j := i + 1; j < len(hosts); j++ {
			linkBareHosts(t, hosts[i], hosts[j])
		}
	}
	var known strings.Builder
	for _, h := range hosts {
		pub := h.configure(t, hosts, authorized)
		known.WriteString(knownhosts.Line([]string{knownhosts.Normalize(net.JoinHostPort(h.IP, "22"))}, pub) + "\n")
	}
	kh := filepath.Join(setDir, "known_hosts")
	if err := os.WriteFile(kh, []byte(known.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		h.KnownHosts = kh
		h.boot(t)
	}
	for _, h := range hosts {
		h.waitSSH(t)
	}
	d := time.Since(start)
	t.Logf("bare hosts %v (%s) ready in %s, %s per host (rootfs from the cache)", names, BarePlatform(suite),
		d.Round(10*time.Millisecond), (d / time.Duration(len(hosts))).Round(10*time.Millisecond))
	return hosts
}

// bareIdentity makes the set's client key: its private key file and the
// authorized_keys line.
func bareIdentity(t testing.TB, dir string) (string, []byte) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "wptest-bare-hosts")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(p, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return p, ssh.MarshalAuthorizedKey(signer.PublicKey())
}

// newBareHost gives a host its address, network namespace and link to this
// machine, its root filesystem and its cgroup. t.Cleanup undoes all of it.
func newBareHost(t testing.TB, name, rootfs string) *BareHost {
	t.Helper()
	tag := randomHex(3)
	h := &BareHost{Name: name, netns: "wptb-" + tag, log: &SyncBuffer{}, done: make(chan struct{})}
	h.dir = filepath.Join(bareCacheDir, "hosts", name+"-"+tag)
	h.Root = filepath.Join(h.dir, "root")
	x, err := claimSubnet(t)
	if err != nil {
		t.Fatal(err)
	}
	h.Gateway, h.IP = fmt.Sprintf("10.213.%d.1", x), fmt.Sprintf("10.213.%d.2", x)
	h.Target = "ssh://root@" + net.JoinHostPort(h.IP, "22")

	// The state file lists what the host made as it goes, so a later test
	// process can remove a host whose test process was killed (a go test
	// timeout) before its cleanup ran.
	unlock, err := lockFile(filepath.Join(bareCacheDir, "hosts.lock"), syscall.LOCK_EX)
	if err != nil {
		t.Fatal(err)
	}
	err = os.MkdirAll(h.dir, 0o755)
	if err == nil {
		h.state, err = os.OpenFile(filepath.Join(h.dir, "state"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	}
	if err == nil {
		h.record("owner", strconv.Itoa(os.Getpid())+":"+procStart(os.Getpid()))
	}
	unlock()
	t.Cleanup(func() { h.teardown(t) })
	if err != nil {
		t.Fatalf("bare host %s: %v", name, err)
	}
	h.record("subnet", fmt.Sprintf("/run/wptest-netns-10.213.%d.lock", x))

	for _, d := range []string{"upper", "work", "root"} {
		if err := os.Mkdir(filepath.Join(h.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	h.record("mount", h.Root)
	opts := "lowerdir=" + rootfs + ",upperdir=" + filepath.Join(h.dir, "upper") + ",workdir=" + filepath.Join(h.dir, "work")
	if err := syscall.Mount("overlay", h.Root, "overlay", 0, opts); err != nil {
		// No overlayfs here (e.g. the cache is itself on an overlay): a copy.
		t.Logf("bare host %s: overlay mount failed (%v): copying the rootfs", name, err)
		if out, err := exec.Command("cp", "-a", rootfs+"/.", h.Root).CombinedOutput(); err != nil {
			t.Fatalf("bare host %s: copy rootfs: %v\n%s", name, err, out)
		}
	}

	h.record("netns", h.netns)
	gw := "wb" + tag + "g"
	h.links = append(h.links, gw)
	h.record("link", gw)
	ipRun(t, h, "netns", "add", h.netns)
	ipRun(t, h, "link", "add", gw, "type", "veth", "peer", "name", "wb"+tag+"h")
	ipRun(t, h, "link", "set", "wb"+tag+"h", "netns", h.netns)
	ipRun(t, h, "addr", "add", h.Gateway+"/30", "dev", gw)
	ipRun(t, h, "link", "set", gw, "up")
	ipRun(t, h, "-n", h.netns, "link", "set", "wb"+tag+"h", "name", "eth0")
	ipRun(t, h, "-n", h.netns, "addr", "add", h.IP+"/30", "dev", "eth0")
	ipRun(t, h, "-n", h.netns, "link", "set", "eth0", "up")
	ipRun(t, h, "-n", h.netns, "link", "set", "lo", "up")

	h.cg, h.cgErr = newCPUCgroup("wptest-" + name + "-" + tag)
	if h.cg != nil {
		h.record("cgroup", h.cg.dir)
	} else {
		t.Logf("bare host %s: no CPU accounting: %v", name, h.cgErr)
	}
	return h
}

func (h *BareHost) record(kind, v string) {
	if h.state != nil {
		fmt.Fprintf(h.state, "%s %s\n", kind, v)
	}
}

func ipRun(t testing.TB, h *BareHost, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("bare host %s: ip %s: %v\n%s", h.Name, strings.Join(args, " "), err, out)
	}
}

// linkBareHosts joins a and b by a veth of their own (no addresses on it)
// and routes each one's address to the other over it.
func linkBareHosts(t testing.TB, a, b *BareHost) {
	t.Helper()
	tag := randomHex(4)
	la, lb := "wl"+tag+"a", "wl"+tag+"b"
	// Until moved into the namespaces they are this machine's: recorded so a
	// half-made link is removed too.
	a.links = append(a.links, la, lb)
	a.record("link", la)
	a.record("link", lb)
	ipRun(t, a, "link", "add", la, "type", "veth", "peer", "name", lb)
	for _, e := range []struct {
		h, peer *BareHost
		link    string
	}{{a, b, la}, {b, a, lb}} {
		dev := "eth" + strconv.Itoa(nsLinkCount(e.h))
		ipRun(t, e.h, "link", "set", e.link, "netns", e.h.netns)
		ipRun(t, e.h, "-n", e.h.netns, "link", "set", e.link, "name", dev)
		ipRun(t, e.h, "-n", e.h.netns, "link", "set", dev, "up")
		ipRun(t, e.h, "-n", e.h.netns, "route", "add", e.peer.IP+"/32", "dev", dev, "src", e.h.IP)
	}
}

// nsLinkCount is the number of ethN links in h's namespace (the next N).
func nsLinkCount(h *BareHost) int {
	out, _ := exec.Command("ip", "-n", h.netns, "-o", "link", "show").Output()
	return strings.Count(string(out), ": eth")
}

// configure writes what makes the copy of the rootfs this host: its name,
// the set's names, its own host keys, root's authorized key, apt through the
// proxy. It returns the ed25519 host public key to pin.
func (h *BareHost) configure(t testing.TB, set []*BareHost, authorized []byte) ssh.PublicKey {
	t.Helper()
	hosts := "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n\n"
	for _, o := range set {
		hosts += o.IP + "\t" + o.Name + "\n"
	}
	files := map[string]string{
		"etc/hostname": h.Name + "\n",
		"etc/hosts":    hosts,
		// No DNS server is reachable: resolve nothing but /etc/hosts, at once.
		"etc/resolv.conf": "# bare test host: no DNS (names of its set are in /etc/hosts)\n",
		"etc/apt/apt.conf.d/01proxy": fmt.Sprintf("// wptest bare host: no NAT, packages come through this machine's apt-cacher-ng.\n"+
			"Acquire::http::Proxy \"http://%s:%d\";\n", h.Gateway, AptCacherPort),
		"etc/apt/sources.list.d/debian.sources": "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: " + h.Suite + " " + h.Suite + "-updates\n" +
			"Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n" +
			"Types: deb\nURIs: http://deb.debian.org/debian-security\nSuites: " + h.Suite + "-security\n" +
			"Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n",
		// Only the key types made below (no RSA: slow to make, and the
		// client pins ed25519).
		"etc/ssh/sshd_config.d/hostkeys.conf": "HostKey /etc/ssh/ssh_host_ecdsa_key\nHostKey /etc/ssh/ssh_host_ed25519_key\n",
		"root/.ssh/authorized_keys":           string(authorized),
	}
	if err := os.Remove(filepath.Join(h.Root, "etc/apt/sources.list")); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(h.Root, "root/.ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, edPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecPriv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for kind, key := range map[string]any{"ed25519": edPriv, "ecdsa": ecPriv} {
		block, err := ssh.MarshalPrivateKey(key, "root@"+h.Name)
		if err != nil {
			t.Fatal(err)
		}
		signer, err := ssh.NewSignerFromKey(key)
		if err != nil {
			t.Fatal(err)
		}
		p := "etc/ssh/ssh_host_" + kind + "_key"
		files[p] = string(pem.EncodeToMemory(block))
		files[p+".pub"] = strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey()))) + " root@" + h.Name + "\n"
	}
	for p, body := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, "_key") || strings.HasPrefix(p, "root/") {
			mode = 0o600
		}
		full := filepath.Join(h.Root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		// Remove first: resolv.conf may be a symlink to this machine's.
		_ = os.Remove(full)
		if err := os.WriteFile(full, []byte(body), mode); err != nil {
			t.Fatalf("bare host %s: %v", h.Name, err)
		}
	}
	// Pin what the host itself will offer: its own public key file.
	b, err := os.ReadFile(filepath.Join(h.Root, "etc/ssh/ssh_host_ed25519_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	pub, _, _, _, err := ssh.ParseAuthorizedKey(b)
	if err != nil {
		t.Fatalf("bare host %s: its ed25519 host key: %v", h.Name, err)
	}
	return pub
}

// bareInit runs as PID 1 of the host's new PID, mount, UTS and IPC
// namespaces, inside its network namespace, on this machine's filesystem:
// it joins the host's cgroup before anything else runs, mounts what a booted
// system has, names the host and becomes sshd, chrooted into the rootfs.
// Everything it mounts lives in its mount namespace and goes with it.
const bareInit = `set -eu
R=$1 CG=$2 NAME=$3
if [ -n "$CG" ]; then echo 0 > "$CG/cgroup.procs"; fi
mount --make-rprivate /
mount -t proc -o nosuid,nodev,noexec proc "$R/proc"
mount --bind "$R/proc/sys" "$R/proc/sys"
mount -o remount,bind,ro "$R/proc/sys"
mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$R/sys"
mount -t tmpfs -o nosuid,mode=755,size=4m tmpfs "$R/dev"
dev() { mknod -m 666 "$R/dev/$1" c "$2" "$3"; }
dev null 1 3; dev zero 1 5; dev full 1 7; dev random 1 8; dev urandom 1 9; dev tty 5 0
mkdir -m 755 "$R/dev/pts"
mkdir -m 1777 "$R/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5 devpts "$R/dev/pts"
mount -t tmpfs -o nosuid,nodev,mode=1777 tmpfs "$R/dev/shm"
ln -s pts/ptmx "$R/dev/ptmx"
ln -s /proc/self/fd "$R/dev/fd"
ln -s /proc/self/fd/0 "$R/dev/stdin"
ln -s /proc/self/fd/1 "$R/dev/stdout"
ln -s /proc/self/fd/2 "$R/dev/stderr"
mount -t tmpfs -o nosuid,nodev,mode=755 tmpfs "$R/run"
mkdir -m 755 "$R/run/sshd"
mkdir -m 1777 "$R/run/lock"
echo "$NAME" > /proc/sys/kernel/hostname
exec chroot "$R" /usr/sbin/sshd -D -e
`

// boot starts the host's PID 1.
func (h *BareHost) boot(t testing.TB) {
	t.Helper()
	cg := ""
	if h.cg != nil {
		cg = h.cg.dir
	}
	h.cmd = exec.Command("nsenter", "--net=/run/netns/"+h.netns, "--", "/bin/sh", "-c", bareInit, "wptest-bare-host", h.Root, cg, h.Name)
	// Nothing of the test's environment (tokens, proxies) goes in.
	h.cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	h.cmd.Dir = "/"
	h.cmd.Stdout, h.cmd.Stderr = h.log, h.log
	h.cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS | syscall.CLONE_NEWUTS | syscall.CLONE_NEWIPC,
		// If the test process dies without its cleanup (killed at a go
		// test timeout), the host dies with it.
		Pdeathsig: syscall.SIGKILL,
	}
	h.cmd.WaitDelay = 5 * time.Second
	if err := h.cmd.Start(); err != nil {
		t.Fatalf("bare host %s: start: %v", h.Name, err)
	}
	h.pidOne = h.cmd.Process.Pid
	h.record("pid", strconv.Itoa(h.pidOne))
	go func() { _ = h.cmd.Wait(); close(h.done) }()
}

// waitSSH waits until the host's sshd answers on IP:22.
func (h *BareHost) waitSSH(t testing.TB) {
	t.Helper()
	exited := false
	err := Poll(2*time.Minute, func() bool {
		select {
		case <-h.done:
			exited = true
			return true
		default:
		}
		return banner(net.JoinHostPort(h.IP, "22"))
	})
	switch {
	case exited:
		t.Fatalf("bare host %s: PID 1 exited (%v):\n%s", h.Name, h.cmd.ProcessState, h.Log())
	case err != nil:
		t.Fatalf("bare host %s: sshd did not answer on %s:22:\n%s", h.Name, h.IP, h.Log())
	}
}

// teardown removes all the host made, in order: its processes (killing PID 1
// ends every process of its PID namespace, and the mounts of its mount
// namespace), cgroup, network namespace and veths, rootfs mount, files.
// Whatever is still there after it fails the test.
func (h *BareHost) teardown(t testing.TB) {
	if t.Failed() && h.log.String() != "" {
		t.Logf("bare host %s (%s) log:\n%s", h.Name, h.IP, tail([]byte(h.Log()), 40))
	}
	var errs []error
	if h.cmd != nil && h.cmd.Process != nil {
		_ = h.cmd.Process.Signal(syscall.SIGKILL)
		select {
		case <-h.done:
		case <-time.After(time.Minute):
			errs = append(errs, fmt.Errorf("PID 1 (%d) did not exit", h.pidOne))
		}
	}
	if h.cg != nil {
		if err := h.cg.remove(); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, removeBareNet(h.netns, h.links)...)
	if err := unmountRoot(h.Root); err != nil {
		errs = append(errs, err)
	} else if h.dir != "" {
		if h.state != nil {
			h.state.Close()
		}
		if err := os.RemoveAll(h.dir); err != nil {
			errs = append(errs, err)
		}
	}
	if left := h.leftovers(); len(left) > 0 {
		errs = append(errs, fmt.Errorf("left behind: %s", strings.Join(left, ", ")))
	}
	if err := errors.Join(errs...); err != nil {
		t.Errorf("bare host %s: teardown: %v", h.Name, err)
	}
}

func removeBareNet(netns string, links []string) []error {
	var errs []error
	if _, err := os.Stat("/run/netns/" + netns); err == nil {
		if out, err := exec.Command("ip", "netns", "del", netns).CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("ip netns del %s: %v %s", netns, err, out))
		}
	}
	for _, l := range links {
		if _, err := os.Stat("/sys/class/net/" + l); err == nil {
			_ = exec.Command("ip", "link", "del", l).Run()
		}
	}
	return errs
}

// unmountRoot unmounts the host's rootfs overlay if it is mounted.
func unmountRoot(root string) error {
	if root == "" || !mounted(root) {
		return nil
	}
	err := Poll(10*time.Second, func() bool { return syscall.Unmount(root, 0) == nil || !mounted(root) })
	if err != nil {
		if err := syscall.Unmount(root, syscall.MNT_DETACH); err != nil {
			return fmt.Errorf("unmount %s: %w", root, err)
		}
	}
	return nil
}

// mounted reports whether something is mounted at or under dir (in this
// process's mount namespace).
func mounted(dir string) bool {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 4 && (fields[4] == dir || strings.HasPrefix(fields[4], dir+"/")) {
			return true
		}
	}
	return false
}

// leftovers lists what of the host still exists.
func (h *BareHost) leftovers() []string {
	var left []string
	if h.pidOne > 0 && processAlive(h.pidOne) {
		left = append(left, "process "+strconv.Itoa(h.pidOne))
	}
	if _, err := os.Stat("/run/netns/" + h.netns); err == nil {
		left = append(left, "network namespace "+h.netns)
	}
	for _, l := range h.links {
		if _, err := os.Stat("/sys/class/net/" + l); err == nil {
			left = append(left, "link "+l)
		}
	}
	if h.dir != "" && mounted(h.dir) {
		left = append(left, "mount "+h.Root)
	}
	if h.cg != nil {
		if _, err := os.Stat(h.cg.dir); err == nil {
			left = append(left, "cgroup "+h.cg.dir)
		}
	}
	if _, err := os.Stat(h.dir); err == nil {
		left = append(left, "directory "+h.dir)
	}
	return left
}

// procStart is a process's start time in clock ticks after boot (field 22
// of /proc/PID/stat): with the pid, it names the process even after the pid
// is reused.
func procStart(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// sweepStaleBareHosts removes the hosts of test processes that died before
// their cleanup ran (their PID 1 died with them: Pdeathsig).
func sweepStaleBareHosts(t testing.TB) {
	t.Helper()
	unlock, err := lockFile(filepath.Join(bareCacheDir, "hosts.lock"), syscall.LOCK_EX)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	dirs, _ := filepath.Glob(filepath.Join(bareCacheDir, "hosts", "*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, "state"))
		if err != nil {
			continue
		}
		var owner, netns, root, subnet string
		var links []string
		var cg *cpuCgroup
		for _, l := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(l, " ")
			switch k {
			case "owner":
				owner = v
			case "netns":
				netns = v
			case "link":
				links = append(links, v)
			case "mount":
				root = v
			case "subnet":
				subnet = v
			case "cgroup":
				cg = &cpuCgroup{dir: v}
			}
		}
		pid, start, _ := strings.Cut(owner, ":")
		if p, err := strconv.Atoi(pid); err == nil && procStart(p) == start {
			continue // its test is still running
		}
		var errs []error
		if cg != nil {
			if err := cg.remove(); err != nil {
				errs = append(errs, err)
			}
		}
		if netns != "" {
			errs = append(errs, removeBareNet(netns, links)...)
		}
		if err := unmountRoot(root); err != nil {
			errs = append(errs, err)
		} else {
			errs = append(errs, os.RemoveAll(dir))
		}
		if subnet != "" {
			_ = os.Remove(subnet)
		}
		if err := errors.Join(errs...); err != nil {
			t.Logf("bare hosts: removing %s, left by a test process that died: %v", dir, err)
		} else {
			t.Logf("bare hosts: removed %s, left by a test process that died", dir)
		}
	}
}
