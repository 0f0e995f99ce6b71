// Package machine makes the netns driver's machines (provision/cloud/netns)
// and the tests' bare hosts (internal/testenv): machines made on this host,
// each a fresh Debian (debootstrap's minbase with openssh-server, iproute2,
// ca-certificates and procps; no systemd, no web server, no database) with
// sshd as PID 1 of its own PID, mount, UTS and IPC namespaces, chrooted into
// an overlay of a cached rootfs, inside its own network namespace. A user
// with one large machine runs a whole experiment on it, the server and each
// load generator on a network stack of its own; the tests make their bare
// hosts with it too (internal/testenv.BareHosts).
//
// Each machine reaches this host (its Gateway) over a veth on a /30 of its
// own (internal/subnet) and every other machine of its set over a direct
// veth; names of the set resolve through its /etc/hosts. There is no NAT and
// no default route: the internet is unreachable (fails at once), but apt
// works through this host's apt-cacher-ng at AptCacherAddr:AptCacherPort
// (routed via the Gateway; it listens on that address alone, never on this
// host's public ones), which caches every package for later machines. /sys and /proc/sys are
// read-only: a machine must not change this host's kernel settings.
//
// What a machine makes is listed, as it is made, in a state file under
// CacheDir/hosts, with its labels: a later process (wptest down, gc) finds
// and removes it from there. Needs root, iproute2, util-linux, debootstrap
// and apt-cacher-ng.
package machine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wptest/wptest/internal/flock"
	"github.com/wptest/wptest/internal/subnet"
)

// Host is one machine.
type Host struct {
	Name     string // its hostname, and its name in the set's /etc/hosts
	ID       string // its network namespace (ip netns), how down and gc name it
	Suite    string // the Debian release it was made from: "bookworm", "trixie"
	Platform string // that release's platform: "debian-12", "debian-13"
	IP       string // its address, from this host and from the set's other machines
	Gateway  string // this host's address on its link (its route to the apt proxy)
	Root     string // its root filesystem, as seen from this host
	// HostKey is its ed25519 host public key (authorized_keys form), made
	// here: the key to pin.
	HostKey string
	Labels  map[string]string

	dir   string
	links []string // veths made in this host's namespace
	link  subnet.Link
	cg    *cgroups
	cgErr error
	// ownCPUs: it has a cpuset of its own, and sees its cgroups.
	ownCPUs bool
	state   *os.File
	cmd     *exec.Cmd
	done    chan struct{}
	// copied: its root is a copy, not an overlay (no overlayfs here).
	copied bool
}

// Want is one machine to make: its hostname, labels and what it may use
// of this host (none: no limits, every CPU).
type Want struct {
	Name   string
	Labels map[string]string
	Limits Limits
}

// Options say what Make makes.
type Options struct {
	Hosts []Want
	Suite string // "bookworm" or "trixie"
	// Authorized is root's authorized_keys (every machine of the set).
	Authorized string
	// Tied: the machines belong to this process: they die with it (a test
	// killed at its timeout) and a later Make removes what it left
	// (Sweep). Otherwise they outlive it until Remove or Destroy.
	Tied bool
	// Image is a baked image of Suite (EnsureImage) the machines start
	// from; "" for the bare rootfs.
	Image string
	Log   io.Writer // progress: a rootfs build, sweeps; nil: none
}

var hostName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,30}$`)

// Check says whether this host can make machines: root and the programs
// they need. Its error names what is missing.
func Check() error {
	var missing []string
	for _, b := range []string{"ip", "nsenter", "unshare", "chroot", "mount", "mknod", "debootstrap", "apt-cacher-ng"} {
		if _, err := exec.LookPath(b); err != nil {
			missing = append(missing, b)
		}
	}
	var errs []error
	if os.Geteuid() != 0 {
		errs = append(errs, errors.New("needs root (it makes network namespaces, veths and mounts): run wptest as root"))
	}
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("%s not found (apt-get install iproute2 util-linux debootstrap apt-cacher-ng)", strings.Join(missing, ", ")))
	}
	return errors.Join(errs...)
}

// Make makes the machines o asks for, each reachable from this host and
// from the others, and waits until each one's sshd answers. On error it
// removes everything it made.
func Make(ctx context.Context, o Options) (hosts []*Host, err error) {
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	if Platform(o.Suite) == "" {
		return nil, fmt.Errorf("suite %q: want bookworm or trixie", o.Suite)
	}
	if len(o.Hosts) == 0 {
		return nil, errors.New("no machines to make")
	}
	seen := map[string]bool{}
	for _, w := range o.Hosts {
		if !hostName.MatchString(w.Name) || seen[w.Name] {
			return nil, fmt.Errorf("bad or repeated host name %q (want [a-z][a-z0-9-]{0,30})", w.Name)
		}
		seen[w.Name] = true
	}
	if err := Check(); err != nil {
		return nil, err
	}
	if err := ensureAptCacher(ctx); err != nil {
		return nil, err
	}
	rootfs, err := ensureRootfs(ctx, o.Suite, log)
	if err != nil {
		return nil, err
	}
	lowers, full := []string{rootfs}, false
	if o.Image != "" {
		if lowers, full, err = imageLowers(o.Image, rootfs); err != nil {
			return nil, err
		}
	}
	Sweep(log)
	defer func() {
		if err != nil {
			for _, h := range hosts {
				if h != nil {
					err = errors.Join(err, h.Remove())
				}
			}
			hosts = nil
		}
	}()
	for _, w := range o.Hosts {
		h, err := newHost(w, o, lowers, full)
		hosts = append(hosts, h)
		if err != nil {
			return hosts, fmt.Errorf("machine %s: %w", w.Name, err)
		}
	}
	// A direct link between every two machines, with a route to the
	// other's address both ways (this host does not forward).
	for i := range hosts {
		for j := i + 1; j < len(hosts); j++ {
			if err := linkHosts(hosts[i], hosts[j]); err != nil {
				return hosts, err
			}
		}
	}
	for _, h := range hosts {
		if err := h.configure(hosts, o.Authorized); err != nil {
			return hosts, fmt.Errorf("machine %s: %w", h.Name, err)
		}
	}
	for _, h := range hosts {
		if err := h.boot(o.Tied); err != nil {
			return hosts, err
		}
	}
	for _, h := range hosts {
		if err := h.waitSSH(ctx); err != nil {
			return hosts, err
		}
	}
	return hosts, nil
}

// hostsDir holds a directory per machine: its state file, log, overlay.
var hostsDir = filepath.Join(CacheDir, "hosts")

// newHost gives a machine its address, network namespace and link to this
// host, its root filesystem (an overlay of lowers) and its cgroup, each
// recorded in its state file before it is made.
func newHost(w Want, o Options, lowers []string, full bool) (*Host, error) {
	tag := randomHex(3)
	h := &Host{Name: w.Name, ID: "wptn-" + tag, Suite: o.Suite, Platform: Platform(o.Suite), Labels: w.Labels, done: make(chan struct{})}
	h.dir = filepath.Join(hostsDir, h.ID)
	h.Root = filepath.Join(h.dir, "root")
	if err := h.openState(); err != nil {
		return nil, err
	}
	// The state file is written as the machine is made, so a later
	// process removes a machine whose maker died half-way.
	h.recordIdentity(o.Tied)
	if o.Image != "" {
		h.record("image", filepath.Base(o.Image))
	}
	var err error
	if h.link, err = subnet.Claim(); err != nil {
		return h, err
	}
	h.record("subnet", h.link.Lock)
	h.Gateway, h.IP = h.link.Gateway, h.link.Peer
	h.record("ip", h.IP)
	if err := h.mountRoot(lowers, full, o.logw()); err != nil {
		return h, err
	}
	if err := h.wireNetns(tag); err != nil {
		return h, err
	}
	h.cg, h.cgErr = newCgroups("wptest-"+h.ID, w.Limits)
	h.ownCPUs = w.Limits.CPUs != nil
	if h.cg != nil {
		for _, p := range h.cg.paths() {
			h.record("cgroup", p)
		}
	}
	if h.cgErr != nil && (w.Limits.CPUs != nil || w.Limits.Memory > 0) {
		// Without its limits it would not be the machine asked for.
		return h, fmt.Errorf("CPUs %s, memory %s: %w", FormatCPUs(w.Limits.CPUs), FormatSize(w.Limits.Memory), h.cgErr)
	}
	return h, nil
}

// openState makes the machine's directory and opens its state file, under
// the hosts lock (Sweep reads the machines' directories under it).
func (h *Host) openState() error {
	unlock, err := flock.Take(filepath.Join(CacheDir, "hosts.lock"), syscall.LOCK_EX)
	if err != nil {
		return err
	}
	defer unlock()
	if err := os.MkdirAll(h.dir, 0o700); err != nil {
		return err
	}
	h.state, err = os.OpenFile(filepath.Join(h.dir, "state"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	return err
}

// recordIdentity records who owns the machine (tied: this process), its
// name, suite and labels, in the labels' order.
func (h *Host) recordIdentity(tied bool) {
	if tied {
		h.record("owner", strconv.Itoa(os.Getpid())+":"+procStart(os.Getpid()))
	}
	h.record("name", h.Name)
	h.record("suite", h.Suite)
	keys := make([]string, 0, len(h.Labels))
	for k := range h.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		h.record("label", k+"="+h.Labels[k])
	}
}

// mountRoot gives the machine its root: an overlay on lowers (the rootfs,
// under an image's layer), or a copy where overlayfs cannot be mounted
// (of the rootfs, or of an image baked as a whole root: full).
func (h *Host) mountRoot(lowers []string, full bool, log io.Writer) error {
	for _, d := range []string{"upper", "work", "root"} {
		if err := os.Mkdir(filepath.Join(h.dir, d), 0o755); err != nil {
			return err
		}
	}
	h.record("mount", h.Root)
	opts := "lowerdir=" + strings.Join(lowers, ":") + ",upperdir=" + filepath.Join(h.dir, "upper") + ",workdir=" + filepath.Join(h.dir, "work")
	err := syscall.Mount("overlay", h.Root, "overlay", 0, opts)
	if err == nil {
		return nil
	}
	if len(lowers) > 1 {
		return fmt.Errorf("overlay mount of an image's layer on its rootfs: %w", err)
	}
	// No overlayfs here (e.g. the cache is itself on an overlay): a copy.
	fmt.Fprintf(log, "netns: machine %s: overlay mount failed (%v): copying its root (%v)\n", h.Name, err, full)
	if out, err := exec.Command("cp", "-a", lowers[0]+"/.", h.Root).CombinedOutput(); err != nil {
		return fmt.Errorf("copy rootfs: %v\n%s", err, out)
	}
	h.copied = true
	return nil
}

// wireNetns makes the machine's network namespace and the veth between it
// (eth0, h.IP) and this host (h.Gateway), with a route to apt-cacher-ng.
func (h *Host) wireNetns(tag string) error {
	h.record("netns", h.ID)
	gw, peer := "wb"+tag+"g", "wb"+tag+"h"
	h.links = append(h.links, gw)
	h.record("link", gw)
	for _, args := range [][]string{
		{"netns", "add", h.ID},
		{"link", "add", gw, "type", "veth", "peer", "name", peer},
		{"link", "set", peer, "netns", h.ID},
		{"addr", "add", h.Gateway + "/30", "dev", gw},
		{"link", "set", gw, "up"},
		{"-n", h.ID, "link", "set", peer, "name", "eth0"},
		{"-n", h.ID, "addr", "add", h.IP + "/30", "dev", "eth0"},
		{"-n", h.ID, "link", "set", "eth0", "up"},
		{"-n", h.ID, "link", "set", "lo", "up"},
		// apt-cacher-ng's one address, on this host's side of the link.
		{"-n", h.ID, "route", "add", AptCacherAddr + "/32", "via", h.Gateway, "dev", "eth0"},
	} {
		if err := ip(args...); err != nil {
			return err
		}
	}
	return nil
}

func (o Options) logw() io.Writer {
	if o.Log == nil {
		return io.Discard
	}
	return o.Log
}

func (h *Host) record(kind, v string) {
	if h.state != nil {
		fmt.Fprintf(h.state, "%s %s\n", kind, v)
		_ = h.state.Sync()
	}
}

func ip(args ...string) error {
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// linkHosts joins a and b by a veth of their own (no addresses on it) and
// routes each one's address to the other over it.
func linkHosts(a, b *Host) error {
	tag := randomHex(4)
	la, lb := "wl"+tag+"a", "wl"+tag+"b"
	// Until moved into the namespaces they are this host's: recorded so a
	// half-made link is removed too.
	a.links = append(a.links, la, lb)
	a.record("link", la)
	a.record("link", lb)
	if err := ip("link", "add", la, "type", "veth", "peer", "name", lb); err != nil {
		return err
	}
	for _, e := range []struct {
		h, peer *Host
		link    string
	}{{a, b, la}, {b, a, lb}} {
		dev := "eth" + strconv.Itoa(linkCount(e.h))
		for _, args := range [][]string{
			{"link", "set", e.link, "netns", e.h.ID},
			{"-n", e.h.ID, "link", "set", e.link, "name", dev},
			{"-n", e.h.ID, "link", "set", dev, "up"},
			{"-n", e.h.ID, "route", "add", e.peer.IP + "/32", "dev", dev, "src", e.h.IP},
		} {
			if err := ip(args...); err != nil {
				return err
			}
		}
	}
	return nil
}

// linkCount is the number of ethN links in h's namespace (the next N).
func linkCount(h *Host) int {
	out, _ := exec.Command("ip", "-n", h.ID, "-o", "link", "show").Output()
	return strings.Count(string(out), ": eth")
}

// Log is what the machine's sshd (-e) and its start-up printed: logins,
// refused keys, why it did not start.
func (h *Host) Log() string {
	b, _ := os.ReadFile(filepath.Join(h.dir, "log"))
	return string(b)
}

// CPUUsage is all the CPU time the machine's processes have used since it
// started, exited processes included (its cgroup's counter).
func (h *Host) CPUUsage() (time.Duration, error) {
	if h.cg == nil {
		return 0, fmt.Errorf("machine %s has no CPU accounting: %w", h.Name, h.cgErr)
	}
	d, err := h.cg.usage()
	if err != nil {
		return 0, fmt.Errorf("machine %s: CPU usage: %w", h.Name, err)
	}
	return d, nil
}

// Cgroups are the machine's cgroup directories on this host: its CPU
// accounting one, and its cpuset and memory ones when it has Limits.
func (h *Host) Cgroups() []string {
	if h.cg == nil {
		return nil
	}
	return h.cg.paths()
}

// Addr is its sshd's address.
func (h *Host) Addr() string { return net.JoinHostPort(h.IP, "22") }
