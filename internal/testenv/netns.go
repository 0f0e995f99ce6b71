package testenv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/sshprobe"
	"github.com/wptest/wptest/internal/subnet"
)

// NetNS is a network namespace made for one test, joined to this machine by
// a veth pair on a /30 that exists only inside the test: a "remote host"
// with its own address (feasibility §7). Traffic to it never leaves the
// machine.
type NetNS struct {
	Name   string // ip netns name
	HostIP string // our side of the veth (10.213.X.1)
	NSIP   string // the namespace's side (10.213.X.2)
}

// NewNetNS makes a namespace and veth pair, removed in t.Cleanup. It needs
// root and iproute2 (testenv.Need: skipped locally, fatal under CI=true).
func NewNetNS(t testing.TB) *NetNS {
	t.Helper()
	Integration(t)
	NeedRoot(t)
	ip := NeedBinary(t, "ip")
	tag := randomHex(3)
	l, err := subnet.Claim()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Release() })
	ns := &NetNS{Name: "wpt-" + tag, HostIP: l.Gateway, NSIP: l.Peer}
	out, err := exec.Command(ip, "netns", "add", ns.Name).CombinedOutput()
	Need(t, err == nil, fmt.Sprintf("ip netns add not permitted: %v %s", err, out))
	vh, vn := "wv"+tag+"h", "wv"+tag+"n"
	t.Cleanup(func() {
		// Deleting the namespace destroys the veth end inside it and with
		// it the pair; the link del covers a half-made setup.
		_ = exec.Command(ip, "link", "del", vh).Run()
		_ = exec.Command(ip, "netns", "del", ns.Name).Run()
	})
	for _, args := range [][]string{
		{"link", "add", vh, "type", "veth", "peer", "name", vn},
		{"link", "set", vn, "netns", ns.Name},
		{"addr", "add", ns.HostIP + "/30", "dev", vh},
		{"link", "set", vh, "up"},
		{"-n", ns.Name, "addr", "add", ns.NSIP + "/30", "dev", vn},
		{"-n", ns.Name, "link", "set", vn, "up"},
		{"-n", ns.Name, "link", "set", "lo", "up"},
	} {
		if out, err := exec.Command(ip, args...).CombinedOutput(); err != nil {
			// Another test may hold the same /30 (1 in 250): say so plainly.
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return ns
}

// NetNSSSHD is an OpenSSH sshd running inside a NetNS on NSIP:22.
type NetNSSSHD struct {
	Addr string // NSIP:22
	Dir  string
	log  *SyncBuffer
	cmd  *exec.Cmd
	done chan struct{}
}

// Log is what sshd printed (-e).
func (s *NetNSSSHD) Log() string { return s.log.String() }

// StartSSHD starts sshd inside ns with exactly the given host private keys
// (PEM, written 0600 as its HostKey files, standing in for what cloud-init
// installs on a real VM) and authorized public keys. It is stopped in
// t.Cleanup.
func (ns *NetNS) StartSSHD(t testing.TB, hostKeysPEM []string, authorized []string) *NetNSSSHD {
	t.Helper()
	_, err := os.Stat(SSHDPath)
	Need(t, err == nil, SSHDPath+" not installed (Debian: openssh-server)")
	dir := t.TempDir()
	// sshd's privilege separation directory; the Debian package makes it at
	// service start, which tests do not use.
	_ = os.MkdirAll("/run/sshd", 0o755)
	conf := []string{
		"Port 22",
		"ListenAddress " + ns.NSIP,
		"PidFile " + filepath.Join(dir, "sshd.pid"),
		"AuthorizedKeysFile " + filepath.Join(dir, "authorized_keys"),
		"PermitRootLogin prohibit-password",
		"StrictModes no", "UsePAM no", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
		"PrintMotd no", "LogLevel VERBOSE",
		// As every real host's sshd: uploads (the agent, srvstat) go over SFTP.
		"Subsystem sftp internal-sftp",
	}
	for i, k := range hostKeysPEM {
		p := filepath.Join(dir, fmt.Sprintf("ssh_host_key_%d", i))
		if err := os.WriteFile(p, []byte(k), 0o600); err != nil {
			t.Fatal(err)
		}
		conf = append(conf, "HostKey "+p)
	}
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), []byte(strings.Join(authorized, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cf := filepath.Join(dir, "sshd_config")
	if err := os.WriteFile(cf, []byte(strings.Join(conf, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &NetNSSSHD{Addr: net.JoinHostPort(ns.NSIP, "22"), Dir: dir, log: &SyncBuffer{}, done: make(chan struct{})}
	s.cmd = exec.Command("ip", "netns", "exec", ns.Name, SSHDPath, "-D", "-e", "-f", cf)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start sshd in %s: %v", ns.Name, err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	t.Cleanup(s.stop)
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			t.Fatalf("sshd in %s exited: %s", ns.Name, s.log.String())
		default:
		}
		if sshprobe.Banner(s.Addr) {
			return s
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("sshd in %s did not answer on %s: %s", ns.Name, s.Addr, s.log.String())
	return nil
}

// stop ends sshd and its sessions (its own process group, nothing else).
func (s *NetNSSSHD) stop() {
	stopGroup(s.cmd.Process.Pid, s.done)
}
