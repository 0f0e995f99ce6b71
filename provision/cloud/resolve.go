package cloud

import (
	"fmt"
	"github.com/hashicorp/hcl/v2"
	"net/netip"
	"sort"
	"strconv"
	"strings"
)

// Choice is what a command knows about its machines: a file that may hold
// a machines block, and the command line's say over it. Resolve turns it
// into Machines, the one place that does (machines, run and plan all call
// it).
type Choice struct {
	File string // for messages
	Src  []byte // HCL that may hold a machines block; nil: no file
	// Parsed is Src as its reader already parsed it (nil: Resolve parses
	// Src): a file is parsed once.
	Parsed *hcl.File
	// Run: without a machines block, the driver is the one for experiment
	// files (DefaultRun), else the cloud commands' (DefaultCloud).
	Run bool
	// Driver (--driver) replaces the block's; "" keeps it.
	Driver string
	// Target is run's --target: a driver's name, or a value a driver
	// claims (an ssh:// host), which becomes its only target.
	Target string
	// Targets are hosts the user has (machines --target, repeatable); the
	// driver that claims the first is chosen unless Driver names one.
	Targets []string
	// Vars are -var values over the block and the driver's defaults.
	Vars map[string]string
	// KnownHosts and Identity replace the block's when set.
	KnownHosts, Identity string
	// ThisHost are this machine's interface addresses (SSHFromThisHost).
	ThisHost []netip.Addr
}

// Resolve reads c's machines block, picks the driver, fills the driver's
// defaults, applies the command line and validates the result. A command
// line that picks another driver than the block's keeps only the block's
// Portable attributes (the rest are the block driver's: Hetzner's image
// is no netns image); NotCarried says what was left. unused are the Vars
// that are not machines attributes, sorted, for the caller (a profile may
// read them). Errors carry exit code 2.
func Resolve(c Choice) (m Machines, unused []string, err error) {
	hasBlock := false
	if c.Src != nil {
		if m, hasBlock, err = block(c.File, c.Src, c.Parsed); err != nil {
			return m, nil, err
		}
	}
	if !hasBlock {
		d, err := DefaultDriver(c.Run)
		if err != nil {
			return m, nil, err
		}
		m.Driver = d.Name
	}
	name, targets, by, err := c.choose(m.Driver)
	if err != nil {
		return m, nil, err
	}
	d, err := Lookup(name)
	if err != nil {
		return m, nil, err
	}
	if hasBlock && name != m.Driver {
		from, _ := Lookup(m.Driver) // block checked it
		m.leave(from, d, by)
	}
	m.Driver = name
	if targets != nil {
		m.Targets = targets
	}
	m.fill(d)
	if err := unread(d, c.Vars); err != nil {
		return m, nil, err
	}
	if unused, err = m.ApplyVars(c.Vars); err != nil {
		return m, nil, err
	}
	if c.KnownHosts != "" {
		m.KnownHosts = c.KnownHosts
	}
	if c.Identity != "" {
		m.IdentityFile = c.Identity
	}
	m.SSHFromThisHost(c.ThisHost)
	return m, unused, m.Validate()
}

// choose is the driver the command line picks over driver (the block's or
// the default), the targets it gives (nil: none) and the flag that picked
// it, for messages ("" if none did).
func (c Choice) choose(driver string) (name string, targets []string, by string, err error) {
	name = driver
	if c.Target != "" {
		d, err := ForTarget(c.Target)
		if err != nil {
			return "", nil, "", err
		}
		name, by = d.Name, "--target "+c.Target
		if c.Target != d.Name {
			targets = []string{c.Target}
		}
	}
	if len(c.Targets) > 0 {
		targets = c.Targets
		if c.Driver == "" {
			d, err := ForTarget(c.Targets[0])
			if err != nil {
				return "", nil, "", err
			}
			name, by = d.Name, "--target "+c.Targets[0]
		}
	}
	if c.Driver != "" {
		name, by = c.Driver, "--driver "+c.Driver
	}
	return name, targets, by, nil
}

// leave unsets what the block said for driver from that driver to would
// misread: from's own attributes and the common ones that are not
// Portable. The block's Portable attributes (load_generators, ttl, the
// firewall's) mean the same to every driver and stay. NotCarried names
// what was left, for the plan.
func (m *Machines) leave(from, to Driver, by string) {
	var left []string
	for _, a := range append(append([]Attribute(nil), from.Attributes...), Common...) {
		if a.Portable {
			continue
		}
		if v, unset := m.attr(a.Name); v != "" {
			left = append(left, a.Name+" "+strconv.Quote(v))
			unset()
		}
	}
	if len(left) > 0 {
		m.NotCarried = fmt.Sprintf("%s chose the %s driver: the file's machines %q block's %s are for %s, not used",
			by, to.Name, from.Name, strings.Join(left, ", "), from.Name)
	}
}

// unread refuses a -var that sets a machines attribute d does not read: it
// would be ignored (-var server_type=ccx33 with --target netns).
func unread(d Driver, vars map[string]string) error {
	var bad []string
	for k := range vars {
		if IsMachineVar(k) && !d.reads(k) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return ConfigErr(fmt.Errorf("-var %s: the %s driver does not read it; it reads %s", strings.Join(bad, ", "), d.Name, d.attrNames()))
}
