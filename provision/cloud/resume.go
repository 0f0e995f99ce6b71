package cloud

import (
	"context"
	"fmt"

	"github.com/wptest/wptest/host"
)

// CheckRecorded holds the machines a run directory recorded (manifest.json,
// read back by --resume) to what the operator's machines block and flags
// allow, before anything connects to them: a run directory is data that may
// come from anyone, and its machines must not send the resumed run (its
// -var values, the agent) to another host, onto this machine, or make it
// read another key. Each is made by this run's driver; a driver that takes
// the operator's targets has only those (and the operator's identity); one
// that creates nothing and takes no targets has exactly what it plans; one
// that creates machines has no local one and uses the run's own key. What a
// creating driver made cannot be checked offline: its addresses are the
// record's.
func CheckRecorded(ctx context.Context, m Machines, run Run, recorded []Machine) error {
	d, err := Lookup(m.Driver)
	if err != nil {
		return err
	}
	bad := func(r Machine, why string, a ...any) error {
		return ConfigErr(fmt.Errorf("--resume: the run directory's machine %q %s: refusing to attach it (a run directory is data; resume only runs made here)", r.Name, fmt.Sprintf(why, a...)))
	}
	var planned map[string]Machine
	if !d.Capabilities.Creates && !d.Capabilities.Targets {
		c, err := d.Open(OpenOptions{})
		if err != nil {
			return err
		}
		p, err := c.Plan(ctx, Spec{Machines: m, Run: run})
		if err != nil {
			return err
		}
		planned = map[string]Machine{}
		for _, pm := range p.Machines {
			planned[pm.Name] = pm
		}
	}
	for _, r := range recorded {
		if r.Driver != m.Driver {
			return bad(r, "was made by the %s driver, this run's is %s", r.Driver, m.Driver)
		}
		switch {
		case planned != nil:
			pm, ok := planned[r.Name]
			if !ok || pm.Local != r.Local || pm.Address != r.Address || pm.Port != r.Port || pm.User != r.User || pm.IdentityFile != r.IdentityFile {
				return bad(r, "is not one the %s driver plans", m.Driver)
			}
		case d.Capabilities.Targets:
			if r.Local || !isTarget(m.Targets, r) {
				return bad(r, "(%s@%s:%d) is none of the targets given", r.User, r.Address, r.Port)
			}
			if r.IdentityFile != "" && r.IdentityFile != m.IdentityFile {
				return bad(r, "names the key %s, not the one given (--identity)", r.IdentityFile)
			}
		default:
			if r.Local {
				return bad(r, "says it is this machine; the %s driver makes none here", m.Driver)
			}
			if r.IdentityFile != "" {
				return bad(r, "names the key %s; the run's own is used", r.IdentityFile)
			}
		}
	}
	return nil
}

func isTarget(targets []string, r Machine) bool {
	for _, s := range targets {
		t, err := host.ParseTarget(s)
		if err == nil && !t.Local && t.Host == r.Address && t.Port == r.Port && t.User == r.User {
			return true
		}
	}
	return false
}
