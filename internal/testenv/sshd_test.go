package testenv

import (
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// TestSSHD logs in to the started sshd with the pinned host key and the
// client key, and runs a command: the harness every package uses works.
func TestSSHD(t *testing.T) {
	s := SSHD(t)
	if !strings.HasPrefix(s.Target, "ssh://"+s.User+"@127.0.0.1:") {
		t.Fatalf("Target = %q", s.Target)
	}
	for _, f := range []string{s.IdentityFile, s.KnownHostsFile} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", f, fi.Mode().Perm())
		}
	}
	cb, err := knownhosts.New(s.KnownHostsFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ClientConfig{
		User:              s.User,
		Auth:              []ssh.AuthMethod{ssh.PublicKeys(s.ClientSigner)},
		HostKeyCallback:   cb,
		HostKeyAlgorithms: []string{ssh.KeyAlgoED25519},
		Timeout:           10 * time.Second,
	}
	c, err := ssh.Dial("tcp", s.Addr, cfg)
	if err != nil {
		t.Fatalf("dial %s: %v\n%s", s.Addr, err, s.Log())
	}
	defer c.Close()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out, err := sess.Output("echo hello-$((6*7)) $HOME")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "hello-42 "+s.Home {
		t.Fatalf("output %q", got)
	}

	// sshd also offers an ECDSA host key that is not pinned: without the
	// algorithm restriction the pinned known_hosts rejects the handshake.
	cfg.HostKeyAlgorithms = nil
	if c2, err := ssh.Dial("tcp", s.Addr, cfg); err == nil {
		c2.Close()
		t.Fatal("unrestricted client connected; sshd should have offered the unpinned ECDSA key first")
	}

	// Stop ends the server: nothing answers on its port any more.
	c.Close()
	s.Stop()
	if conn, err := net.DialTimeout("tcp", s.Addr, time.Second); err == nil {
		conn.Close()
		t.Fatal("sshd still accepts after Stop")
	}
}
