package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"

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
		Spec   hashedSpec
		Points []results.Point
	}{c.hashed(), sp.Plan()})
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

// hashedSpec is Spec as PlanHash hashes it: its fields, in its order
// (TestHashedSpecIsSpec), with the columns and scenarios in the keys of
// run manifest format /2, so that the hash does not change with the
// keys of the files.
type hashedSpec struct {
	Name             string
	Description      string
	File             string
	SHA256           string
	Vars             map[string]string
	Machines         cloud.Machines
	Fixture          results.FixtureSpec
	HTTPPort         int
	HTTPSPort        int
	Repetitions      int
	Warmup           time.Duration
	Columns          []results.ColumnV2
	Scenarios        []results.ScenarioV2
	Claims           []results.Claim           `json:",omitempty"`
	SourceDeviations []results.SourceDeviation `json:",omitempty"`
	Sources          []results.Source          `json:",omitempty"`
}

func (sp Spec) hashed() hashedSpec {
	h := hashedSpec{Name: sp.Name, Description: sp.Description, File: sp.File, SHA256: sp.SHA256, Vars: sp.Vars,
		Machines: sp.Machines, Fixture: sp.Fixture, HTTPPort: sp.HTTPPort, HTTPSPort: sp.HTTPSPort,
		Repetitions: sp.Repetitions, Warmup: sp.Warmup, Claims: sp.Claims, SourceDeviations: sp.SourceDeviations, Sources: sp.Sources}
	if sp.Columns != nil {
		h.Columns = []results.ColumnV2{}
	}
	for _, c := range sp.Columns {
		h.Columns = append(h.Columns, c.V2())
	}
	if sp.Scenarios != nil {
		h.Scenarios = []results.ScenarioV2{}
	}
	for _, s := range sp.Scenarios {
		h.Scenarios = append(h.Scenarios, s.V2())
	}
	return h
}
