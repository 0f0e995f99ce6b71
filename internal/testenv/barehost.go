package testenv

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/wptest/wptest/provision/cloud/netns/machine"
)

// BareHost is a fresh Debian machine for a test (Debian 12, or 13 with
// $WPTEST_BARE_SUITE=trixie or BareHostsOn): the nearest thing on this
// machine to a new Hetzner VM. It is a machine of the netns driver
// (provision/cloud/netns), the one `machines "netns" {}` makes for users:
// debootstrap's minbase with openssh-server, iproute2, ca-certificates and
// procps; no systemd, no web server, no database, nothing `make deps`
// installed here.
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
// namespaces inside its own network namespace; it reaches this machine (its
// Gateway) over a veth and every other host of its set over a direct veth;
// names of the set resolve through its /etc/hosts; apt works through this
// machine's apt-cacher-ng at AptCacherAddr:AptCacherPort (routed via its
// Gateway; it listens nowhere else), nothing else outside
// (the netns package says it all).
//
// Cost: the rootfs is built once per machine (debootstrap: 1.5 minutes on
// a quiet machine, 3.5 to 5.5 on a busy 2-core one; kept in
// /var/cache/wptest, keyed by what it includes); after that a host takes
// one to two seconds, and its first `apt-get update` 7 to 15. The hosts are
// tied to the test process (they die with it, and a later test removes what
// a killed one left); everything a host made is removed in t.Cleanup, and
// the cleanup fails the test if anything is left. Needs root, debootstrap,
// apt-cacher-ng (`make deps`): testenv.Need skips without them, and fails
// under CI=true.
type BareHost struct {
	Name       string // its hostname, and its name in the set's /etc/hosts
	Suite      string // the Debian release it was made from: "bookworm", "trixie"
	Platform   string // that release's platform: "debian-12", "debian-13"
	IP         string // its address, from this machine and from the other hosts
	Gateway    string // this machine's address on its link (its route to the apt proxy)
	Target     string // "ssh://root@IP:22"
	KnownHosts string // known_hosts pinning the ed25519 host key of every host of the set
	Identity   string // the private key root's authorized_keys holds (every host of the set)
	Root       string // its root filesystem, as seen from this machine

	h *machine.Host
}

// CPUUsage is all the CPU time the host's processes have used since it
// started, exited processes included (its cgroup's counter).
func (h *BareHost) CPUUsage() (time.Duration, error) { return h.h.CPUUsage() }

// Log is what the host's sshd (-e) and its start-up printed: logins,
// refused keys, why it did not start.
func (h *BareHost) Log() string { return h.h.Log() }

func (h *BareHost) leftovers() []string { return h.h.Leftovers() }

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
	return bareHosts(t, suite, nil, names)
}

// BareHostsFrom is BareHosts made from img, a baked image of the default
// release (BareImage): a host that already holds what img installed.
func BareHostsFrom(t testing.TB, img *BareImage, names ...string) []*BareHost {
	t.Helper()
	Integration(t)
	return bareHosts(t, BareSuite(t), img, names)
}

// BareSpec is a bare host with what it may use of this machine, as the
// netns driver gives its machines: CPUs of its own (nil: every one) and a
// memory limit (bytes; 0: none).
type BareSpec struct {
	Name   string
	CPUs   []int
	Memory int64
}

// BareHostsLimited is BareHosts with each host's CPUs and memory.
func BareHostsLimited(t testing.TB, specs ...BareSpec) []*BareHost {
	t.Helper()
	Integration(t)
	var names []string
	var wants []machine.Want
	for _, s := range specs {
		names = append(names, s.Name)
		wants = append(wants, machine.Want{Name: s.Name, Limits: machine.Limits{CPUs: s.CPUs, Memory: s.Memory}})
	}
	return makeBareHosts(t, BareSuite(t), nil, names, wants)
}

// SplitCPUs is the netns driver's default division of this machine's
// CPUs (those this process may use) between a server and its load
// generators; it needs two CPUs at least (skips, or fails under CI=true).
func SplitCPUs(t testing.TB) (server, load []int) {
	t.Helper()
	cpus, err := machine.HostCPUs()
	if err != nil {
		t.Fatal(err)
	}
	Need(t, len(cpus) >= 2, fmt.Sprintf("two CPUs to split (this process may use %v)", cpus))
	server, load, _ = machine.Split(cpus)
	return server, load
}

// CPUList writes cpus as Linux does ("0-3,6"): cpuset.cpus, taskset -c.
func CPUList(cpus []int) string { return machine.FormatCPUs(cpus) }

// Cgroups are the host's cgroup directories on this machine: CPU
// accounting, and cpuset and memory when it has limits.
func (h *BareHost) Cgroups() []string { return h.h.Cgroups() }

// needBare skips (fails under CI=true) where bare hosts cannot be made.
func needBare(t testing.TB, suite string, names []string) {
	t.Helper()
	Integration(t)
	if BarePlatform(suite) == "" {
		t.Fatalf("BareHostsOn: unknown suite %q", suite)
	}
	if len(names) == 0 {
		t.Fatal("BareHosts: no names")
	}
	NeedRoot(t)
	for _, b := range []string{"ip", "nsenter", "unshare", "chroot", "mount", "mknod", "debootstrap", "apt-cacher-ng"} {
		NeedBinary(t, b)
	}
}

func bareHosts(t testing.TB, suite string, img *BareImage, names []string) []*BareHost {
	t.Helper()
	var wants []machine.Want
	for _, n := range names {
		wants = append(wants, machine.Want{Name: n})
	}
	return makeBareHosts(t, suite, img, names, wants)
}

func makeBareHosts(t testing.TB, suite string, img *BareImage, names []string, wants []machine.Want) []*BareHost {
	t.Helper()
	needBare(t, suite, names)
	start := time.Now()
	from := "rootfs"
	setDir := t.TempDir()
	identity, authorized, err := bareIdentity(setDir)
	if err != nil {
		t.Fatal(err)
	}
	o := machine.Options{Suite: suite, Authorized: string(authorized), Tied: true, Log: logWriter{t}}
	if img != nil {
		if o.Image, err = BakeImage(context.Background(), suite, img, logWriter{t}); err != nil {
			t.Fatalf("bare hosts %v: %v", names, err)
		}
		from = "image " + filepath.Base(o.Image)
	}
	o.Hosts = wants
	made, err := machine.Make(context.Background(), o)
	if err != nil {
		t.Fatalf("bare hosts %v: %v", names, err)
	}
	for _, m := range made {
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("bare host %s (%s) log:\n%s", m.Name, m.IP, lastLines(m.Log(), 40))
			}
			if err := m.Remove(); err != nil {
				t.Errorf("bare host %s: teardown: %v", m.Name, err)
			}
		})
	}
	hosts, err := wrapHosts(made, setDir, identity)
	if err != nil {
		t.Fatal(err)
	}
	d := time.Since(start)
	t.Logf("bare hosts %v (%s) ready in %s, %s per host (%s from the cache)", names, BarePlatform(suite),
		d.Round(10*time.Millisecond), (d / time.Duration(len(hosts))).Round(10*time.Millisecond), from)
	return hosts
}

// wrapHosts makes BareHosts of machines whose root authorizes identity,
// with a known_hosts in dir pinning each one's host key.
func wrapHosts(made []*machine.Host, dir, identity string) ([]*BareHost, error) {
	hosts := make([]*BareHost, len(made))
	var known strings.Builder
	for i, m := range made {
		hosts[i] = &BareHost{Name: m.Name, Suite: m.Suite, Platform: m.Platform, IP: m.IP, Gateway: m.Gateway,
			Target: "ssh://root@" + net.JoinHostPort(m.IP, "22"), Identity: identity, Root: m.Root, h: m}
		pub, _, _, _, err := ssh.ParseAuthorizedKey([]byte(m.HostKey))
		if err != nil {
			return nil, fmt.Errorf("bare host %s: its host key: %w", m.Name, err)
		}
		known.WriteString(knownhosts.Line([]string{knownhosts.Normalize(m.Addr())}, pub) + "\n")
	}
	kh := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(kh, []byte(known.String()), 0o600); err != nil {
		return nil, err
	}
	for _, h := range hosts {
		h.KnownHosts = kh
	}
	return hosts, nil
}

// bareIdentity makes the set's client key in dir: its private key file and
// the authorized_keys line.
func bareIdentity(dir string) (string, []byte, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", nil, err
	}
	block, err := ssh.MarshalPrivateKey(priv, "wptest-bare-hosts")
	if err != nil {
		return "", nil, err
	}
	p := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(p, pem.EncodeToMemory(block), 0o600); err != nil {
		return "", nil, err
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		return "", nil, err
	}
	return p, ssh.MarshalAuthorizedKey(signer.PublicKey()), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// logWriter sends the netns package's progress (a rootfs build, a sweep)
// to the test's log.
type logWriter struct{ t testing.TB }

func (w logWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}
