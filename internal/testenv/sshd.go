package testenv

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/wptest/wptest/internal/sshprobe"
)

// SSHDPath is the OpenSSH server the tests start.
const SSHDPath = "/usr/sbin/sshd"

// SSHServer is a real OpenSSH sshd started for one test on 127.0.0.1 with
// its own host keys and an authorized client key, both made by the test.
type SSHServer struct {
	Addr           string        // "127.0.0.1:PORT"
	Host           string        // "127.0.0.1"
	Port           int           // the loopback port sshd listens on
	User           string        // the user to log in as (the test's own user, root under CI)
	Target         string        // "ssh://root@127.0.0.1:PORT"
	Dir            string        // the server's own temp dir (config, keys, pid file, log)
	Home           string        // HOME of its sessions: an empty dir, so no ~/.bashrc runs
	KnownHostsFile string        // known_hosts pinning HostPublicKey (ed25519) for Addr only
	IdentityFile   string        // the authorized client's private key (OpenSSH format, 0600)
	HostPublicKey  ssh.PublicKey // the pinned ed25519 host key
	// ECDSAHostPublicKey is a second host key sshd also offers, and which is
	// NOT in KnownHostsFile: a client that does not restrict its host-key
	// algorithms to the pinned type negotiates ECDSA and sees a mismatch.
	ECDSAHostPublicKey ssh.PublicKey
	ClientSigner       ssh.Signer // the same client key as IdentityFile, in memory

	cmd  *exec.Cmd
	log  *SyncBuffer
	done chan struct{}
}

// SSHD starts a real /usr/sbin/sshd -D -e on a free loopback port for t and
// stops it (with every session process it forked) in t.Cleanup. A missing
// sshd skips locally and fails under CI=true.
func SSHD(t testing.TB) *SSHServer {
	t.Helper()
	Integration(t)
	_, err := os.Stat(SSHDPath)
	Need(t, err == nil, SSHDPath+" not installed (Debian: openssh-server)")
	u, err := user.Current()
	if err != nil {
		t.Fatalf("sshd: current user: %v", err)
	}
	// sshd refuses to start without its privilege-separation directory.
	if os.Geteuid() == 0 {
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatalf("sshd: %v", err)
		}
	}

	s := &SSHServer{Host: "127.0.0.1", User: u.Username, Dir: t.TempDir()}
	s.Home = filepath.Join(s.Dir, "home")
	if err := os.Mkdir(s.Home, 0o700); err != nil {
		t.Fatalf("sshd: %v", err)
	}
	hostKey := s.writeKeys(t)
	s.HostPublicKey = hostKey

	// A free port can be taken between our probe and sshd's bind (tests of
	// other packages run in parallel), so retry a few times.
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatalf("sshd: free port: %v", err)
		}
		if lastErr = s.start(port); lastErr == nil {
			break
		}
	}
	if lastErr != nil {
		t.Fatalf("sshd: %v", lastErr)
	}
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("sshd log (%s):\n%s", s.Addr, s.log.String())
		}
	})

	line := knownhosts.Line([]string{knownhosts.Normalize(s.Addr)}, s.HostPublicKey)
	s.KnownHostsFile = filepath.Join(s.Dir, "known_hosts")
	if err := os.WriteFile(s.KnownHostsFile, []byte(line+"\n"), 0o600); err != nil {
		t.Fatalf("sshd: %v", err)
	}
	return s
}

// Log returns what sshd has written to stderr so far (-e).
func (s *SSHServer) Log() string { return s.log.String() }

// writeKeys makes the host keys, the client key and authorized_keys, and
// returns the ed25519 host public key.
func (s *SSHServer) writeKeys(t testing.TB) ssh.PublicKey {
	t.Helper()
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecPriv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, clientPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for name, key := range map[string]any{
		"ssh_host_ed25519_key": hostPriv,
		"ssh_host_ecdsa_key":   ecPriv,
		"id_ed25519":           clientPriv,
	} {
		block, err := ssh.MarshalPrivateKey(key, "wptest-"+name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s.Dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	hostPub, err := ssh.NewPublicKey(hostPriv.Public())
	if err != nil {
		t.Fatal(err)
	}
	ecPub, err := ssh.NewPublicKey(ecPriv.Public())
	if err != nil {
		t.Fatal(err)
	}
	s.ECDSAHostPublicKey = ecPub
	s.ClientSigner, err = ssh.NewSignerFromKey(clientPriv)
	if err != nil {
		t.Fatal(err)
	}
	s.IdentityFile = filepath.Join(s.Dir, "id_ed25519")
	auth := ssh.MarshalAuthorizedKey(s.ClientSigner.PublicKey())
	if err := os.WriteFile(filepath.Join(s.Dir, "authorized_keys"), auth, 0o600); err != nil {
		t.Fatal(err)
	}
	return hostPub
}

func (s *SSHServer) config(port int) string {
	d := s.Dir
	// The ed25519 key comes second on purpose: sshd offers both, and a client
	// that does not restrict HostKeyAlgorithms picks ECDSA (x/crypto's
	// default preference), which the pinned known_hosts does not hold.
	return strings.Join([]string{
		"Port " + strconv.Itoa(port),
		"ListenAddress 127.0.0.1",
		"HostKey " + filepath.Join(d, "ssh_host_ecdsa_key"),
		"HostKey " + filepath.Join(d, "ssh_host_ed25519_key"),
		"PidFile " + filepath.Join(d, "sshd.pid"),
		"AuthorizedKeysFile " + filepath.Join(d, "authorized_keys"),
		"PermitRootLogin prohibit-password",
		"StrictModes no",
		"UsePAM no",
		"PubkeyAuthentication yes",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"AllowTcpForwarding yes",
		"X11Forwarding no",
		"PrintMotd no",
		"PermitUserEnvironment no",
		"MaxStartups 64",
		// MaxSessions stays at OpenSSH's default (10), as on real servers.
		"LogLevel VERBOSE",
		// Drop connections whose client vanished without closing.
		"ClientAliveInterval 10",
		"ClientAliveCountMax 3",
		"Subsystem sftp internal-sftp",
		// bash sources ~/.bashrc for commands run by sshd; a machine's own
		// (root's here loads pyenv) would add seconds to every command and
		// make tests depend on it. Sessions get an empty home of their own.
		"SetEnv HOME=" + filepath.Join(d, "home"),
		"",
	}, "\n")
}

func (s *SSHServer) start(port int) error {
	conf := filepath.Join(s.Dir, "sshd_config")
	if err := os.WriteFile(conf, []byte(s.config(port)), 0o600); err != nil {
		return err
	}
	s.Port = port
	s.Addr = net.JoinHostPort(s.Host, strconv.Itoa(port))
	s.Target = fmt.Sprintf("ssh://%s@%s", s.User, s.Addr)
	s.log = &SyncBuffer{}
	s.done = make(chan struct{})
	// sshd insists on being started by absolute path (it re-execs itself).
	cmd := exec.Command(SSHDPath, "-D", "-e", "-f", conf)
	cmd.Stdout = s.log
	cmd.Stderr = s.log
	// Its own process group, so stop() also ends the per-connection
	// processes sshd forks, and nothing else.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Per-connection children hold our stderr pipe; do not let a client
	// that never hung up block Wait forever.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", SSHDPath, err)
	}
	s.cmd = cmd
	go func() { _ = cmd.Wait(); close(s.done) }()

	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return fmt.Errorf("sshd exited during start-up on port %d: %s", port, strings.TrimSpace(s.log.String()))
		default:
		}
		if sshprobe.Banner(s.Addr) {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.stop()
	return fmt.Errorf("sshd on %s did not accept within 15s: %s", s.Addr, s.log.String())
}

// stop ends sshd and its session processes (its own process group).
func (s *SSHServer) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	pgid := s.cmd.Process.Pid
	// Per-connection processes leave sshd's process group (setsid), so
	// they are ended by pid: the listener's children, found while it lives.
	for _, pid := range childrenOf(pgid) {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	stopGroup(pgid, s.done)
}

// stopGroup ends process group pgid, whose leader closes done when it has
// exited: TERM, then KILL if the leader has not exited within 5 s; then
// KILL again for what is left in the group (session processes).
func stopGroup(pgid int, done <-chan struct{}) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// Stop ends the server now (it is also stopped in t.Cleanup). Tests use it
// to see what a client does when the server goes away.
func (s *SSHServer) Stop() { s.stop() }

// childrenOf lists the pids whose parent is ppid (from /proc).
func childrenOf(ppid int) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces, so cut at ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(ppid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
