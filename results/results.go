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
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
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
	ID      string            `json:"id"`      // the column block's label (a profile block's: its name)
	Profile string            `json:"profile"` // shipped profile name or alias
	Label   string            `json:"label"`   // the column's title
	Vars    map[string]string `json:"vars"`    // profile variables (-var of wptest up)
	// Enabled false keeps the column in the file but out of the run (e.g.
	// corehttpd without its package); Reason says why, in the report.
	Enabled bool   `json:"enabled"`
	Reason  string `json:"reason,omitempty"`
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

// Scenario is one scenario block: the attributes every kind has, and the
// kind's own settings in Own. A kind has one data point per visitor count
// (crowd: per crowd size), or one (Kind.OneStep: the kit).
type Scenario struct {
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Path     string `json:"path"`
	Visitors []int  `json:"visitors"`
	// Durations are in nanoseconds, as Go writes a time.Duration.
	Duration  time.Duration `json:"duration"`
	Warmup    time.Duration `json:"warmup"`
	Timeout   time.Duration `json:"timeout"`
	Requests  int64         `json:"requests"`
	Proto     string        `json:"proto"`
	Rate      float64       `json:"rate"`
	KeepAlive bool          `json:"keep_alive"`
	Gzip      bool          `json:"gzip"`
	// Columns, if set, limits the scenario to these columns (their ids).
	Columns []string `json:"columns,omitempty"`
	// Own are the kind's own settings (its block's attributes beyond these,
	// with its defaults) as its package writes and reads them (SetOwn,
	// OwnOf): JSON no floor reads. Durations are in nanoseconds.
	Own json.RawMessage `json:"own,omitempty"`
}

// ColumnV2 and ScenarioV2 are a column and a scenario in the keys of
// manifest format /2 (Go's names), which a run's plan hash is computed
// over (experiment's Spec.PlanHash), so that the plan_sha256 a run
// recorded, which --resume compares, stays the same whatever the keys
// of the files are.
type (
	ColumnV2 struct {
		ID, Profile, Label string
		Vars               map[string]string
		Enabled            bool
		Reason             string
	}
	ScenarioV2 struct {
		Name, Kind, Path          string
		Visitors                  []int
		Duration, Warmup, Timeout time.Duration
		Requests                  int64
		Proto                     string
		Rate                      float64
		KeepAlive, Gzip           bool
		Columns                   []string
		Own                       json.RawMessage `json:",omitempty"`
	}
)

// V2 is c in format /2's keys.
func (c Column) V2() ColumnV2 { return ColumnV2(c) }

// V2 is s in format /2's keys.
func (s Scenario) V2() ScenarioV2 { return ScenarioV2(s) }

// OwnOf decodes s's own settings into v (left as it is where s has none):
// every key one of v's, every value of its type.
func OwnOf(s Scenario, v any) error {
	if len(s.Own) == 0 {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(s.Own))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("scenario %s: its %s settings: %w", s.Name, s.Kind, err)
	}
	return nil
}

// CheckOwn says whether s's own settings are its kind's (a manifest is a
// file anyone can edit: a mistyped setting is an error, not a default).
func CheckOwn(s Scenario) error {
	k, ok := KindOf(s.Kind)
	if !ok || k.Settings == nil {
		return nil
	}
	return OwnOf(s, k.Settings())
}

// SetOwn makes v s's own settings. v is a kind's settings type, which
// always marshals: a failure is a programming error, and panics.
func SetOwn(s *Scenario, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("scenario %s: its %s settings: %v", s.Name, s.Kind, err))
	}
	s.Own = b
}

// UnmarshalJSON also reads a scenario as manifests recorded it before the
// kinds kept their own settings: each kind's beside the common ones, as
// top-level fields in Go's names (ClickEvery). Those become Own, their
// names in snake_case (click_every), which is how each kind names them.
// ("Profiles" is the columns' old name: ReadManifest reads it.)
func (s *Scenario) UnmarshalJSON(b []byte) error {
	type plain Scenario
	if err := json.Unmarshal(b, (*plain)(s)); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	// Before format /3 the common attributes had Go's names, which
	// encoding/json matches to their keys but for KeepAlive (keep_alive).
	if v, ok := all["KeepAlive"]; ok && all["keep_alive"] == nil {
		if err := json.Unmarshal(v, &s.KeepAlive); err != nil {
			return fmt.Errorf("KeepAlive: %w", err)
		}
	}
	if s.Own != nil {
		// As a kind wrote it (SetOwn), not as an indented file holds it.
		var c bytes.Buffer
		if err := json.Compact(&c, s.Own); err != nil {
			return err
		}
		s.Own = c.Bytes()
		return nil
	}
	own := map[string]json.RawMessage{}
	for _, k := range slices.Sorted(maps.Keys(all)) { // the first of two spellings of a name, always
		v := all[k]
		if commonKey(k) || k == "Profiles" || zero(v) {
			continue
		}
		if _, dup := own[snake(k)]; !dup && s.reads(snake(k), v) {
			own[snake(k)] = v
		}
	}
	if len(own) == 0 {
		return nil
	}
	var err error
	s.Own, err = json.Marshal(own)
	return err
}

// commonKey says whether k names one of the attributes every scenario
// has, in any format's spelling (KeepAlive, keep_alive).
func commonKey(k string) bool {
	common := reflect.TypeFor[Scenario]()
	for i := range common.NumField() {
		f := common.Field(i)
		if strings.EqualFold(f.Name, k) || strings.EqualFold(strings.Split(f.Tag.Get("json"), ",")[0], k) {
			return true
		}
	}
	return false
}

// reads says whether s's kind has a setting called name that takes v (the
// old loader gave every scenario the crowd's durations: only a crowd's are
// its own). A kind not registered here keeps them all.
func (s Scenario) reads(name string, v json.RawMessage) bool {
	k, ok := KindOf(s.Kind)
	if !ok {
		return true
	}
	if k.Settings == nil {
		return false
	}
	one, _ := json.Marshal(map[string]json.RawMessage{name: v})
	return OwnOf(Scenario{Own: one}, k.Settings()) == nil
}

// Plural is n and noun, the noun plural but for one: "1 repetition",
// "3 repetitions" (words users read have no "(s)").
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// zero says whether v is JSON's null or a zero value, which a scenario
// before Own wrote for every other kind's settings.
func zero(v json.RawMessage) bool {
	return slices.Contains([]string{"null", `""`, "0", "false", "[]"}, string(v))
}

// snake is a Go name in snake_case: ClickEvery → click_every.
func snake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
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
