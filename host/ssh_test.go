package host_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
)

func writeKnownHosts(t *testing.T, addr string, keys ...ssh.PublicKey) string {
	t.Helper()
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(knownhosts.Line([]string{knownhosts.Normalize(addr)}, k) + "\n")
	}
	f := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(f, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

func randomKey(t *testing.T) ssh.PublicKey {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func target(t testing.TB, s *testenv.SSHServer) host.Target {
	t.Helper()
	tg, err := host.ParseTarget(s.Target)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// tryOpenAndMark opens the host and, if that (wrongly) succeeds, creates a
// marker file on it. The caller asserts the marker does not exist.
func tryOpenAndMark(t *testing.T, s *testenv.SSHServer, opt host.Options) (string, error) {
	t.Helper()
	marker := filepath.Join(t.TempDir(), "ran")
	h, err := host.Open(context.Background(), target(t, s), opt)
	if err == nil {
		defer h.Close()
		_, _ = h.Run(context.Background(), host.Cmd{Script: "touch " + host.Quote(marker)})
	}
	return marker, err
}

func TestHostKeyMismatchRefusedBeforeAnythingIsSent(t *testing.T) {
	s := testenv.SSHD(t)
	pinned := randomKey(t) // not the server's key
	kh := writeKnownHosts(t, s.Addr, pinned)
	marker, err := tryOpenAndMark(t, s, host.Options{KnownHostsFile: kh, IdentityFile: s.IdentityFile, ConnectTimeout: 10 * time.Second})
	var hke *host.HostKeyError
	if !errors.As(err, &hke) || !hke.Mismatch() {
		t.Fatalf("err = %v, want a host-key mismatch", err)
	}
	msg := err.Error()
	for _, want := range []string{
		ssh.FingerprintSHA256(s.HostPublicKey), // what the server showed
		ssh.FingerprintSHA256(pinned),          // what we pinned
		kh, s.Addr, "MISMATCH",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a command ran on a host whose key did not match")
	}
	// Nothing was sent: the client never even tried to authenticate.
	log := s.Log()
	if strings.Contains(log, "publickey") || strings.Contains(log, "Accepted") {
		t.Errorf("sshd saw an authentication attempt from a client that should have stopped at the host key:\n%s", log)
	}
}

func TestUnknownHostRefused(t *testing.T) {
	s := testenv.SSHD(t)
	// The file pins the right key, but for another port: this host is unknown.
	kh := writeKnownHosts(t, "127.0.0.1:1", s.HostPublicKey)
	marker, err := tryOpenAndMark(t, s, host.Options{KnownHostsFile: kh, IdentityFile: s.IdentityFile})
	var hke *host.HostKeyError
	if !errors.As(err, &hke) || hke.Mismatch() || len(hke.Pinned) != 0 {
		t.Fatalf("err = %v, want an unknown-host error", err)
	}
	for _, want := range []string{"not in known_hosts", kh, s.Addr, hke.Fingerprint} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %v", want, err)
		}
	}
	// Nothing pinned for this host, so the server chose among its keys.
	if fp := hke.Fingerprint; fp != ssh.FingerprintSHA256(s.HostPublicKey) && fp != ssh.FingerprintSHA256(s.ECDSAHostPublicKey) {
		t.Errorf("received fingerprint %s is none of the server's keys", fp)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a command ran on an unknown host")
	}
}

func TestHostKeyMismatchRetriedButNeverAccepted(t *testing.T) {
	s := testenv.SSHD(t)
	kh := writeKnownHosts(t, s.Addr, randomKey(t))
	var log testenv.SyncBuffer
	start := time.Now()
	_, err := tryOpenAndMark(t, s, host.Options{
		KnownHostsFile: kh, IdentityFile: s.IdentityFile, Log: &log,
		WaitFor: 4 * time.Second, RetryHostKeyMismatch: true,
	})
	var hke *host.HostKeyError
	if !errors.As(err, &hke) || !hke.Mismatch() {
		t.Fatalf("err = %v, want a host-key mismatch", err)
	}
	if d := time.Since(start); d < 3*time.Second {
		t.Errorf("gave up after %s; RetryHostKeyMismatch with WaitFor 4s should keep trying", d)
	}
	if strings.Contains(err.Error(), "(attempt 1)") {
		t.Errorf("only one attempt: %v", err)
	}
	if n := strings.Count(log.String(), "HOST KEY MISMATCH"); n < 2 {
		t.Errorf("each refused attempt must be logged loudly; log:\n%s", log.String())
	}
	// Without RetryHostKeyMismatch a mismatch ends at the first attempt,
	// WaitFor or not.
	_, err = host.Open(context.Background(), target(t, s), host.Options{KnownHostsFile: kh, IdentityFile: s.IdentityFile, WaitFor: 30 * time.Second})
	if !errors.As(err, &hke) || !strings.Contains(err.Error(), "(attempt 1)") {
		t.Errorf("mismatch without retry: %v, want a mismatch on attempt 1", err)
	}
}

// sshd offers an unpinned ECDSA key before the pinned ed25519 one; the
// client must negotiate only the pinned type, read from known_hosts.
func TestHostKeyAlgorithmsFollowPinnedType(t *testing.T) {
	s := testenv.SSHD(t)
	// Raw x/crypto with the same known_hosts but no restriction: refused.
	cb, err := knownhosts.New(s.KnownHostsFile)
	if err != nil {
		t.Fatal(err)
	}
	signer := s.ClientSigner
	if c, err := ssh.Dial("tcp", s.Addr, &ssh.ClientConfig{User: s.User, Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)}, HostKeyCallback: cb}); err == nil {
		c.Close()
		t.Fatal("control: an unrestricted client connected, so this test would prove nothing")
	}
	for _, tc := range []struct {
		name string
		keys []ssh.PublicKey
	}{
		{"ed25519 pinned", []ssh.PublicKey{s.HostPublicKey}},
		{"ecdsa pinned", []ssh.PublicKey{s.ECDSAHostPublicKey}},
		{"both pinned", []ssh.PublicKey{s.HostPublicKey, s.ECDSAHostPublicKey}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kh := writeKnownHosts(t, s.Addr, tc.keys...)
			h, err := host.Open(context.Background(), target(t, s), host.Options{KnownHostsFile: kh, IdentityFile: s.IdentityFile})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			res, err := h.Run(context.Background(), host.Cmd{Script: "echo ok"})
			if err != nil || string(res.Stdout) != "ok\n" {
				t.Fatalf("run: %q %v", res.Stdout, err)
			}
		})
	}
}

func TestAgentAuth(t *testing.T) {
	s := testenv.SSHD(t)
	// A real ssh-agent protocol server on a unix socket, holding the
	// client key; no IdentityFile is given.
	pemBytes, err := os.ReadFile(s.IdentityFile)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := ssh.ParseRawPrivateKey(pemBytes)
	if err != nil {
		t.Fatal(err)
	}
	keyring := agent.NewKeyring()
	if err := keyring.Add(agent.AddedKey{PrivateKey: raw}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { _ = agent.ServeAgent(keyring, c); c.Close() }()
		}
	}()
	h, err := host.Open(context.Background(), target(t, s), host.Options{KnownHostsFile: s.KnownHostsFile, AgentSocket: sock})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.Run(context.Background(), host.Cmd{Script: "true"}); err != nil {
		t.Fatal(err)
	}
	// An agent without the key cannot log in.
	if err := keyring.RemoveAll(); err != nil {
		t.Fatal(err)
	}
	if _, err := host.Open(context.Background(), target(t, s), host.Options{KnownHostsFile: s.KnownHostsFile, AgentSocket: sock}); err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
		t.Errorf("empty agent: %v", err)
	}
}

func TestOpenNeedsPinningAndAuth(t *testing.T) {
	tg, _ := host.ParseTarget("ssh://root@127.0.0.1:22")
	if _, err := host.Open(context.Background(), tg, host.Options{IdentityFile: "x"}); err == nil || !strings.Contains(err.Error(), "known_hosts") {
		t.Errorf("no known_hosts: %v", err)
	}
	if _, err := host.Open(context.Background(), tg, host.Options{KnownHostsFile: "x"}); err == nil || !strings.Contains(err.Error(), "identity") {
		t.Errorf("no auth: %v", err)
	}
}

func TestEncryptedIdentityFileNamesTheWayOut(t *testing.T) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKeyWithPassphrase(priv, "", []byte("pass"))
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "id_enc")
	if err := os.WriteFile(f, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	tg, _ := host.ParseTarget("ssh://root@127.0.0.1:1")
	kh := writeKnownHosts(t, "127.0.0.1:1", randomKey(t))
	_, err = host.Open(context.Background(), tg, host.Options{KnownHostsFile: kh, IdentityFile: f})
	if err == nil || !strings.Contains(err.Error(), "encrypted") || !strings.Contains(err.Error(), "ssh-agent") || !strings.Contains(err.Error(), f) {
		t.Fatalf("err = %v, want one naming the file, that it is encrypted, and ssh-agent", err)
	}
}

// A refused port is retried until WaitFor runs out, then named in the error.
func TestDialRetriesUntilDeadline(t *testing.T) {
	s := testenv.SSHD(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	tg, _ := host.ParseTarget("ssh://root@" + addr)
	kh := writeKnownHosts(t, addr, s.HostPublicKey)
	start := time.Now()
	_, err = host.Open(context.Background(), tg, host.Options{KnownHostsFile: kh, IdentityFile: s.IdentityFile, WaitFor: 1200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), addr) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d < 700*time.Millisecond {
		t.Errorf("gave up after %s, before WaitFor", d)
	}
	if strings.Contains(err.Error(), "(attempt 1)") || !strings.Contains(err.Error(), "(attempt ") {
		t.Errorf("only one attempt: %v", err)
	}
}

// stallProxy forwards TCP to addr until frozen, then silently drops
// everything both ways: a peer that died without closing the connection.
type stallProxy struct {
	l      net.Listener
	mu     sync.Mutex
	frozen bool
}

func newStallProxy(t *testing.T, addr string) *stallProxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallProxy{l: l}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			go p.pipe(c, up)
			go p.pipe(up, c)
		}
	}()
	return p
}

func (p *stallProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			return
		}
		p.mu.Lock()
		frozen := p.frozen
		p.mu.Unlock()
		if !frozen {
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
	}
}

func (p *stallProxy) freeze() { p.mu.Lock(); p.frozen = true; p.mu.Unlock() }

// Keepalives notice a peer that stopped answering and fail the command
// instead of hanging until its (long) timeout.
func TestKeepaliveClosesDeadConnection(t *testing.T) {
	s := testenv.SSHD(t)
	p := newStallProxy(t, s.Addr)
	addr := p.l.Addr().String()
	tg, _ := host.ParseTarget("ssh://" + s.User + "@" + addr)
	h, err := host.Open(context.Background(), tg, host.Options{
		KnownHostsFile: writeKnownHosts(t, addr, s.HostPublicKey), IdentityFile: s.IdentityFile,
		KeepaliveInterval: 300 * time.Millisecond, KeepaliveMaxMissed: 5,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.Run(context.Background(), host.Cmd{Script: "true"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	var out testenv.SyncBuffer
	start := time.Now()
	go func() {
		_, err := h.Run(context.Background(), host.Cmd{Script: "echo started; sleep 50; echo late", Timeout: time.Minute, Stdout: &out})
		done <- err
	}()
	// Freeze once the command runs on the far side, so the stall hits a
	// command in flight, not the session's setup.
	testenv.WaitFor(t, time.Minute, "the remote command to start", func() bool { return out.Contains("started") })
	p.freeze()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "keepalive") {
			t.Fatalf("err = %v, want a dead-connection error naming keepalive", err)
		}
		t.Logf("failed after %s: %v", time.Since(start), err)
	case <-time.After(30 * time.Second):
		t.Fatal("Run still hangs 30s after the peer went silent")
	}
}

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "local", want: "local"},
		{in: "ssh://root@10.0.0.2:2222", want: "ssh://root@10.0.0.2:2222"},
		{in: "ssh://deploy@web-1", want: "ssh://deploy@web-1:22"},
		{in: "ssh://example.org", want: "ssh://root@example.org:22"},
		{in: "ssh://root@[::1]:2200", want: "ssh://root@[::1]:2200"},
		{in: "web-1", err: `want "local" or "ssh://user@host:port"`},
		{in: "ssh://root@host:99999", err: "bad port"},
		{in: "ssh://root:hunter2@host", err: "passwords are not accepted"},
		{in: "ssh://root@host/path", err: "unexpected path"},
		{in: "ssh://root@:22", err: "missing host"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := host.ParseTarget(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Fatalf("error leaks the password: %v", err)
				}
				return
			}
			if err != nil || got.String() != tc.want {
				t.Fatalf("got %q, %v; want %q", got.String(), err, tc.want)
			}
		})
	}
}

// The repository never turns host-key checking off, not even in tests.
func TestNoHostKeyBypassInRepo(t *testing.T) {
	git, err := exec.LookPath("git")
	testenv.Need(t, err == nil, "git")
	needle := "Insecure" + "IgnoreHostKey" // in two halves, so this file does not match itself
	out, err := exec.Command(git, "grep", "-n", needle, "--", ":/").CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 {
		return // git grep: no match
	}
	if err != nil {
		testenv.Need(t, false, "git grep: "+strings.TrimSpace(string(out))+": "+err.Error())
	}
	t.Fatalf("%s found in the repository:\n%s", needle, out)
}

func BenchmarkSSHRun(b *testing.B) {
	s := testenv.SSHD(b)
	h := openSSH(b, s, nil)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := h.Run(ctx, host.Cmd{Script: "true"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSSHPut1MB(b *testing.B) {
	s := testenv.SSHD(b)
	h := openSSH(b, s, nil)
	ctx := context.Background()
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	p := filepath.Join(b.TempDir(), "f")
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if err := h.Put(ctx, p, bytes.NewReader(data), host.PutOptions{Mode: 0o644}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLocalRun and BenchmarkLocalPut1MB are the baselines for the SSH
// benchmarks on the same machine (compare as ratios: the absolute numbers
// move with the machine's load).
func BenchmarkLocalRun(b *testing.B) {
	h := host.NewLocal(nil)
	ctx := context.Background()
	for b.Loop() {
		if _, err := h.Run(ctx, host.Cmd{Script: "true"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLocalPut1MB(b *testing.B) {
	h := host.NewLocal(nil)
	ctx := context.Background()
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	p := filepath.Join(b.TempDir(), "f")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := h.Put(ctx, p, bytes.NewReader(data), host.PutOptions{Mode: 0o644}); err != nil {
			b.Fatal(err)
		}
	}
}
