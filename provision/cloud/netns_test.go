package cloud_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/provision/cloud"
)

// The host-key path end to end, against a real sshd in a network namespace
// this test makes: the host key is generated and put into cloud-init user
// data exactly as the Hetzner driver does; the test reads it back out of the
// user data and gives it to sshd (standing in for cloud-init), next to an
// ECDSA key such as a RHEL image regenerates. The run's known_hosts pins the
// injected key: the connection is accepted and the probe runs. With another
// key pinned (a host that is not the one we made), the connection is refused
// before any command runs, also while retrying until the deadline.
func TestInjectedHostKeyOverRealSSHD(t *testing.T) {
	ns := testenv.NewNetNS(t)
	runDir := t.TempDir()
	hostKey, err := cloud.NewKeyPair(nil, "wptest-t1-server")
	if err != nil {
		t.Fatal(err)
	}
	userData := cloud.CloudInitHostKey(hostKey)
	injected, err := cloud.HostKeyFromCloudInit(userData)
	if err != nil {
		t.Fatal(err)
	}
	client, err := cloud.ClientKey(runDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	sshd := ns.StartSSHD(t, []string{ecdsaPEM(t), injected}, []string{client.Public})

	m := cloud.Machine{Name: "wptest-t1-server", Role: cloud.RoleServer, Address: ns.NSIP, Port: 22, User: "root", HostKey: hostKey.Public}
	if err := cloud.WriteKnownHosts(filepath.Join(runDir, cloud.KnownHostsFile), []cloud.Machine{m}); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	ctx := context.Background()
	err = cloud.WaitReady(ctx, runDir, m, cloud.WaitOptions{Timeout: 30 * time.Second, Probe: "echo ok > " + host.Quote(marker)})
	if err != nil {
		t.Fatalf("pinned injected key refused: %v\nsshd log:\n%s", err, sshd.Log())
	}
	if b, err := os.ReadFile(marker); err != nil || string(b) != "ok\n" {
		t.Fatalf("probe did not run: %q %v", b, err)
	}

	// Another key pinned for the same address: refused, nothing runs, also
	// when retrying mismatches until the deadline.
	otherDir := t.TempDir()
	other, err := cloud.NewKeyPair(nil, "someone-else")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cloud.ClientKey(otherDir, nil); err != nil {
		t.Fatal(err)
	}
	// The same client key, so only the host key differs.
	for _, f := range []string{cloud.ClientKeyFile, cloud.ClientKeyFile + ".pub"} {
		b, _ := os.ReadFile(filepath.Join(runDir, f))
		if err := os.WriteFile(filepath.Join(otherDir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	wrong := m
	wrong.HostKey = other.Public
	if err := cloud.WriteKnownHosts(filepath.Join(otherDir, cloud.KnownHostsFile), []cloud.Machine{wrong}); err != nil {
		t.Fatal(err)
	}
	marker2 := filepath.Join(t.TempDir(), "ran")
	start := time.Now()
	err = cloud.WaitReady(ctx, otherDir, wrong, cloud.WaitOptions{Timeout: 3 * time.Second, RetryHostKeyMismatch: true, Probe: "echo ok > " + host.Quote(marker2)})
	var hke *host.HostKeyError
	if !errors.As(err, &hke) || !hke.Mismatch() {
		t.Fatalf("wrong key: err = %v, want a host key mismatch", err)
	}
	if _, serr := os.Stat(marker2); serr == nil {
		t.Fatal("a command ran on a host with the wrong key")
	}
	if time.Since(start) < 2*time.Second {
		t.Errorf("mismatch was not retried until the deadline (%v)", time.Since(start))
	}
	// sshd saw no authentication on those connections.
	if n := strings.Count(sshd.Log(), "Accepted publickey"); n != 1 {
		t.Errorf("sshd accepted %d logins, want exactly the 1 with the pinned key:\n%s", n, sshd.Log())
	}
}

func ecdsaPEM(t *testing.T) string {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	blk, err := ssh.MarshalPrivateKey(k, "")
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(blk))
}
