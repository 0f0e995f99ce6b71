package cloud

import (
	"fmt"
	"github.com/wptest/wptest/hostrecord"
	"net/netip"
	"slices"
)

// FirewallRule is one inbound rule of a run's firewall (hostrecord's: the
// run records it as it is).
type FirewallRule = hostrecord.FirewallRule

// ParseSource reads an allow_from / allow_ssh_from entry: an IP address
// (one host) or a CIDR, returned as a CIDR ("198.51.100.7" ->
// "198.51.100.7/32").
func ParseSource(s string) (string, error) {
	if p, err := netip.ParsePrefix(s); err == nil {
		if p.Masked() != p {
			return "", fmt.Errorf("address %q: host bits set; did you mean %s?", s, p.Masked())
		}
		return p.String(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return "", fmt.Errorf("address %q: want an IP address or a CIDR such as 198.51.100.0/24", s)
	}
	return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()).String(), nil
}

// FirewallRules are the inbound rules for a run of m whose machines are ms
// (nil before any exists). SSH (SSHPort) is open to allow_ssh_from; every
// other port of open_ports only to the load generators among ms (their
// address, one host each) and allow_from. A port with no source gets no
// rule at all: it is closed to everyone (the provider's default for
// inbound traffic once a firewall is applied).
func FirewallRules(m Machines, ms []Machine) ([]FirewallRule, error) {
	lgs := []string{}
	for _, mc := range ms {
		if mc.Role == RoleLoadGen && mc.Address != "" {
			lgs = append(lgs, mc.Address)
		}
	}
	web, err := parseSources("allow_from and the load generators' addresses", append(slices.Clone(m.AllowFrom), lgs...))
	if err != nil {
		return nil, err
	}
	ssh, err := parseSources("allow_ssh_from", m.AllowSSHFrom)
	if err != nil {
		return nil, err
	}
	var rules []FirewallRule
	for _, p := range m.OpenPorts {
		port, proto, err := parsePort(p)
		if err != nil {
			return nil, err
		}
		r := FirewallRule{Port: port, Protocol: proto, Sources: sortedUniq(web), For: "web: load generators + allow_from"}
		if p == SSHPort {
			r.Sources, r.For = sortedUniq(ssh), "ssh: allow_ssh_from"
		}
		if len(r.Sources) > 0 {
			rules = append(rules, r)
		}
	}
	return rules, nil
}

func parseSources(what string, list []string) ([]string, error) {
	out := []string{}
	for _, x := range list {
		s, err := ParseSource(x)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// sortedUniq sorts CIDRs by address (IPv4 first), then prefix length.
func sortedUniq(s []string) []string {
	s = slices.Clone(s)
	slices.SortFunc(s, func(a, b string) int {
		pa, pb := netip.MustParsePrefix(a), netip.MustParsePrefix(b)
		if c := pa.Addr().Compare(pb.Addr()); c != 0 {
			return c
		}
		return pa.Bits() - pb.Bits()
	})
	return slices.Compact(s)
}

// ClosedPorts are the ports of open_ports that rules open to nobody.
func ClosedPorts(m Machines, rules []FirewallRule) []string {
	var out []string
	for _, p := range m.OpenPorts {
		if !slices.ContainsFunc(rules, func(r FirewallRule) bool { return r.Port+"/"+r.Protocol == p }) {
			out = append(out, p)
		}
	}
	return out
}

// WriteFirewall records the rules applied to a run in runs/<id>/firewall.json.
func WriteFirewall(dir string, rules []FirewallRule) error {
	if rules == nil {
		rules = []FirewallRule{}
	}
	return writeRunFile(dir, FirewallFile, rules)
}

// ReadFirewall reads runs/<id>/firewall.json.
func ReadFirewall(dir string) ([]FirewallRule, error) {
	var rules []FirewallRule
	return rules, readRunFile(dir, FirewallFile, &rules)
}
