// Package results is the schema of what a run writes and what is read back
// from it: the records of results.jsonl (one finished data point a line),
// the run manifest (manifest.json: everything behind the numbers) and the
// experiment as it recorded them (its scenarios, columns, fixture,
// machines and sessions), with their readers and writers.
//
// The runner (experiment) writes them; the report, a resumed run and
// anything else that compares runs read them. It imports nothing of the
// runner, the load generator, the sampler or the cloud drivers: a reader
// of results needs none of them (a test in report holds it to that).
package results

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Files of a run directory (runs/<id>/).
const (
	ResultsFile  = "results.jsonl"
	ManifestFile = "manifest.json"
	SpecCopy     = "experiment.hcl"
	// LogFile is the run's log: host commands and their output, samples,
	// manifests (what --verbose shows on stderr), secrets masked.
	LogFile = "log.txt"
	// ClaimsFile is "Does it reproduce?" as JSON, written with the report
	// (EvaluateClaims computes it from the manifest and the records).
	ClaimsFile = "claims.json"
)

// SampleEvery is how often srvstat samples the server during a run: the
// resolution of every server figure a record holds.
const SampleEvery = 500 * time.Millisecond

// FixtureSpec is the fixture block: which generated site, from which seed,
// and optionally the root hash it must have (pinned: a different generator
// output stops the run with exit code 5 before anything is measured).
type FixtureSpec struct {
	Profile string
	Seed    uint64
	Root    string
}

// Column is one column of the comparison: a shipped profile with its own
// label and variables. Several columns may use one profile (Apache tuned
// with 150 workers and with 400). Records, the manifest and the report key
// everything by ID; Profile is what is loaded and applied.
type Column struct {
	ID      string            // the column block's label (a profile block's: its name)
	Profile string            // shipped profile name or alias
	Label   string            // the column's title
	Vars    map[string]string // profile variables (-var of wptest up)
	// Enabled false keeps the column in the file but out of the run (e.g.
	// corehttpd without its package); Reason says why, in the report.
	Enabled bool
	Reason  string
}

// UnmarshalJSON also reads a column as manifests recorded it before
// columns had their own ids ({"Name": ...}: one column per profile, called
// by it).
func (c *Column) UnmarshalJSON(b []byte) error {
	type plain Column
	var v struct {
		plain
		Name string
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = Column(v.plain)
	if c.ID == "" {
		c.ID = v.Name
	}
	if c.Profile == "" {
		c.Profile = v.Name
	}
	return nil
}

// Scenario is one scenario block. A kind has one data point per visitor
// count (crowd: per crowd size), or one (Kind.OneStep: the kit).
type Scenario struct {
	Name         string
	Kind         string
	Path         string
	ProbePath    string
	TransferPath string
	Visitors     []int
	Duration     time.Duration
	Warmup       time.Duration
	Timeout      time.Duration
	Requests     int64
	Proto        string
	Rate         float64
	KeepAlive    bool
	Gzip         bool
	ClickEvery   time.Duration
	ProbeEvery   time.Duration
	GiveUp       time.Duration
	Levels       []int
	ErrorClients int
	// Columns, if set, limits the scenario to these columns (their ids).
	Columns []string
	Browse  *BrowseSpec `json:",omitempty"` // kind browse
}

// Steps are the scenario's data points, as names ("c=50").
func (s Scenario) Steps() []string {
	if k, _ := KindOf(s.Kind); k.OneStep && len(s.Visitors) > 0 {
		return []string{fmt.Sprintf("c=%d", s.Visitors[0])}
	}
	out := make([]string, len(s.Visitors))
	for i, v := range s.Visitors {
		out[i] = fmt.Sprintf("c=%d", v)
	}
	return out
}

// Point is one data point of the plan: a scenario step for a column in a
// repetition. Key is unique in a run.
type Point struct {
	Key    string `json:"key"`
	Rep    int    `json:"rep"`
	Column string `json:"column"`
	// Profile is the column's profile. Records written before columns had
	// ids hold the column here alone (parseRecords fills Column from it).
	Profile  string `json:"profile"`
	Scenario string `json:"scenario"`
	Kind     string `json:"kind"`
	Step     string `json:"step"`
	Visitors int    `json:"visitors"`
}

// Runs says whether the scenario runs on column id.
func (s Scenario) Runs(id string) bool {
	return len(s.Columns) == 0 || slices.Contains(s.Columns, id)
}

// Plan lists every data point of reps repetitions of scenarios over the
// enabled columns, in the order the runner measures them: repetitions
// outermost, then columns (interleaved A B C A B C, so slow drift of the
// machine spreads over every column), scenarios, steps.
func Plan(reps int, columns []Column, scenarios []Scenario) []Point {
	var ps []Point
	for rep := 1; rep <= reps; rep++ {
		for _, c := range columns {
			if !c.Enabled {
				continue
			}
			for _, sc := range scenarios {
				if !sc.Runs(c.ID) {
					continue
				}
				for i, st := range sc.Steps() {
					ps = append(ps, Point{Key: fmt.Sprintf("r%d/%s/%s/%s", rep, c.ID, sc.Name, st),
						Rep: rep, Column: c.ID, Profile: c.Profile, Scenario: sc.Name, Kind: sc.Kind, Step: st, Visitors: sc.Visitors[i]})
				}
			}
		}
	}
	return ps
}
