package cloud

import "net/netip"

// Choice is what a command knows about its machines: a file that may hold
// a machines block, and the command line's say over it. Resolve turns it
// into Machines, the one place that does (machines, run and plan all call
// it).
type Choice struct {
	File string // for messages
	Src  []byte // HCL that may hold a machines block; nil: no file
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
// defaults, applies the command line and validates the result. unused are
// the Vars that are not machines attributes, sorted, for the caller (a
// profile may read them). Errors carry exit code 2.
func Resolve(c Choice) (m Machines, unused []string, err error) {
	hasBlock := false
	if c.Src != nil {
		if m, hasBlock, err = block(c.File, c.Src); err != nil {
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
	if c.Target != "" {
		d, err := ForTarget(c.Target)
		if err != nil {
			return m, nil, err
		}
		m.Driver = d.Name
		if c.Target != d.Name {
			m.Targets = []string{c.Target}
		}
	}
	if len(c.Targets) > 0 {
		m.Targets = c.Targets
		if c.Driver == "" {
			d, err := ForTarget(c.Targets[0])
			if err != nil {
				return m, nil, err
			}
			m.Driver = d.Name
		}
	}
	if c.Driver != "" {
		m.Driver = c.Driver
	}
	d, err := Lookup(m.Driver)
	if err != nil {
		return m, nil, err
	}
	m.fill(d)
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
