package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"

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
// one, the firewall it applied to them, and writes m. The manifest
// records them as the driver gave them (one type: hostrecord's).
func recordMachines(m *results.Manifest, dir string, ms []cloud.Machine) error {
	m.Machines = slices.Clone(ms)
	rules, err := cloud.ReadFirewall(dir)
	switch {
	case err == nil:
		m.Firewall = rules
	case !os.IsNotExist(err):
		return fmt.Errorf("firewall rules: %w", err)
	}
	return m.Write(dir)
}
