package machine

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/wptest/wptest/internal/sshprobe"
)

// GatewayName is this host's name in every machine's /etc/hosts.
const GatewayName = "wptest-host"

// configure writes what makes the copy of the rootfs this machine: its
// name, the set's names, its own host keys, root's authorized keys, apt
// through the proxy. It sets HostKey, the ed25519 key to pin.
func (h *Host) configure(set []*Host, authorized string) error {
	hosts := "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n\n"
	for _, o := range set {
		hosts += o.IP + "\t" + o.Name + "\n"
	}
	// This host, as the machine reaches it: where a user serves it a file
	// (no other address of this host is routed).
	hosts += h.Gateway + "\t" + GatewayName + "\n"
	files := map[string]string{
		"etc/hostname": h.Name + "\n",
		"etc/hosts":    hosts,
		// No DNS server is reachable: resolve nothing but /etc/hosts, at once.
		"etc/resolv.conf": "# wptest netns machine: no DNS (names of its set are in /etc/hosts)\n",
		"etc/apt/apt.conf.d/01proxy": fmt.Sprintf("// wptest netns machine: no NAT, packages come through this host's apt-cacher-ng.\n"+
			"Acquire::http::Proxy \"http://%s:%d\";\n", AptCacherAddr, AptCacherPort),
		"etc/apt/sources.list.d/debian.sources": "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: " + h.Suite + " " + h.Suite + "-updates\n" +
			"Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n" +
			"Types: deb\nURIs: http://deb.debian.org/debian-security\nSuites: " + h.Suite + "-security\n" +
			"Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n",
		// Only the key types made below (no RSA: slow to make, and the
		// client pins ed25519). Key-only root login.
		"etc/ssh/sshd_config.d/00-wptest.conf": "HostKey /etc/ssh/ssh_host_ecdsa_key\nHostKey /etc/ssh/ssh_host_ed25519_key\n" +
			"PasswordAuthentication no\nKbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n",
		"root/.ssh/authorized_keys": strings.TrimSpace(authorized) + "\n",
	}
	if err := os.Remove(filepath.Join(h.Root, "etc/apt/sources.list")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Join(h.Root, "root/.ssh"), 0o700); err != nil {
		return err
	}
	_, edPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	ecPriv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	for kind, key := range map[string]any{"ed25519": edPriv, "ecdsa": ecPriv} {
		block, err := ssh.MarshalPrivateKey(key, "root@"+h.Name)
		if err != nil {
			return err
		}
		signer, err := ssh.NewSignerFromKey(key)
		if err != nil {
			return err
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
			return err
		}
		// Remove first: resolv.conf may be a symlink to this host's. The
		// rootfs is fresh and only root has touched it: no links planted.
		_ = os.Remove(full)
		if err := os.WriteFile(full, []byte(body), mode); err != nil {
			return err
		}
	}
	// Pin what the machine itself will offer: its own public key file.
	b, err := os.ReadFile(filepath.Join(h.Root, "etc/ssh/ssh_host_ed25519_key.pub"))
	if err != nil {
		return err
	}
	pub, _, _, _, err := ssh.ParseAuthorizedKey(b)
	if err != nil {
		return fmt.Errorf("its ed25519 host key: %w", err)
	}
	h.HostKey = strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pub)))
	return nil
}

// initScript runs as PID 1 of the machine's new PID, mount, UTS and IPC
// namespaces, inside its network namespace, on this host's filesystem: it
// joins the machine's cgroups (JOIN) before anything else runs and goes
// on, still PID 1, as initScript2; a machine with CPUs of its own (CGS not
// empty) in a cgroup namespace of its own, seeing its cgroups as the root
// of each hierarchy, as a container does (its CPU time is then its
// cgroup's: srvstat reads it there). One without shares this host's CPUs
// and sees no cgroup: /proc/stat and its process groups are what it has.
const initScript = `set -eu
S2=$1 R=$2 JOIN=$3 CGS=$4 NAME=$5
for cg in $JOIN; do echo 0 > "$cg/cgroup.procs"; done
if [ -z "$CGS" ]; then exec /bin/sh -c "$S2" wptest-netns-machine "$R" "" "$NAME"; fi
exec unshare --cgroup -- /bin/sh -c "$S2" wptest-netns-machine "$R" "$CGS" "$NAME"
`

// initScript2 mounts what a booted system has, its cgroups read-only at
// /sys/fs/cgroup (CGS: PATH=VIEW words, VIEW the hierarchy's place under
// /sys/fs/cgroup, "" for cgroup2 alone), names the machine and becomes
// sshd, chrooted into the rootfs. Everything it mounts lives in its mount
// namespace and goes with it.
const initScript2 = `set -eu
R=$1 CGS=$2 NAME=$3
mount --make-rprivate /
mount -t proc -o nosuid,nodev,noexec proc "$R/proc"
mount --bind "$R/proc/sys" "$R/proc/sys"
mount -o remount,bind,ro "$R/proc/sys"
mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$R/sys"
# A word ending in "=" is cgroup2 alone: /sys/fs/cgroup itself.
case " $CGS" in *"= "*|*=) ;; *)
  [ -z "$CGS" ] || mount -t tmpfs -o nosuid,nodev,noexec,mode=755,size=64k tmpfs "$R/sys/fs/cgroup" ;;
esac
for cg in $CGS; do
  v=${cg#*=} d="$R/sys/fs/cgroup"
  if [ -n "$v" ]; then d="$d/$v"; mkdir -p "$d"; fi
  mount --bind "${cg%%=*}" "$d"
  mount -o remount,bind,ro,nosuid,nodev,noexec "$d"
done
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

// boot starts the machine's PID 1, in a session of its own, its output in
// its log file. tied: it dies with this process.
func (h *Host) boot(tied bool) error {
	join, cgs := "", ""
	if h.cg != nil {
		join = strings.Join(h.cg.paths(), " ")
		if h.ownCPUs {
			cgs = strings.Join(h.cg.views(), " ")
		}
	}
	lf, err := os.OpenFile(filepath.Join(h.dir, "log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer lf.Close() // the child holds its own copy
	h.cmd = exec.Command("nsenter", "--net=/run/netns/"+h.ID, "--", "/bin/sh", "-c", initScript, "wptest-netns-machine", initScript2, h.Root, join, cgs, h.Name)
	// Nothing of this process's environment (tokens, proxies) goes in.
	h.cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	h.cmd.Dir = "/"
	h.cmd.Stdout, h.cmd.Stderr = lf, lf
	h.cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS | syscall.CLONE_NEWUTS | syscall.CLONE_NEWIPC,
		Setsid:     true,
	}
	if tied {
		h.cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	if err := h.cmd.Start(); err != nil {
		return fmt.Errorf("machine %s: start: %w", h.Name, err)
	}
	pid := h.cmd.Process.Pid
	h.record("pid", strconv.Itoa(pid)+":"+procStart(pid))
	go func() { _ = h.cmd.Wait(); close(h.done) }()
	return nil
}

// waitSSH waits until the machine's sshd answers on IP:22.
func (h *Host) waitSSH(ctx context.Context) error {
	exited := false
	err := poll(ctx, 2*time.Minute, func() bool {
		select {
		case <-h.done:
			exited = true
			return true
		default:
		}
		return sshprobe.Banner(h.Addr())
	})
	switch {
	case exited:
		return fmt.Errorf("machine %s: PID 1 exited (%v):\n%s", h.Name, h.cmd.ProcessState, tail([]byte(h.Log()), 40))
	case err != nil:
		return fmt.Errorf("machine %s: sshd did not answer on %s: %w\n%s", h.Name, h.Addr(), err, tail([]byte(h.Log()), 40))
	}
	return nil
}
