package cloud

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/wptest/wptest/internal/hcldiag"
)

// Machines is the machines block of an experiment or profile file. Its
// label names a registered driver (wptest machines drivers lists them);
// the driver says which attributes besides the common ones it reads and
// their defaults, for example the cloud one's:
//
//	machines DRIVER {
//	  server_type     = "ccx23"   # the driver's default
//	  load_generators = 1         # default
//	  ttl             = "6h"      # gc may remove the run after this
//	  allow_from      = []        # who else may reach the web ports
//	  allow_ssh_from  = ["203.0.113.41"]  # default: this host's public address
//	                                      # where it has one, else anywhere (key-only)
//	}
//
// or, for hosts the user has, targets, known_hosts and identity_file.
type Machines struct {
	Driver         string   `hcl:"driver,label" json:"driver"`
	LoadGenerators *int     `hcl:"load_generators,optional" json:"load_generators"`
	TTL            string   `hcl:"ttl,optional" json:"ttl"`
	User           string   `hcl:"user,optional" json:"user"`
	OpenPorts      []string `hcl:"open_ports,optional" json:"open_ports"`
	// AllowFrom lists addresses (IP or CIDR) that may reach the web ports
	// besides the run's own load generators; default none.
	AllowFrom []string `hcl:"allow_from,optional" json:"allow_from"`
	// AllowSSHFrom lists who may reach SSH (22/tcp); default this host's
	// public address where it can be known (SSHFromThisHost), else
	// anywhere: the servers accept only the run's key.
	AllowSSHFrom []string `hcl:"allow_ssh_from,optional" json:"allow_ssh_from"`
	// SSHFromDefault: allow_ssh_from was not given (SSHFromThisHost may
	// narrow it); SSHFromWhy says where its value came from then.
	SSHFromDefault bool   `json:"-"`
	SSHFromWhy     string `json:"allow_ssh_from_why,omitempty"`
	// LoadGenLink is the bandwidth of each load generator's link in
	// Mbit/s, as whoever knows the machines states it ("1000"); "" none
	// stated, and no point is judged on its load generator's link.
	LoadGenLink string `hcl:"load_generator_link_mbps,optional" json:"load_generator_link_mbps,omitempty"`
	// Targets, KnownHosts and IdentityFile are the attributes of a driver
	// that takes hosts the user has (Capabilities.Targets,
	// TargetAttributes): the commands' --target, --known-hosts and
	// --identity set them too, and resuming a run checks its hosts by them.
	Targets      []string `hcl:"targets,optional" json:"targets,omitempty"`
	KnownHosts   string   `hcl:"known_hosts,optional" json:"known_hosts,omitempty"`
	IdentityFile string   `hcl:"identity_file,optional" json:"identity_file,omitempty"`
	// Own are the driver's own attributes (Driver.Attributes) by name, as
	// the block or -var gave them or the driver's default: the driver reads
	// them (Attr), nothing else does. Set through set and unset only: a
	// copy of Machines shares the map, so it is replaced, never written.
	Own map[string]string `json:"driver_attributes,omitempty"`
	// NotCarried says which of the file block's attributes were left
	// because the command line picked another driver (Resolve), for the
	// plan; "" if none. Not hashed: what is measured is the rest.
	NotCarried string `json:"-"`
}

// Attr is the value of the driver's own attribute name ("" unset).
func (m Machines) Attr(name string) string { return m.Own[name] }

// With is m with the driver's own attribute name set to v.
func (m Machines) With(name, v string) Machines {
	m.set(name, v)
	return m
}

// set gives the driver's own attribute name the value v, in a new map (a
// copy of m shares the old one); "" unsets it, as an empty value always
// meant the attribute was not given.
func (m *Machines) set(name, v string) {
	if v == "" {
		m.unset(name)
		return
	}
	own := maps.Clone(m.Own)
	if own == nil {
		own = map[string]string{}
	}
	own[name] = v
	m.Own = own
}

// unset removes the driver's own attribute name, in a new map.
func (m *Machines) unset(name string) {
	if _, ok := m.Own[name]; !ok {
		return
	}
	own := maps.Clone(m.Own)
	delete(own, name)
	if len(own) == 0 {
		own = nil
	}
	m.Own = own
}

// DefaultTTL is how long a run's machines may live before gc removes them.
const DefaultTTL = "6h"

// DefaultOpenPorts are the ports the firewall opens: SSH, HTTP, HTTPS and
// HTTP/3 (QUIC). SSHPort goes to allow_ssh_from; every other port only to
// the run's load generators and allow_from.
var DefaultOpenPorts = []string{"22/tcp", "80/tcp", "443/tcp", "443/udp"}

// SSHPort is the open_ports entry that allow_ssh_from governs.
const SSHPort = "22/tcp"

// Anywhere is every IPv4 and IPv6 address, allow_ssh_from's default.
var Anywhere = []string{"0.0.0.0/0", "::/0"}

// DefaultMachines is what an absent machines block means for driver:
// the common defaults and the driver's own (none for an unknown driver).
func DefaultMachines(driver string) Machines {
	m := Machines{Driver: driver}
	d, _ := Lookup(driver)
	m.fill(d)
	return m
}

// fill sets every attribute d reads and the block left unset to its default.
func (m *Machines) fill(d Driver) {
	for _, a := range d.Attributes {
		if v, _ := m.attr(a.Name); v == "" && a.Default != "" && !isTargetAttr(a.Name) {
			m.set(a.Name, a.Default)
		}
	}
	if m.LoadGenerators == nil {
		one := 1
		m.LoadGenerators = &one
	}
	if m.TTL == "" {
		m.TTL = DefaultTTL
	}
	if m.User == "" {
		m.User = "root"
	}
	if m.OpenPorts == nil {
		m.OpenPorts = append([]string(nil), DefaultOpenPorts...)
	}
	if m.AllowFrom == nil {
		m.AllowFrom = []string{}
	}
	if m.AllowSSHFrom == nil {
		m.AllowSSHFrom = append([]string(nil), Anywhere...)
		m.SSHFromDefault = true
	}
}

// attr is the value of the attribute name as m holds it ("" unset; lists
// comma-separated) and a function that unsets it: a common one, a target
// one, or the driver's own.
func (m *Machines) attr(name string) (string, func()) {
	switch name {
	case "user":
		return m.User, func() { m.User = "" }
	case "load_generator_link_mbps":
		return m.LoadGenLink, func() { m.LoadGenLink = "" }
	case "targets":
		return strings.Join(m.Targets, ","), func() { m.Targets = nil }
	case "known_hosts":
		return m.KnownHosts, func() { m.KnownHosts = "" }
	case "identity_file":
		return m.IdentityFile, func() { m.IdentityFile = "" }
	}
	return m.Own[name], func() { m.unset(name) }
}

// Describe is the driver and what it reads of m, for the plan:
// `netns: image "debian-13", load_generators 1, ttl "6h", user "root"`.
func (m Machines) Describe() string {
	d, err := Lookup(m.Driver)
	if err != nil {
		return m.Driver
	}
	var parts []string
	for _, a := range d.Attributes {
		if v, _ := m.attr(a.Name); v != "" {
			parts = append(parts, a.Name+" "+strconv.Quote(v))
		}
	}
	parts = append(parts, "load_generators "+strconv.Itoa(m.LoadGens()), "ttl "+strconv.Quote(m.TTL), "user "+strconv.Quote(m.User))
	if m.LoadGenLink != "" {
		parts = append(parts, "load_generator_link_mbps "+m.LoadGenLink)
	}
	// Who may reach the server: the command line's alone (Operator).
	if len(m.AllowFrom) > 0 {
		parts = append(parts, "allow_from "+strings.Join(m.AllowFrom, ","))
	}
	if !m.SSHFromDefault {
		parts = append(parts, "allow_ssh_from "+strings.Join(m.AllowSSHFrom, ","))
	}
	return m.Driver + ": " + strings.Join(parts, ", ")
}

// notPublic are address blocks IANA reserves for uses other than the
// public internet, besides what netip calls private, loopback or link-local:
// an interface holding one is not reachable at it from a cloud server.
var notPublic = []netip.Prefix{
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64
}

// PublicSources are the allow_ssh_from entries for this host's public
// addresses among addrs (its interfaces'): each public IPv4 address as
// /32, each public IPv6 address's /64 (temporary addresses change within
// it), sorted and once each. None: the host is behind NAT (or offline),
// and the address a server sees cannot be known here.
func PublicSources(addrs []netip.Addr) []string {
	var out []string
	for _, a := range addrs {
		a = a.Unmap()
		if !a.IsGlobalUnicast() || a.IsPrivate() || a.Zone() != "" {
			continue
		}
		if slices.ContainsFunc(notPublic, func(p netip.Prefix) bool { return p.Contains(a) }) {
			continue
		}
		p := netip.PrefixFrom(a, 32)
		if a.Is6() {
			p = netip.PrefixFrom(a, 64).Masked()
		}
		out = append(out, p.String())
	}
	return sortedUniq(out)
}

// SSHFromThisHost gives allow_ssh_from, when it was not given, this host's
// public addresses (addrs: its interfaces', PublicSources), and says so in
// SSHFromWhy; where it has none it stays anywhere (key-only) and
// SSHFromWhy says why, honestly: the address the servers will see is not
// known here. A given allow_ssh_from is kept.
func (m *Machines) SSHFromThisHost(addrs []netip.Addr) {
	if !m.SSHFromDefault {
		return
	}
	if pub := PublicSources(addrs); len(pub) > 0 {
		m.AllowSSHFrom = pub
		m.SSHFromWhy = "allow_ssh_from " + strings.Join(pub, ", ") + ": this host's public address (from its network interfaces); set allow_ssh_from if SSH comes from elsewhere"
		return
	}
	m.AllowSSHFrom = append([]string(nil), Anywhere...)
	m.SSHFromWhy = "allow_ssh_from anywhere (key-only): this host has no public address on its interfaces (behind NAT?), so the address the servers will see is not known here; set allow_ssh_from to yours (e.g. -var allow_ssh_from=203.0.113.41)"
}

// LoadGens is the number of load generators.
func (m Machines) LoadGens() int {
	if m.LoadGenerators == nil {
		return 1
	}
	return *m.LoadGenerators
}

// LinkMbps is the stated bandwidth of each load generator's link in
// Mbit/s; 0 where none is stated (or it is not a number: Validate says so).
func (m Machines) LinkMbps() int {
	n, err := strconv.Atoi(m.LoadGenLink)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// checkLinkMbps is load_generator_link_mbps's Check.
func checkLinkMbps(v string) error {
	if n, err := strconv.Atoi(v); err != nil || n < 1 || n > 10_000_000 {
		return fmt.Errorf("%q: want the link's bandwidth in Mbit/s, a whole number such as 1000", v)
	}
	return nil
}

// TTLDuration parses TTL.
func (m Machines) TTLDuration() (time.Duration, error) {
	d, err := time.ParseDuration(m.TTL)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("ttl %q: want a positive duration such as \"6h\"", m.TTL)
	}
	return d, nil
}

// MachineVars names the attributes -var may set, for messages: every
// driver's own (but those only the operator's flags set) and the common
// ones.
func MachineVars() string {
	var names []string
	for _, d := range Drivers() {
		for _, a := range d.Attributes {
			if driverVar(a) && !slices.Contains(names, a.Name) {
				names = append(names, a.Name)
			}
		}
	}
	names = append(names, "load_generators", "ttl", "user", "allow_from", "allow_ssh_from (lists comma-separated)", "load_generator_link_mbps")
	return strings.Join(names, ", ")
}

// driverVar says whether -var may set a driver's own attribute a: not one
// only the operator's flags set, nor a target one (--target sets those).
func driverVar(a Attribute) bool {
	return a.Operator == "" && !isTargetAttr(a.Name)
}

// isTargetAttr says whether name is one of TargetAttributes (a field of
// Machines, not an Own one).
func isTargetAttr(name string) bool {
	return slices.ContainsFunc(TargetAttributes, func(t Attribute) bool { return t.Name == name })
}

// IsMachineVar says whether -var name=... sets a machines attribute.
func IsMachineVar(name string) bool {
	if _, ok := overridable[name]; ok {
		return true
	}
	for _, d := range Drivers() {
		if a, ok := d.own(name); ok && driverVar(a) {
			return true
		}
	}
	return false
}

// overridable are the common attributes -var may set, with how to parse
// them; a driver's own (IsMachineVar) are set as given, and checked by
// the driver's Check (Validate).
var overridable = map[string]func(m *Machines, v string) error{
	"ttl": func(m *Machines, v string) error { m.TTL = v; return nil },
	// Checked with the driver's (Validate).
	"load_generator_link_mbps": func(m *Machines, v string) error { m.LoadGenLink = v; return nil },
	"user":                     func(m *Machines, v string) error { m.User = v; return nil },
	// A comma-separated list; an empty value means none.
	"allow_from": func(m *Machines, v string) error { m.AllowFrom = splitList(v); return checkSources(m.AllowFrom) },
	"allow_ssh_from": func(m *Machines, v string) error {
		m.AllowSSHFrom, m.SSHFromDefault, m.SSHFromWhy = splitList(v), false, ""
		return checkSources(m.AllowSSHFrom)
	},
	"load_generators": func(m *Machines, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("want a whole number, got %q", v)
		}
		m.LoadGenerators = &n
		return nil
	},
}

// ParseVars turns -var name=value arguments into a map; later ones win.
func ParseVars(args []string) (map[string]string, error) {
	vars := map[string]string{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, ConfigErr(fmt.Errorf("-var %q: want name=value", a))
		}
		vars[k] = v
	}
	return vars, nil
}

// ApplyVars overrides machine attributes from -var values. Names that are
// not machine attributes are returned, sorted, for the caller to hand to
// whoever else reads -var (the profile).
func (m *Machines) ApplyVars(vars map[string]string) (unused []string, err error) {
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		set, ok := overridable[k]
		switch {
		case ok:
		case IsMachineVar(k):
			set = func(m *Machines, v string) error { m.set(k, v); return nil }
		default:
			unused = append(unused, k)
			continue
		}
		if err := set(m, vars[k]); err != nil {
			return nil, ConfigErr(fmt.Errorf("-var %s: %w", k, err))
		}
	}
	return unused, nil
}

// LoadMachines reads the machines block from an HCL file, as Resolve does
// for a cloud command with nothing but -var on its command line.
func LoadMachines(filename string, src []byte, vars map[string]string) (Machines, error) {
	m, _, err := Resolve(Choice{File: filename, Src: src, Vars: vars})
	return m, err
}

// block reads the machines block of an HCL file (other top-level blocks
// belong to other readers and are left alone), unfilled; ok is false when
// there is none. Errors are rendered with file:line:col and the offending
// source line, and carry exit code 2.
func block(filename string, src []byte, f *hcl.File) (m Machines, ok bool, err error) {
	files := map[string]*hcl.File{filename: f}
	if f == nil {
		p := hclparse.NewParser()
		var diags hcl.Diagnostics
		f, diags = hcldiag.ParseHCL(p, src, filename) // not UTF-8, or nested too deep: one error, not parsed
		if diags.HasErrors() {
			return m, false, ConfigErr(hcldiag.Error(p.Files(), diags))
		}
		files = p.Files()
	}
	schema := &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "machines", LabelNames: []string{"driver"}}}}
	content, _, diags := f.Body.PartialContent(schema)
	if diags.HasErrors() {
		return m, false, ConfigErr(hcldiag.Error(files, diags))
	}
	switch len(content.Blocks) {
	case 0:
		return m, false, nil
	case 1:
		blk := content.Blocks[0]
		m.Driver = blk.Labels[0]
		diags = hcldiag.Sorted(m.decode(blk.Body))
		if !diags.HasErrors() {
			diags = append(diags, m.check(blk)...)
		}
		if diags.HasErrors() {
			return Machines{}, false, ConfigErr(hcldiag.Error(files, diags))
		}
		return m, true, nil
	}
	r := content.Blocks[1].DefRange
	return m, false, ConfigErr(hcldiag.Error(files, hcl.Diagnostics{{
		Severity: hcl.DiagError, Summary: "Duplicate machines block",
		Detail: fmt.Sprintf("Only one machines block is allowed; the first is at %s.", content.Blocks[0].DefRange), Subject: &r,
	}}))
}

// decode reads body into m: every registered driver's own attributes into
// Own (check then refuses those m's driver does not read, by name), the
// rest into m's fields.
func (m *Machines) decode(body hcl.Body) hcl.Diagnostics {
	var schema hcl.BodySchema
	for _, d := range Drivers() {
		for _, a := range d.Attributes {
			if !isTargetAttr(a.Name) && !slices.ContainsFunc(schema.Attributes, func(s hcl.AttributeSchema) bool { return s.Name == a.Name }) {
				schema.Attributes = append(schema.Attributes, hcl.AttributeSchema{Name: a.Name})
			}
		}
	}
	own, rest, diags := body.PartialContent(&schema)
	names := slices.Sorted(maps.Keys(own.Attributes))
	for _, n := range names {
		var v string
		diags = append(diags, gohcl.DecodeExpression(own.Attributes[n].Expr, nil, &v)...)
		m.set(n, v)
	}
	return append(diags, gohcl.DecodeBody(rest, nil, m)...)
}

// check validates attribute values, pointing at the attribute.
func (m *Machines) check(blk *hcl.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	at := func(name string) *hcl.Range {
		if b, ok := blk.Body.(*hclsyntax.Body); ok {
			if a, ok := b.Attributes[name]; ok {
				r := a.Expr.Range()
				return &r
			}
		}
		r := blk.DefRange
		return &r
	}
	if d, err := Lookup(m.Driver); err != nil {
		r := blk.LabelRanges[0]
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown machines driver",
			Detail: fmt.Sprintf("%q is not a driver; %s.", m.Driver, knownDrivers()), Subject: &r})
	} else if b, ok := blk.Body.(*hclsyntax.Body); ok {
		// What the driver does not read would be ignored: say so instead.
		names := make([]string, 0, len(b.Attributes))
		for n := range b.Attributes {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool {
			return b.Attributes[names[i]].NameRange.Start.Byte < b.Attributes[names[j]].NameRange.Start.Byte
		})
		for _, n := range names {
			a, ok := d.attr(n)
			r := b.Attributes[n].NameRange
			switch {
			case !ok:
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Attribute not read by this driver",
					Detail: fmt.Sprintf("The %s driver does not read %s; it reads %s.", d.Name, n, d.attrNames()), Subject: &r})
			case a.Operator != "":
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Attribute only the operator sets",
					Detail: fmt.Sprintf("Only the person running wptest sets %s, on the command line (%s): a file may come from anyone, so it may not name a file on this machine nor open the server to others.", n, a.Operator), Subject: &r})
			case a.Check != nil:
				v, _ := m.attr(n)
				if err := a.Check(v); err != nil {
					diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid " + n,
						Detail: fmt.Sprintf("%s = %s.", n, err), Subject: at(n)})
				}
			}
		}
	}
	if m.TTL != "" {
		if _, err := (Machines{TTL: m.TTL}).TTLDuration(); err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid ttl", Detail: err.Error(), Subject: at("ttl")})
		}
	}
	if m.LoadGenerators != nil && (*m.LoadGenerators < 0 || *m.LoadGenerators > 9) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid load_generators",
			Detail: fmt.Sprintf("load_generators = %d; want 0 to 9.", *m.LoadGenerators), Subject: at("load_generators")})
	}
	for _, p := range m.OpenPorts {
		if _, _, err := parsePort(p); err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid open_ports entry", Detail: err.Error(), Subject: at("open_ports")})
		}
	}
	return diags
}

// Validate checks a filled Machines (after -var overrides).
func (m Machines) Validate() error {
	if _, err := Lookup(m.Driver); err != nil {
		return err
	}
	if _, err := m.TTLDuration(); err != nil {
		return ConfigErr(err)
	}
	if n := m.LoadGens(); n < 0 || n > 9 {
		return ConfigErr(fmt.Errorf("load_generators = %d: want 0 to 9", n))
	}
	for _, p := range m.OpenPorts {
		if _, _, err := parsePort(p); err != nil {
			return ConfigErr(err)
		}
	}
	if err := checkSources(m.AllowFrom); err != nil {
		return ConfigErr(fmt.Errorf("allow_from: %w", err))
	}
	d, _ := Lookup(m.Driver)
	for _, a := range append(append([]Attribute(nil), Common...), d.Attributes...) {
		if v, _ := m.attr(a.Name); a.Check != nil && v != "" && v != a.Default {
			if err := a.Check(v); err != nil {
				return ConfigErr(fmt.Errorf("%s = %w", a.Name, err))
			}
		}
	}
	if err := checkSources(m.AllowSSHFrom); err != nil {
		return ConfigErr(fmt.Errorf("allow_ssh_from: %w", err))
	}
	return nil
}

func splitList(v string) []string {
	out := []string{}
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func checkSources(list []string) error {
	for _, s := range list {
		if _, err := ParseSource(s); err != nil {
			return err
		}
	}
	return nil
}

// parsePort reads "443/tcp".
func parsePort(s string) (port, proto string, err error) {
	port, proto, ok := strings.Cut(s, "/")
	n, perr := strconv.Atoi(port)
	if !ok || perr != nil || n < 1 || n > 65535 || (proto != "tcp" && proto != "udp") {
		return "", "", fmt.Errorf("port %q: want PORT/tcp or PORT/udp", s)
	}
	return port, proto, nil
}
