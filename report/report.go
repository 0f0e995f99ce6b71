// Package report turns a run directory (runs/<id>: manifest.json and
// results.jsonl, written by package experiment) into report.md and one
// self-contained report.html with SVG charts: the cPanel vs corehttpd post's tables side
// by side per profile, the Apache kit's ten metrics with their PASS/FAIL
// targets, ratios between profiles, min/median/max over repetitions, and the
// run manifest at the end. Every number comes from the run's files.
package report

import (
	"encoding/json"
	"fmt"
	"github.com/wptest/wptest/compare"
	"github.com/wptest/wptest/internal/jsonstyle"
	"github.com/wptest/wptest/internal/redact"
	"github.com/wptest/wptest/results"
	"math"
	"path/filepath"
	"sort"
	"strings"
)

// Stat is one metric over the repetitions of a data point.
type Stat struct {
	N             int
	Min, Med, Max float64
	Values        []float64
}

// Spread is (max-min)/median in percent: how much the repetitions disagree.
func (s Stat) Spread() float64 {
	if s.N < 2 || s.Med == 0 {
		return 0
	}
	return 100 * (s.Max - s.Min) / math.Abs(s.Med)
}

func stat(vs []float64) Stat {
	if len(vs) == 0 {
		return Stat{}
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Stat{N: len(s), Min: s[0], Med: med, Max: s[len(s)-1], Values: vs}
}

// Report is a run's results, grouped for the tables.
type Report struct {
	Dir      string
	Manifest *results.Manifest
	Records  []results.Record
	// Columns are the measured columns' ids in the file's order; Labels
	// their titles.
	Columns []string
	Labels  map[string]string
	// byPoint: "column/scenario/step" -> records of every repetition.
	byPoint map[string][]results.Record
	// Baseline, if set, is this run set against another (--baseline): the
	// "Compared with" section.
	Baseline *compare.Comparison
	// Claims are the experiment's claims checked against this run.
	Claims []results.ClaimResult
}

// Load reads a run directory.
func Load(dir string) (*Report, error) {
	m, err := results.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	recs, err := results.ReadResults(dir)
	if err != nil {
		return nil, err
	}
	return newReport(dir, m, recs), nil
}

// newReport groups a run's records for the tables.
func newReport(dir string, m *results.Manifest, recs []results.Record) *Report {
	r := &Report{Dir: dir, Manifest: m, Records: recs, Labels: map[string]string{}, byPoint: map[string][]results.Record{}}
	for _, c := range m.Columns {
		r.Labels[c.ID] = c.Label
		if c.Enabled {
			r.Columns = append(r.Columns, c.ID)
		}
	}
	for _, rec := range recs {
		k := rec.Column + "/" + rec.Scenario + "/" + rec.Step
		r.byPoint[k] = append(r.byPoint[k], rec)
	}
	r.Claims = results.EvaluateClaims(m, recs)
	return r
}

// Points returns the records of one data point (column id, scenario,
// step) over every repetition.
func (r *Report) Points(column, scenario, step string) []results.Record {
	return r.byPoint[column+"/"+scenario+"/"+step]
}

// Metric computes a Stat of f over the repetitions of a point; f returns
// ok=false where the record has no such number.
func (r *Report) Metric(column, scenario, step string, f func(results.Record) (float64, bool)) Stat {
	return r.metric(column, scenario, step, f, false)
}

// metric is Metric, or with bench (a figure of the bench's own: the load
// generator's link) over every repetition, those whose link set the pace
// among them, but none where the load generator's CPUs or failed requests
// did (results.BeyondLink).
func (r *Report) metric(column, scenario, step string, f func(results.Record) (float64, bool), bench bool) Stat {
	var vs []float64
	recs := r.Points(column, scenario, step)
	for _, rec := range recs {
		why, _ := results.BenchLimit(rec, r.Manifest.Machine)
		if bench {
			why = results.BeyondLink(rec, r.Manifest.Machine) // a figure of the link: read where the link set the pace
		}
		if why != "" {
			return stat(nil) // a repetition measured the bench: the point's median would be no figure of the server (the bench section says why)
		}
	}
	for _, rec := range recs {
		if v, ok := f(rec); ok {
			vs = append(vs, v)
		}
	}
	return stat(vs)
}

// scenarios of a kind, in file order.
func (r *Report) scenarios(kinds ...string) []results.Scenario {
	var out []results.Scenario
	for _, s := range r.Manifest.Scenarios {
		for _, k := range kinds {
			if s.Kind == k {
				out = append(out, s)
			}
		}
	}
	return out
}

// ColumnsOf are the ids of the measured columns a scenario runs on.
func (r *Report) ColumnsOf(s results.Scenario) []string {
	var out []string
	for _, c := range r.Columns {
		if s.Runs(c) {
			out = append(out, c)
		}
	}
	return out
}

// ServerCPUPerReq is a point's server CPU ms per answered request: the
// figure results.CPUPerRequest picks for this run (the whole machine's when
// the server had one of its own, else its process groups').
func (r *Report) ServerCPUPerReq(rec results.Record) (float64, bool) {
	return results.ServerCPUIn(rec, r.Manifest.Machine)
}

// CPUScope is which server CPU figure the report shows, and why.
func (r *Report) CPUScope() results.CPUScope { return results.CPUScopeOf(r.Manifest.Machine) }

// CPURows are a section's server CPU rows: "server CPU per WHAT, FIGURE
// (ms)" and, when that is the whole machine's, the process groups' share
// beside it.
func (r *Report) CPURows(prefix, what string, ps []string, sc, st string) [][]string {
	scope := r.CPUScope()
	rows := [][]string{r.row(fmt.Sprintf("%sserver CPU per %s, %s (ms)", prefix, what, scope.Label), ps, sc, st, r.ServerCPUPerReq)}
	if scope.Machine {
		rows = append(rows, r.row(fmt.Sprintf("%s  of which %s (ms)", prefix, results.GroupsCPULabel), ps, sc, st, results.ServerCPU))
	}
	return rows
}

// fig is kind's figure key in results' registry (results.Metrics), the
// one place its label and reader are declared. A key the registry lacks
// is this package's bug: every report of the kind shows it (the goldens).
func fig(kind, key string) results.Metric {
	m, ok := results.MetricOf(kind, key)
	if !ok {
		panic(fmt.Sprintf("report: kind %s has no figure %q in results.Metrics", kind, key))
	}
	return m
}

// FigRows are rows of sc's figures keys at step st, each under its label
// after prefix.
func (r *Report) FigRows(prefix string, ps []string, sc results.Scenario, st string, keys ...string) [][]string {
	var rows [][]string
	for _, k := range keys {
		m := fig(sc.Kind, k)
		rows = append(rows, r.rowOf(prefix+m.Label, ps, sc.Name, st, m.Of(r.Manifest.Machine), m.Bench))
	}
	return rows
}

// Encoding is the Content-Encoding the server answered a scenario's probe
// with in each repetition ("identity" when none), joined when they differ.
func (r *Report) Encoding(profile, scenario, step string) string {
	seen := map[string]bool{}
	var out []string
	for _, rec := range r.Points(profile, scenario, step) {
		if rec.Probe == nil {
			continue
		}
		e := rec.Probe.ContentEncoding
		if rec.Probe.Error != "" {
			e = "error"
		} else if e == "" {
			e = "identity"
		}
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return "–"
	}
	return strings.Join(out, "/")
}

// Output names the files Write wrote.
type Output struct {
	Markdown, HTML string
	// Claims is claims.json: "Does it reproduce?" as JSON.
	Claims string
	// Table is what claims.json holds.
	Table ClaimsTable
}

// ClaimsTable is "Does it reproduce?" as `wptest report -o json` and
// claims.json give it.
type ClaimsTable struct {
	Run        string                `json:"run"`
	Experiment string                `json:"experiment"`
	Claims     []results.ClaimResult `json:"claims"`
}

// Options are what a report may be asked for besides its run.
type Options struct {
	// Baseline is another run's directory: the report gets a section that
	// compares this run with it (wptest compare's table).
	Baseline string
}

// Write builds the report of dir and writes report.md and report.html there.
func Write(dir string) (Output, error) { return WriteWith(dir, Options{}) }

// WriteWith is Write with options.
func WriteWith(dir string, o Options) (Output, error) {
	r, err := Load(dir)
	if err != nil {
		return Output{}, err
	}
	if o.Baseline != "" {
		a, err := compare.Load(o.Baseline)
		if err != nil {
			return Output{}, fmt.Errorf("baseline %s: %w", o.Baseline, err)
		}
		b, err := compare.Load(dir)
		if err != nil {
			return Output{}, err
		}
		if r.Baseline, err = compare.Compare(a, b); err != nil {
			return Output{}, fmt.Errorf("baseline %s: %w", o.Baseline, err)
		}
	}
	out := Output{Markdown: filepath.Join(dir, "report.md"), HTML: filepath.Join(dir, "report.html"), Claims: filepath.Join(dir, results.ClaimsFile),
		Table: r.claimsTable()}
	md, h, err := r.render()
	if err != nil {
		return out, err
	}
	cj, err := out.Table.JSON()
	if err != nil {
		return out, err
	}
	if err := writeFile(out.Claims, cj); err != nil {
		return out, err
	}
	if err := writeFile(out.Markdown, md); err != nil {
		return out, err
	}
	if err := writeFile(out.HTML, h); err != nil {
		return out, err
	}
	return out, nil
}

// JSON is t as claims.json holds it (and -o json prints it).
func (t ClaimsTable) JSON() ([]byte, error) {
	jsonstyle.Lists(&t)
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(redact.URLsJSON(b), '\n'), nil
}

// claimsTable is the claims' table of the run (never null in JSON).
func (r *Report) claimsTable() ClaimsTable {
	t := ClaimsTable{Run: r.Manifest.ID, Experiment: r.Manifest.Experiment, Claims: r.Claims}
	if t.Claims == nil {
		t.Claims = []results.ClaimResult{}
	}
	return t
}

// render is report.md and report.html.
func (r *Report) render() (md, html []byte, err error) {
	doc := r.document()
	charts, err := r.charts()
	if err != nil {
		return nil, nil, fmt.Errorf("charts: %w", err)
	}
	h, err := doc.html(charts)
	if err != nil {
		return nil, nil, err
	}
	return []byte(doc.markdown(charts)), h, nil
}
