package experiment

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/results"
)

// Kind is the run half of a scenario kind in a package of its own
// (kinds/...), which calls Register from its init, beside results.Register
// (its figures) and report.Register (its section). It sees a scenario
// block and a data point, never the runner: what it may do to a server is
// what its job's requests do.
type Kind interface {
	// Attrs are the block's attributes of this kind alone (nil: none); a
	// block of the kind with any other than these and the common ones is
	// refused before Decode.
	Attrs() []hcl.AttributeSchema
	// Decode checks the kind's attributes (b) and the common ones in s,
	// with their defaults (a duration not written is 15 s: b.Given says
	// whether it was), and applies the kind's defaults to s. Its
	// diagnostics name b's ranges.
	Decode(b Block, s *results.Scenario) hcl.Diagnostics
	// Estimate is a data point's planned wall time (SweepEstimate: a
	// window of warm-up and duration).
	Estimate(sc results.Scenario) time.Duration
	// Job is the data point's load for the load generators; finish, if not
	// nil, completes the record once the load ran and the server's samples
	// over its window were joined.
	Job(ctx context.Context, p DataPoint) (j benchgen.Job, finish func(*results.Record, *result.Server), err error)
}

// Block is a scenario block as a kind's Decode reads it.
type Block struct {
	// Attrs are the block's attributes of the kind's Attrs, as written.
	Attrs hcl.Attributes
	// Ctx evaluates them: the file's variables and functions.
	Ctx *hcl.EvalContext
	// Range is where the block's attribute called name is written (the
	// block's name where it is not), for a diagnostic on a common one.
	Range func(name string) hcl.Range
	// Written are all the attributes the block writes, the common ones
	// among them, as written (the common ones' values are in the
	// scenario, their defaults applied).
	Written hcl.Attributes
}

// Given says whether the block writes the attribute called name (a
// common one the kind defaults, such as path, or refuses).
func (b Block) Given(name string) bool {
	_, ok := b.Written[name]
	return ok
}

// Decode decodes the kind's attribute name (one of its Attrs) into v
// where the block writes it; v is left as it is where it does not.
func (b Block) Decode(name string, v any) hcl.Diagnostics {
	a, ok := b.Attrs[name]
	if !ok {
		return nil
	}
	return gohcl.DecodeExpression(a.Expr, b.Ctx, v)
}

// Duration is the kind's attribute name as a duration ("5s"): def where
// the block does not write it or writes "".
func (b Block) Duration(name string, def time.Duration) (time.Duration, hcl.Diagnostics) {
	var s string
	if d := b.Decode(name, &s); d.HasErrors() {
		return def, d
	}
	var ds hcl.Diagnostics
	return dur(s, def, b.Range(name), &ds), ds
}

// Path is the kind's attribute name as a path on the server, which must
// start with /: "" where the block does not write it.
func (b Block) Path(name string) (string, hcl.Diagnostics) {
	var s string
	if d := b.Decode(name, &s); d.HasErrors() || s == "" || strings.HasPrefix(s, "/") {
		return s, d
	}
	r := b.Range(name)
	return "", hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid path", Detail: fmt.Sprintf("%s %q must start with /.", name, s), Subject: &r}}
}

// CheckVisitors checks visitor counts (or a kit's levels): 1 to 100000.
func CheckVisitors(vs []int) error {
	for _, v := range vs {
		if v < 1 || v > 100000 {
			return fmt.Errorf("%d: want 1 to 100000.", v)
		}
	}
	return nil
}

// DataPoint is what a kind makes a data point's job from.
type DataPoint struct {
	Column   results.Column
	Scenario results.Scenario
	Point    results.Point
	// Config is the scenario's base load at the point's visitors: the URL
	// of its path on the column's server, protocol, keep-alive, window,
	// timeout, the server's name and when to start.
	Config benchgen.Config
	// URL is another path's URL on the column's server in the scenario's
	// protocol (a crowd's probe_path).
	URL func(path string) string
	// Startup restarts the column's server as its profile says and times
	// it until a first good answer, three rounds (the Apache kit's startup
	// metric); nil, nil where the profile restarts nothing.
	Startup func(ctx context.Context) (*result.Startup, error)
}

// Register adds the run half of the kind called name. Two kinds of one
// name are a programming error: it panics.
func Register(name string, k Kind) {
	if k == nil {
		panic(fmt.Sprintf("experiment: scenario kind %q registered without its Kind", name))
	}
	if _, ok := scenarioKinds[name]; ok {
		panic(fmt.Sprintf("experiment: scenario kind %q registered twice", name))
	}
	scenarioKinds[name] = ownKind{k}
}

// RunKind is a Kind measured as one run of requests per visitor count
// (benchgen's run job over the point's base load), with no attributes of
// its own: a kind's package embeds it and changes what differs.
type RunKind struct{}

func (RunKind) Attrs() []hcl.AttributeSchema                    { return nil }
func (RunKind) Decode(Block, *results.Scenario) hcl.Diagnostics { return nil }
func (RunKind) Estimate(sc results.Scenario) time.Duration      { return sweepEstimate(sc) }
func (RunKind) Job(ctx context.Context, p DataPoint) (benchgen.Job, func(*results.Record, *result.Server), error) {
	j, err := benchgen.NewRunJob(p.Config)
	return j, nil, err
}

// SweepEstimate is the planned time of a data point measured over a window
// of warm-up and duration, with a point's fixed overhead.
func SweepEstimate(sc results.Scenario) time.Duration { return sweepEstimate(sc) }

// ownKind is a registered Kind as the loader and runner call it.
type ownKind struct{ k Kind }

func (o ownKind) attrs() []hcl.AttributeSchema { return o.k.Attrs() }

func (o ownKind) decode(l *loader, sc scenarioHCL, s *results.Scenario, r func(string) hcl.Range) {
	content, _ := sc.Body.Content(&hcl.BodySchema{Attributes: o.k.Attrs()}) // noBlocks reported the rest
	written := hcl.Attributes{}
	if b := findBlock(l.f, "scenario", sc.Name); b != nil {
		for n, a := range b.Body.Attributes {
			written[n] = a.AsHCLAttribute()
		}
	}
	l.ds = append(l.ds, o.k.Decode(Block{Attrs: content.Attributes, Ctx: l.ctx, Range: r, Written: written}, s)...)
}

func (o ownKind) estimate(sc results.Scenario) time.Duration { return o.k.Estimate(sc) }

func (o ownKind) job(ctx context.Context, r *runner, m point) (benchgen.Job, func(*results.Record, *result.Server), error) {
	url := func(path string) string { return r.url(path, m.sc.Proto) }
	startup := func(ctx context.Context) (*result.Startup, error) { return r.startup(ctx, m.ps, m.cfg) }
	return o.k.Job(ctx, DataPoint{Column: m.ps, Scenario: m.sc, Point: m.p, Config: m.cfg, URL: url, Startup: startup})
}

// Figure is what a Kind may add: its point's figure on the progress line
// (a kind without it shows its run's requests per second, or its result's
// own figure, as the kinds always did).
type Figure interface {
	Progress(rec results.Record) string
}

// ownFigure is the progress line's figure of a kind that says it.
func ownFigure(rec results.Record) (string, bool) {
	if o, ok := scenarioKinds[rec.Kind].(ownKind); ok {
		if p, ok := o.k.(Figure); ok {
			s := p.Progress(rec)
			return s, s != ""
		}
	}
	return "", false
}
