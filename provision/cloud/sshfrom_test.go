package cloud

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
)

// TestSSHFromThisHost: where allow_ssh_from is not given, it becomes this
// host's public addresses (IPv4 /32, IPv6 /64), and the reason says so;
// with none public (private, loopback, link-local, CGNAT, documentation
// addresses: behind NAT) it stays anywhere and the reason says the
// address the servers will see is not known here; a given value is kept.
func TestSSHFromThisHost(t *testing.T) {
	addrs := func(s ...string) []netip.Addr {
		var out []netip.Addr
		for _, a := range s {
			out = append(out, netip.MustParseAddr(a))
		}
		return out
	}
	private := addrs("127.0.0.1", "::1", "10.1.2.3", "192.168.1.5", "172.16.0.9", "100.64.1.1", "192.0.2.2", "fe80::1", "fd00::5", "2001:db8::7")
	for _, c := range []struct {
		name  string
		addrs []netip.Addr
		want  []string
		why   string
	}{
		{"behind NAT", private, Anywhere, "not known here"},
		{"no interfaces known", nil, Anywhere, "not known here"},
		{"public v4 and v6", append(addrs("2a01:4f8:c17:1234:abcd::1", "95.216.10.20", "::ffff:95.216.10.21", "2a01:4f8:c17:1234::2"), private...),
			[]string{"95.216.10.20/32", "95.216.10.21/32", "2a01:4f8:c17:1234::/64"}, "this host's public address"},
	} {
		m := DefaultMachines("hetzner")
		m.SSHFromThisHost(c.addrs)
		if !slices.Equal(m.AllowSSHFrom, c.want) || !strings.Contains(m.SSHFromWhy, c.why) {
			t.Errorf("%s: allow_ssh_from %v (%q), want %v (%q)", c.name, m.AllowSSHFrom, m.SSHFromWhy, c.want, c.why)
		}
		if err := m.Validate(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	m := DefaultMachines("hetzner")
	if _, err := m.ApplyVars(map[string]string{"allow_ssh_from": "198.51.100.0/24"}); err != nil {
		t.Fatal(err)
	}
	m.SSHFromThisHost(addrs("95.216.10.20"))
	if !slices.Equal(m.AllowSSHFrom, []string{"198.51.100.0/24"}) || m.SSHFromWhy != "" {
		t.Errorf("a given allow_ssh_from: %v (%q), want it kept", m.AllowSSHFrom, m.SSHFromWhy)
	}
	src := []byte("machines \"hetzner\" {}\n")
	m, err := LoadMachines("e.hcl", src, map[string]string{"allow_ssh_from": "0.0.0.0/0,::/0"})
	if err != nil {
		t.Fatal(err)
	}
	m.SSHFromThisHost(addrs("95.216.10.20"))
	if !slices.Equal(m.AllowSSHFrom, Anywhere) || m.SSHFromWhy != "" {
		t.Errorf("anywhere given on the command line: %v (%q), want it kept", m.AllowSSHFrom, m.SSHFromWhy)
	}
	// A file may not open SSH (or the web ports) to anyone: that is the
	// operator's call, on the command line.
	src = []byte("machines \"hetzner\" {\n  allow_ssh_from = [\"0.0.0.0/0\", \"::/0\"]\n}\n")
	if _, err := LoadMachines("e.hcl", src, nil); err == nil || !strings.Contains(err.Error(), "e.hcl:2:3: Attribute only the operator sets") {
		t.Errorf("allow_ssh_from in a file: %v, want it refused at e.hcl:2:3", err)
	}
}
