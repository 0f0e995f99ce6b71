package experiment

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/results"
)

// PlanView is what `run --plan` shows, as text (WritePlan) and as JSON
// (WritePlanJSON): what identifies the plan, the columns with their
// variables, the matrix of columns × scenarios × steps × repetitions and
// its count of data points, every point's key, and the estimate.
type PlanView struct {
	Experiment         string         `json:"experiment"`
	File               string         `json:"file"`
	ExperimentSHA256   string         `json:"experiment_sha256"`
	PlanSHA256         string         `json:"plan_sha256"`
	Fixture            PlanFixture    `json:"fixture"`
	Machines           string         `json:"machines"`
	MachinesNotCarried string         `json:"machines_not_carried,omitempty"`
	Uploads            []PlanUpload   `json:"uploads"`
	Columns            []PlanColumn   `json:"columns"`
	Scenarios          []PlanScenario `json:"scenarios"`
	Repetitions        int            `json:"repetitions"`
	PerRepetition      int            `json:"points_per_repetition"`
	Points             int            `json:"points"`
	PointKeys          []string       `json:"point_keys"`
	Estimate           PlanEstimate   `json:"estimate"`
	est                Estimate       // for the text
}

// PlanFixture is the fixture the plan seeds: its root generated here (a
// pure function of profile and seed) and how it stands to the file's pin.
type PlanFixture struct {
	Profile string `json:"profile"`
	Seed    uint64 `json:"seed"`
	Root    string `json:"root"`
	Pinned  string `json:"pinned_root"` // "" when the file pins none
	Matches bool   `json:"matches_pin"`
}

// PlanUpload is a local file a column's variable names.
type PlanUpload struct {
	Var    string `json:"var"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// PlanColumn is a column: its profile, whether it runs (and why not), its
// variables with their origins, and how many points it measures in each
// repetition.
type PlanColumn struct {
	ID        string    `json:"id"`
	Profile   string    `json:"profile"`
	Label     string    `json:"label"`
	Enabled   bool      `json:"enabled"`
	LeftOut   string    `json:"left_out,omitempty"`
	Variables []PlanVar `json:"variables"`
	Points    int       `json:"points_per_repetition"`
}

// PlanVar is one variable of a column's profile as the plan shows it.
type PlanVar struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Origin string `json:"origin"`
}

// PlanScenario is one row of the matrix: a scenario, its steps (visitor
// counts, "c=N") and the steps it measures on each column.
type PlanScenario struct {
	Name     string              `json:"name"`
	Kind     string              `json:"kind"`
	Steps    []string            `json:"steps"`
	ByColumn map[string][]string `json:"steps_by_column"`
	Points   int                 `json:"points_per_repetition"`
}

// PlanEstimate is the estimate as JSON: durations in seconds beside their
// text, the cost when there is one and why not when there is none.
type PlanEstimate struct {
	Total        string        `json:"total"`
	TotalSeconds float64       `json:"total_seconds"`
	Parts        []PlanEstPart `json:"parts"`
	Cost         *PlanEstCost  `json:"cost,omitempty"`
	CostUnknown  string        `json:"cost_unknown,omitempty"`
}

// PlanEstPart is one part of the estimate: n times each.
type PlanEstPart struct {
	What         string  `json:"what"`
	N            int     `json:"n"`
	EachSeconds  float64 `json:"each_seconds"`
	TotalSeconds float64 `json:"total_seconds"`
	From         string  `json:"from"`
}

// PlanEstCost is the machines' cost for the estimated time and, at worst,
// for their whole ttl.
type PlanEstCost struct {
	Currency     string  `json:"currency"`
	HourlyGross  string  `json:"hourly_gross"`
	Machines     int     `json:"machines"`
	Estimate     float64 `json:"for_estimate"`
	TTL          string  `json:"ttl,omitempty"`
	TTLWorstCase float64 `json:"for_ttl,omitempty"`
	Source       string  `json:"source"`
	ListPrice    bool    `json:"list_price"`
	ListDate     string  `json:"list_price_date,omitempty"`
	NotFromAPI   string  `json:"not_from_api,omitempty"`
}

// PlanOf is sp's plan as `run --plan` shows it, with the estimate est.
func PlanOf(sp *Spec, est Estimate) (*PlanView, error) {
	fp, err := fixture.LoadProfile(sp.Fixture.Profile)
	if err != nil {
		return nil, err
	}
	fx, err := fixture.Generate(fp, sp.Fixture.Seed)
	if err != nil {
		return nil, err
	}
	root := fx.Manifest().Root
	v := &PlanView{Experiment: sp.Name, File: sp.File, ExperimentSHA256: sp.SHA256, PlanSHA256: sp.PlanHash(),
		Fixture:  PlanFixture{Profile: sp.Fixture.Profile, Seed: sp.Fixture.Seed, Root: root, Pinned: sp.Fixture.Root, Matches: sp.Fixture.Root == root},
		Machines: sp.Machines.Describe(), MachinesNotCarried: sp.Machines.NotCarried, Uploads: []PlanUpload{},
		Repetitions: sp.Repetitions, PointKeys: []string{}, Estimate: estimateView(est), est: est}
	for _, f := range sp.Uploads {
		v.Uploads = append(v.Uploads, PlanUpload{Var: f.Var, Path: f.Path, SHA256: f.SHA256, Size: f.Size})
	}
	if err := v.addColumns(sp); err != nil {
		return nil, err
	}
	v.addMatrix(sp, planOf(sp).points)
	return v, nil
}

// addColumns adds sp's columns with their variables.
func (v *PlanView) addColumns(sp *Spec) error {
	for _, c := range sp.Columns {
		pc := PlanColumn{ID: c.ID, Profile: c.Profile, Label: c.Label, Enabled: c.Enabled, Variables: []PlanVar{}}
		if !c.Enabled {
			pc.LeftOut = c.Reason
		} else {
			vars, err := columnVars(c, sp.VarFrom[c.ID])
			if err != nil {
				return err
			}
			pc.Variables = vars
		}
		v.Columns = append(v.Columns, pc)
	}
	return nil
}

// addMatrix counts points by scenario, column and step, in the order the
// run measures them.
func (v *PlanView) addMatrix(sp *Spec, points []results.Point) {
	col := map[string]*PlanColumn{}
	for i := range v.Columns {
		col[v.Columns[i].ID] = &v.Columns[i]
	}
	row := map[string]*PlanScenario{}
	for _, sc := range sp.Scenarios {
		v.Scenarios = append(v.Scenarios, PlanScenario{Name: sc.Name, Kind: sc.Kind, Steps: []string{}, ByColumn: map[string][]string{}})
	}
	for i := range v.Scenarios {
		row[v.Scenarios[i].Name] = &v.Scenarios[i]
	}
	for _, p := range points {
		v.Points++
		v.PointKeys = append(v.PointKeys, p.Key)
		if p.Rep != 1 {
			continue
		}
		v.PerRepetition++
		r := row[p.Scenario]
		r.Points++
		if c := col[p.Column]; c != nil {
			c.Points++
		}
		if !contains(r.Steps, p.Step) {
			r.Steps = append(r.Steps, p.Step)
		}
		r.ByColumn[p.Column] = append(r.ByColumn[p.Column], p.Step)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// columnVars are every variable of column c's profile, as terraform plan
// shows every attribute: its value (sensitive ones hidden) and where it
// came from (the profile's default, the experiment file, the command
// line), operator_only ones marked.
func columnVars(c results.Column, from map[string]VarOrigin) ([]PlanVar, error) {
	p, err := loadProfile(c, nil)
	if err != nil {
		return nil, err
	}
	vars := []PlanVar{}
	for _, v := range p.Variables {
		origin := "profile default"
		if o, ok := from[v.Name]; ok {
			origin = o.String()
		}
		if v.OperatorOnly {
			origin += "; operator only"
		}
		if v.Name == AllowFromVar {
			origin += "; the run adds its load generators"
		}
		vars = append(vars, PlanVar{Name: v.Name, Value: p.Shown(v), Origin: origin})
	}
	return vars, nil
}

// estimateView is e as JSON shows it.
func estimateView(e Estimate) PlanEstimate {
	v := PlanEstimate{Total: roundDur(e.Total).String(), TotalSeconds: e.Total.Seconds(), Parts: []PlanEstPart{}}
	for _, p := range e.Parts {
		v.Parts = append(v.Parts, PlanEstPart{What: p.What, N: p.N, EachSeconds: p.Each.Seconds(), TotalSeconds: p.Total.Seconds(), From: p.From})
	}
	switch {
	case e.Hourly != "":
		c := &PlanEstCost{Currency: e.Currency, HourlyGross: e.Hourly, Machines: e.Machines, Estimate: e.Cost,
			Source: e.PriceSource, ListPrice: e.ListPrice, ListDate: e.PriceDate}
		if e.TTL > 0 {
			c.TTL, c.TTLWorstCase = e.TTL.String(), e.TTLCost
		}
		if e.ListPrice {
			c.NotFromAPI = strings.TrimSpace(e.PriceErr)
		}
		v.Cost = c
	case e.PriceErr != "":
		v.CostUnknown = strings.TrimSpace(e.PriceErr)
	}
	return v
}

// WritePlanJSON prints the plan as JSON.
func (v *PlanView) WritePlanJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// WriteText prints the plan for people: what identifies it, the columns
// and their variables, the matrix with its totals, and the estimate.
func (v *PlanView) WriteText(w io.Writer) {
	pin := "not pinned"
	switch {
	case v.Fixture.Matches:
		pin = "= pinned"
	case v.Fixture.Pinned != "":
		pin = "MISMATCH: pinned " + v.Fixture.Pinned
	}
	fmt.Fprintf(w, "experiment %s (%s)\nexperiment_sha256 %s\nplan_sha256 %s\nfixture %s seed %d root %s (%s)\nmachines %s\n",
		v.Experiment, v.File, v.ExperimentSHA256, v.PlanSHA256, v.Fixture.Profile, v.Fixture.Seed, v.Fixture.Root, pin, v.Machines)
	if v.MachinesNotCarried != "" {
		fmt.Fprintf(w, "machines not carried: %s\n", v.MachinesNotCarried)
	}
	for _, u := range v.Uploads {
		stage.WriteLocalFiles(w, []stage.LocalFile{{Var: u.Var, Path: u.Path, SHA256: u.SHA256, Size: u.Size}})
	}
	for _, c := range v.Columns {
		if !c.Enabled {
			fmt.Fprintf(w, "column %s (profile %s): left out (%q)\n", c.ID, c.Profile, c.LeftOut)
			continue
		}
		fmt.Fprintf(w, "column %s (profile %s) %q\n", c.ID, c.Profile, c.Label)
		writeVars(w, c.Variables)
	}
	v.writeMatrix(w)
	v.est.WriteText(w)
}

// writeVars prints a column's variables, their names aligned.
func writeVars(w io.Writer, vars []PlanVar) {
	width := 0
	for _, pv := range vars {
		width = max(width, len(pv.Name))
	}
	for _, pv := range vars {
		fmt.Fprintf(w, "  var %-*s = %s  (%s)\n", width, pv.Name, pv.Value, pv.Origin)
	}
}

// writeMatrix prints the data points as a table: a row per scenario with
// its steps, a column per measured column with the steps it measures there
// ("–" none), the totals of each, and the whole count over repetitions.
func (v *PlanView) writeMatrix(w io.Writer) {
	var cols []PlanColumn
	for _, c := range v.Columns {
		if c.Enabled {
			cols = append(cols, c)
		}
	}
	fmt.Fprintf(w, "data points of a repetition: the steps (visitors, c=N) of each scenario on each column\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  scenario\tkind\tsteps\t")
	for _, c := range cols {
		fmt.Fprintf(tw, "%s\t", c.ID)
	}
	fmt.Fprintf(tw, "points\n")
	for _, sc := range v.Scenarios {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t", sc.Name, sc.Kind, strings.Join(sc.Steps, " "))
		for _, c := range cols {
			n := fmt.Sprint(len(sc.ByColumn[c.ID]))
			if n == "0" {
				n = "–"
			}
			fmt.Fprintf(tw, "%s\t", n)
		}
		fmt.Fprintf(tw, "%d\n", sc.Points)
	}
	fmt.Fprintf(tw, "  total\t\t\t")
	for _, c := range cols {
		fmt.Fprintf(tw, "%d\t", c.Points)
	}
	fmt.Fprintf(tw, "%d\n", v.PerRepetition)
	tw.Flush()
	fmt.Fprintf(w, "points: %s × %s: %d per repetition × %s = %d data points (-o json lists their keys)\n",
		results.Plural(len(cols), "column"), results.Plural(len(v.Scenarios), "scenario"), v.PerRepetition, results.Plural(v.Repetitions, "repetition"), v.Points)
}
