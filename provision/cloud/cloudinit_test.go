package cloud_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/provision/cloud"
)

// TestCloudInitTurnsOffPasswordLogin: a server's user data turns SSH
// password login off (cloud-init's ssh_pwauth: false, and sshd's own
// drop-in written before sshd first starts), and the drop-in wins over an
// image whose sshd_config allows passwords: real sshd's effective
// configuration (sshd -T) says so, and says the opposite without it.
func TestCloudInitTurnsOffPasswordLogin(t *testing.T) {
	k, err := cloud.NewKeyPair(nil, "wptest-t1-server")
	if err != nil {
		t.Fatal(err)
	}
	ud := cloud.CloudInitHostKey(k)
	if !strings.HasPrefix(ud, "#cloud-config\n") || !strings.Contains(ud, "\nssh_pwauth: false\n") {
		t.Errorf("user data does not turn cloud-init's ssh_pwauth off:\n%s", ud)
	}
	dropin := cloud.FileFromCloudInit(ud, cloud.SSHDNoPasswordsFile)
	if dropin != cloud.SSHDNoPasswords {
		t.Fatalf("user data writes %s as %q, want %q", cloud.SSHDNoPasswordsFile, dropin, cloud.SSHDNoPasswords)
	}
	if got, err := cloud.HostKeyFromCloudInit(ud); err != nil || got != k.PrivatePEM {
		t.Errorf("the host key does not read back from the user data beside write_files: %v", err)
	}

	testenv.Integration(t) // the rest asks the real sshd
	testenv.NeedBinary(t, testenv.SSHDPath)
	// sshd -T wants its privilege-separation directory, which only a
	// started sshd (or an earlier test) would have made.
	_ = os.MkdirAll("/run/sshd", 0o755)
	dir := t.TempDir()
	hostKey := filepath.Join(dir, "host_key")
	if err := os.WriteFile(hostKey, []byte(k.PrivatePEM), 0o600); err != nil {
		t.Fatal(err)
	}
	confd := filepath.Join(dir, "sshd_config.d")
	os.Mkdir(confd, 0o755)
	// An image that allows passwords, including its drop-ins first (as
	// Debian 12's and AlmaLinux 9's sshd_config do).
	image := "Include " + confd + "/*.conf\nHostKey " + hostKey + "\nPasswordAuthentication yes\nKbdInteractiveAuthentication yes\nPermitRootLogin yes\n"
	cfg := filepath.Join(dir, "sshd_config")
	os.WriteFile(cfg, []byte(image), 0o600)
	effective := func() map[string]string {
		t.Helper()
		out, err := exec.Command(testenv.SSHDPath, "-T", "-f", cfg).CombinedOutput()
		if err != nil {
			t.Fatalf("sshd -T: %v\n%s", err, out)
		}
		m := map[string]string{}
		for _, l := range strings.Split(string(out), "\n") {
			if k, v, ok := strings.Cut(l, " "); ok {
				m[k] = v
			}
		}
		return m
	}
	if m := effective(); m["passwordauthentication"] != "yes" {
		t.Fatalf("the test's image config does not allow passwords (%q): the test would show nothing", m["passwordauthentication"])
	}
	if err := os.WriteFile(filepath.Join(confd, filepath.Base(cloud.SSHDNoPasswordsFile)), []byte(dropin), 0o644); err != nil {
		t.Fatal(err)
	}
	// cloud-init's own drop-in as cc_set_passwords writes it for
	// ssh_pwauth: true, sorting after ours.
	os.WriteFile(filepath.Join(confd, "50-cloud-init.conf"), []byte("PasswordAuthentication yes\n"), 0o644)
	m := effective()
	for _, k := range []string{"passwordauthentication", "kbdinteractiveauthentication", "permitemptypasswords"} {
		if m[k] != "no" {
			t.Errorf("with the user data's drop-in, sshd's %s is %q, want no", k, m[k])
		}
	}
}
