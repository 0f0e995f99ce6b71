package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"

	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/results"
)

// Plan lists every data point in the order the runner measures them
// (results.Plan).
func (sp *Spec) Plan() []results.Point {
	return results.Plan(sp.Repetitions, sp.Columns, sp.Scenarios)
}

// PlanHash identifies what a run measures: the spec's content (not its file
// name) and the plan. Two runs with the same file, vars and target have the
// same hash.
func (sp *Spec) PlanHash() string {
	c := *sp
	c.File = ""
	c.Claims = nil // they check what is measured, they do not change it (the file's bytes are in SHA256)
	c.SourceDeviations, c.Sources = nil, nil
	c.Machines.LoadGenLink = "" // a stated bandwidth judges what is measured (results.BenchLimit), it does not change it
	b, _ := json.Marshal(struct {
		Spec   Spec
		Points []results.Point
	}{c, sp.Plan()})
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// recordMachines notes the run's machines in m and, if the driver made
// one, the firewall it applied to them, and writes m.
func recordMachines(m *results.Manifest, dir string, ms []cloud.Machine) error {
	m.Machines = recordedMachines(ms)
	rules, err := cloud.ReadFirewall(dir)
	switch {
	case err == nil:
		m.Firewall = nil
		for _, r := range rules {
			m.Firewall = append(m.Firewall, results.FirewallRule(r))
		}
	case !os.IsNotExist(err):
		return fmt.Errorf("firewall rules: %w", err)
	}
	return m.Write(dir)
}

// recordedMachines are ms as the manifest records them.
func recordedMachines(ms []cloud.Machine) []results.Machine {
	var out []results.Machine
	for _, m := range ms {
		out = append(out, results.Machine{Name: m.Name, Role: string(m.Role), Driver: m.Driver, ID: m.ID, Local: m.Local,
			Address: m.Address, Port: m.Port, User: m.User, HostKey: m.HostKey, IdentityFile: m.IdentityFile,
			Location: m.Location, ServerType: m.ServerType, ImageID: m.ImageID, Image: m.Image})
	}
	return out
}

// cloudMachines are the machines a manifest records, to reach them again
// (a resumed run).
func cloudMachines(rs []results.Machine) []cloud.Machine {
	var out []cloud.Machine
	for _, m := range rs {
		out = append(out, cloud.Machine{Name: m.Name, Role: cloud.Role(m.Role), Driver: m.Driver, ID: m.ID, Local: m.Local,
			Address: m.Address, Port: m.Port, User: m.User, HostKey: m.HostKey, IdentityFile: m.IdentityFile,
			Location: m.Location, ServerType: m.ServerType, ImageID: m.ImageID, Image: m.Image})
	}
	return out
}
