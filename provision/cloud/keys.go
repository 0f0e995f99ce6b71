package cloud

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/wptest/wptest/internal/safefile"
)

// KeyPair is an ed25519 key: the private key in OpenSSH PEM form and the
// public key in authorized_keys form. PrivatePEM is a secret: register it
// with the Redactor before anything can print it.
type KeyPair struct {
	PrivatePEM string
	Public     string // "ssh-ed25519 AAAA... comment"
	Signer     ssh.Signer
}

// NewKeyPair generates a fresh ed25519 key from rnd (crypto/rand if nil).
func NewKeyPair(rnd io.Reader, comment string) (KeyPair, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	pub, priv, err := ed25519.GenerateKey(rnd)
	if err != nil {
		return KeyPair{}, fmt.Errorf("generate ed25519 key: %w", err)
	}
	blk, err := ssh.MarshalPrivateKey(priv, comment)
	if err != nil {
		return KeyPair{}, fmt.Errorf("marshal key: %w", err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		return KeyPair{}, err
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		return KeyPair{}, err
	}
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sshPub)))
	if comment != "" {
		line += " " + comment
	}
	return KeyPair{PrivatePEM: string(pem.EncodeToMemory(blk)), Public: line, Signer: signer}, nil
}

// SSHDNoPasswords is the sshd configuration a cloud server gets before
// sshd first starts (cloud-init write_files, SSHDNoPasswordsFile): keys
// only. sshd takes the first value it reads of each keyword, and the
// images' sshd_config includes sshd_config.d/*.conf first, so this file
// (00-) wins over the image's and cloud-init's own (50-cloud-init.conf).
const SSHDNoPasswords = "# wptest: keys only. Nobody logs in with a password.\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nPermitEmptyPasswords no\n"

// SSHDNoPasswordsFile is where CloudInitHostKey writes SSHDNoPasswords.
const SSHDNoPasswordsFile = "/etc/ssh/sshd_config.d/00-wptest.conf"

// CloudInitHostKey is the cloud-config that makes a fresh server use the
// given ed25519 host key (cloud-init cc_ssh: ssh_keys), drop the image's
// default keys and generate no others, so the key we pin is the key sshd
// offers. RHEL-family images may still regenerate RSA/ECDSA keys at sshd
// start; the client restricts HostKeyAlgorithms to ed25519, which makes those
// harmless. It also turns SSH password login off, twice over: cloud-init's
// ssh_pwauth: false (cc_set_passwords) and sshd's own drop-in
// (SSHDNoPasswords), in place before sshd first starts.
func CloudInitHostKey(host KeyPair) string {
	var b strings.Builder
	b.WriteString("#cloud-config\n")
	b.WriteString("ssh_pwauth: false\n")
	b.WriteString("write_files:\n")
	b.WriteString("  - path: " + SSHDNoPasswordsFile + "\n")
	b.WriteString("    owner: root:root\n")
	b.WriteString("    permissions: '0644'\n")
	b.WriteString("    content: |\n")
	for _, l := range strings.Split(strings.TrimRight(SSHDNoPasswords, "\n"), "\n") {
		b.WriteString("      " + l + "\n")
	}
	b.WriteString("ssh_deletekeys: true\n")
	b.WriteString("ssh_genkeytypes: []\n")
	b.WriteString("ssh_keys:\n")
	b.WriteString("  ed25519_private: |\n")
	for _, l := range strings.Split(strings.TrimRight(host.PrivatePEM, "\n"), "\n") {
		b.WriteString("    " + l + "\n")
	}
	b.WriteString("  ed25519_public: " + host.Public + "\n")
	return b.String()
}

// FileFromCloudInit reads the content of the write_files entry for path
// back out of user data written by CloudInitHostKey ("" when there is
// none): what cloud-init writes there on first boot.
func FileFromCloudInit(userData, path string) string {
	var out []string
	state := 0 // 1: in the entry for path; 2: in its content
	for _, l := range strings.Split(userData, "\n") {
		switch {
		case l == "  - path: "+path:
			state = 1
		case state >= 1 && strings.HasPrefix(l, "  - "), state >= 1 && !strings.HasPrefix(l, "    "):
			state = 0
		case state == 1 && l == "    content: |":
			state = 2
		case state == 2 && strings.HasPrefix(l, "      "):
			out = append(out, strings.TrimPrefix(l, "      "))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

// HostKeyFromCloudInit reads the ed25519 private key back out of user data
// written by CloudInitHostKey (what cloud-init does on first boot; tests use
// it to give sshd the injected key).
func HostKeyFromCloudInit(userData string) (string, error) {
	var out []string
	in := false
	for _, l := range strings.Split(userData, "\n") {
		switch {
		case strings.TrimSpace(l) == "ed25519_private: |":
			in = true
		case in && strings.HasPrefix(l, "    "):
			out = append(out, strings.TrimPrefix(l, "    "))
		case in:
			in = false
		}
	}
	if len(out) == 0 {
		return "", fmt.Errorf("user data has no ed25519_private key")
	}
	return strings.Join(out, "\n") + "\n", nil
}

// KnownHostsLine is the known_hosts line pinning pub (authorized_keys form)
// for addr:port.
func KnownHostsLine(addr string, port int, pub string) (string, error) {
	k, _, _, _, err := ssh.ParseAuthorizedKey([]byte(pub))
	if err != nil {
		return "", fmt.Errorf("host key for %s: %w", addr, err)
	}
	hp := net.JoinHostPort(addr, strconv.Itoa(port))
	return knownhosts.Line([]string{knownhosts.Normalize(hp)}, k), nil
}

// WriteKnownHosts appends a pin for every machine that has one to path
// (the run's own known_hosts, never the user's), mode 0600, never through
// a link planted there (safefile).
func WriteKnownHosts(path string, ms []Machine) error {
	var b strings.Builder
	for _, m := range ms {
		if m.HostKey == "" || m.Address == "" {
			continue
		}
		port := m.Port
		if port == 0 {
			port = 22
		}
		l, err := KnownHostsLine(m.Address, port, m.HostKey)
		if err != nil {
			return err
		}
		b.WriteString(l + "\n")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := safefile.Append(path, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Run directory files.
const (
	JournalFile    = "events.jsonl"
	KnownHostsFile = "known_hosts"
	ClientKeyFile  = "id_ed25519"
	MachinesFile   = "machines.json"
	FirewallFile   = "firewall.json"
)

// maxClientKey bounds what is read of a run's client key (an ed25519 key
// in PEM is under 1 KB).
const maxClientKey = 64 << 10

// ClientKey loads the run's client key from dir, or makes and saves a new
// one (private 0600, public .pub beside it). Both are read and written as
// a run directory's files are (safefile): never through a link.
func ClientKey(dir string, rnd io.Reader) (KeyPair, error) {
	p := filepath.Join(dir, ClientKeyFile)
	if b, err := safefile.ReadFile(p, maxClientKey); !errors.Is(err, fs.ErrNotExist) {
		if err != nil {
			return KeyPair{}, fmt.Errorf("client key: %w", err)
		}
		signer, err := ssh.ParsePrivateKey(b)
		if err != nil {
			return KeyPair{}, fmt.Errorf("client key %s: %w", p, err)
		}
		pub := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))
		return KeyPair{PrivatePEM: string(b), Public: pub, Signer: signer}, nil
	}
	kp, err := NewKeyPair(rnd, "wptest-client")
	if err != nil {
		return KeyPair{}, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return KeyPair{}, err
	}
	if err := safefile.Write(p, []byte(kp.PrivatePEM), 0o600); err != nil {
		return KeyPair{}, err
	}
	if err := safefile.Write(p+".pub", []byte(kp.Public+"\n"), 0o644); err != nil {
		return KeyPair{}, err
	}
	return kp, nil
}
