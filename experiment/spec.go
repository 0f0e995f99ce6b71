// Package experiment joins the other parts of wptest: an experiment file
// (HCL) names the machines, the fixture and its seed, the columns to compare
// (server profiles with their labels and variables, columns.go), the
// scenarios and the repetitions; Run brings the machines up, seeds and
// verifies the fixture once, then for every repetition and column swaps the
// server, warms it up and measures every scenario step with srvstat
// sampling, appending each finished data point to runs/<id>/results.jsonl.
//
// The load comes from the load generator machines when the machines
// include some that are not this machine (hetzner's load_generators, the
// static driver's further targets): this wptest binary is installed there and
// each load run is a `wptest bench-job` over SSH (loadgen.go), split between
// several and merged exactly (multiload.go). Otherwise (the local driver, a
// single static target) it comes from this process. Every record names its
// load host.
//
// It is the only package that imports provision, fixture and bench together.
package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/hcldiag"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/results"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Spec is a loaded experiment file, with variables resolved.
type Spec struct {
	Name        string
	Description string
	File        string
	SHA256      string // of the file's bytes
	Vars        map[string]string
	Machines    cloud.Machines
	Fixture     results.FixtureSpec
	HTTPPort    int
	HTTPSPort   int
	Repetitions int
	// Warmup is the unmeasured load after each swap, before the first scenario.
	Warmup time.Duration
	// Columns are the profile and column blocks, in file order.
	Columns   []results.Column
	Scenarios []results.Scenario
	Claims    []results.Claim `json:",omitempty"` // claims.go; PlanHash leaves them out
	// SourceDeviations: how this setup differs from the sources (claims.go;
	// PlanHash leaves them out).
	SourceDeviations []results.SourceDeviation `json:",omitempty"`
	Sources          []results.Source          `json:",omitempty"`
	// VarFrom says where each column's variables came from (column id,
	// then variable): the plan shows it; operatorVars holds it to the rules.
	VarFrom map[string]map[string]VarOrigin `json:"-"`
	// Uploads are the local files the profiles' vars name (localFiles);
	// out of the plan's hash, which has their hashes in those vars.
	Uploads []stage.LocalFile `json:"-"`
}

// HCL shapes. gohcl reports any attribute not listed here as an error at its
// file:line:col ("Unsupported argument").
type fileHCL struct {
	Experiments []experimentHCL `hcl:"experiment,block"`
	Variables   []variableHCL   `hcl:"variable,block"`
	Machines    []machinesHCL   `hcl:"machines,block"`
	Fixtures    []fixtureHCL    `hcl:"fixture,block"`
	Profiles    []profileHCL    `hcl:"profile,block"`
	Columns     []columnHCL     `hcl:"column,block"`
	Scenarios   []scenarioHCL   `hcl:"scenario,block"`
	Claims      []claimHCL      `hcl:"claim,block"`     // claims.go
	StandIns    []standInHCL    `hcl:"stand_in,block"`  // claims.go
	Deviations  []deviationHCL  `hcl:"deviation,block"` // claims.go
	Sources     []sourceHCL     `hcl:"source,block"`    // claims.go
}

type experimentHCL struct {
	Name        string         `hcl:"name,label"`
	Description string         `hcl:"description,optional"`
	Repetitions hcl.Expression `hcl:"repetitions,optional"`
	Warmup      string         `hcl:"warmup,optional"`
	HTTPPort    *int           `hcl:"http_port,optional"`
	HTTPSPort   *int           `hcl:"https_port,optional"`
	Remain      hcl.Body       `hcl:",remain"`
}

type variableHCL struct {
	Name        string         `hcl:"name,label"`
	Default     hcl.Expression `hcl:"default,optional"`
	Description string         `hcl:"description,optional"`
}

// machinesHCL is decoded by provision/cloud (LoadMachines); here it is only
// allowed to exist.
type machinesHCL struct {
	Driver string   `hcl:"driver,label"`
	Body   hcl.Body `hcl:",remain"`
}

type fixtureHCL struct {
	Profile string         `hcl:"profile,label"`
	Seed    hcl.Expression `hcl:"seed"`
	Root    string         `hcl:"root,optional"`
}

type scenarioHCL struct {
	Name      string   `hcl:"name,label"`
	Kind      string   `hcl:"kind"`
	Path      string   `hcl:"path,optional"`
	Visitors  []int    `hcl:"visitors,optional"`
	Duration  string   `hcl:"duration,optional"`
	Warmup    string   `hcl:"warmup,optional"`
	Timeout   string   `hcl:"timeout,optional"`
	Requests  int64    `hcl:"requests,optional"`
	Proto     string   `hcl:"proto,optional"`
	Rate      float64  `hcl:"rate,optional"`
	KeepAlive *bool    `hcl:"keep_alive,optional"`
	Gzip      *bool    `hcl:"gzip,optional"`
	Columns   []string `hcl:"columns,optional"`
	Body      hcl.Body `hcl:",remain"`
}

// LoadOptions are the command line's say over the file.
type LoadOptions struct {
	// Vars are -var name=value: experiment variables first, then machine
	// attributes (server_type, image, ...). Any other name is an error.
	Vars []string
	// Target overrides the machines block: a driver's name or a value a
	// driver claims (cloud.TargetForms); "" keeps the file's.
	Target     string
	KnownHosts string
	Identity   string
	// ThisHost are this machine's interface addresses: where allow_ssh_from
	// is not given, its public one is the default (cloud.SSHFromThisHost).
	ThisHost []netip.Addr
}

// Load parses and checks an experiment file. Every error names
// file:line:col with the source line; the error carries exit code 2.
func Load(filename string, src []byte, opt LoadOptions) (*Spec, error) {
	p := hclparse.NewParser()
	f, diags := hcldiag.ParseHCL(p, src, filename) // not UTF-8, or nested too deep: one error, not parsed
	if diags.HasErrors() {
		return nil, exitcode.With(exitcode.Config, hcldiag.Error(p.Files(), diags))
	}
	sum := sha256.Sum256(src)
	l := &loader{p: p, f: f, sp: &Spec{File: filename, SHA256: hex.EncodeToString(sum[:]), Vars: map[string]string{}}}
	ctx, machineVars, err := l.variables(opt.Vars)
	if err != nil {
		return nil, err
	}
	l.ctx = ctx
	// Re-decode with variables in scope (the first pass had none).
	var raw fileHCL
	if diags := hcldiag.Sorted(gohcl.DecodeBody(f.Body, ctx, &raw)); diags.HasErrors() {
		return nil, l.fail(diags)
	}
	l.experiment(raw.Experiments)
	l.fixture(raw.Fixtures, ctx)
	l.columns(raw.Profiles, raw.Columns)
	l.scenarios(raw.Scenarios)
	l.claims(raw.Claims, raw.StandIns)
	l.deviations(raw.Deviations)
	l.sources(raw.Sources)
	if !l.ds.HasErrors() {
		l.operatorVars()
	}
	if !l.ds.HasErrors() {
		l.localFiles()
	}
	if !l.ds.HasErrors() {
		l.columnVars()
	}
	if l.ds.HasErrors() {
		return nil, l.fail(l.ds)
	}
	m, err := machines(filename, src, l.f, machineVars, l.sp.Vars, opt)
	if err != nil {
		return nil, err
	}
	l.sp.Machines = m
	return l.sp, nil
}

// loader is one Load: the file, the Spec it fills and the errors found so
// far, so each part of the file is checked in a step of its own and every
// error is reported at once.
type loader struct {
	p  *hclparse.Parser
	f  *hcl.File
	sp *Spec
	ds hcl.Diagnostics
	// ctx has the file's variables in scope: a scenario kind evaluates
	// its own attributes with it (scenarioKind.decode).
	ctx *hcl.EvalContext
	// colTyp is each column id's block type: "profile" or "column".
	colTyp map[string]string
	// given are the file's variables the command line set (-var).
	given map[string]bool
}

// bad records an error at r.
func (l *loader) bad(r hcl.Range, summary, detail string) {
	rr := r
	l.ds = append(l.ds, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: &rr})
}

// fail is diags as Load's error: file:line:col and snippets, exit 2.
func (l *loader) fail(diags hcl.Diagnostics) error {
	return exitcode.With(exitcode.Config, hcldiag.Error(l.p.Files(), renamedAttrs(diags)))
}

// fileRange is the file's start, for what is missing from it.
func (l *loader) fileRange() hcl.Range {
	return hcl.Range{Filename: l.sp.File, Start: hcl.InitialPos, End: hcl.InitialPos}
}

// variables decodes the variable blocks alone (the rest may refer to var.*)
// and gives each its default, then its -var value. It returns the context
// the rest is decoded in and the -var values that are not variables (the
// machines block's).
func (l *loader) variables(args []string) (*hcl.EvalContext, map[string]string, error) {
	vc, _, diags := l.f.Body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "variable", LabelNames: []string{"name"}}}})
	if diags.HasErrors() {
		return nil, nil, l.fail(diags)
	}
	var decls []variableHCL
	for _, b := range vc.Blocks {
		v := variableHCL{Name: b.Labels[0]}
		if diags := hcldiag.Sorted(gohcl.DecodeBody(b.Body, nil, &v)); diags.HasErrors() {
			return nil, nil, l.fail(diags)
		}
		decls = append(decls, v)
	}
	cli, err := cloud.ParseVars(args)
	if err != nil {
		return nil, nil, err
	}
	vals := map[string]cty.Value{}
	seen := map[string]int{}
	l.given = map[string]bool{}
	for _, v := range decls {
		if cloud.IsMachineVar(v.Name) {
			// It would take the operator's -var meant for the machines.
			l.bad(labelRange(l.f, "variable", v.Name, seen[v.Name]), "Variable named like a machines attribute",
				fmt.Sprintf("-var %s=... sets the machines' %s; a variable of the file may not take that name (and the value the operator gives for the machines).", v.Name, v.Name))
			continue
		}
		if l.repeated(seen, "variable", v.Name) {
			continue
		}
		val, ok, err := l.variable(v, cli)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			vals[v.Name] = val
			l.sp.Vars[v.Name] = toString(val)
			_, l.given[v.Name] = cli[v.Name]
		}
	}
	machineVars := map[string]string{}
	for k, v := range cli {
		if seen[k] == 0 {
			machineVars[k] = v
		}
	}
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(vals)}}
	if len(vals) == 0 {
		ctx.Variables["var"] = cty.EmptyObjectVal
	}
	return ctx, machineVars, nil
}

// variable is v's value: its default (a string "" without one), replaced by
// its -var value; ok is false if the default does not evaluate (recorded).
func (l *loader) variable(v variableHCL, cli map[string]string) (val cty.Value, ok bool, err error) {
	val = cty.StringVal("")
	if v.Default != nil {
		def, d := v.Default.Value(nil)
		if d.HasErrors() {
			l.ds = append(l.ds, d...)
			return cty.NilVal, false, nil
		}
		if !def.IsNull() {
			val = def
		}
	}
	if s, ok := cli[v.Name]; ok {
		cv, err := fromString(val.Type(), s)
		if err != nil {
			// Said at the default, which is what makes the value a number
			// or a bool: the command line has no file:line:col.
			r := v.Default.Range()
			return cty.NilVal, false, l.fail(hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid -var value",
				Detail: fmt.Sprintf("-var %s: %v; the variable's default makes it a %s.", v.Name, err, val.Type().FriendlyName()), Subject: &r}})
		}
		val = cv
	}
	return val, true, nil
}

// experiment checks the experiment block: one, its repetitions, ports and
// warmup (defaults: 1, 80, 443, 3s).
func (l *loader) experiment(es []experimentHCL) {
	switch len(es) {
	case 0:
		l.bad(l.fileRange(), "Missing experiment block", `An experiment file needs one experiment "name" { ... } block.`)
	case 1:
	default:
		l.bad(dupRange(l.f, "experiment", es[1].Name, sameLabel(es[0].Name, es[1].Name)), "Duplicate experiment block", "Only one experiment block is allowed.")
	}
	sp := l.sp
	sp.HTTPPort, sp.HTTPSPort, sp.Repetitions = 80, 443, 1
	if len(es) == 0 {
		return
	}
	e := es[0]
	at := func(attr string) hcl.Range { return attrRange(l.f, "experiment", e.Name, attr) }
	if d := noBlocks(e.Remain); d.HasErrors() {
		l.ds = append(l.ds, d...)
	}
	l.name("experiment", e.Name, 0)
	sp.Name, sp.Description = e.Name, e.Description
	l.repetitions(e.Repetitions)
	if e.HTTPPort != nil {
		sp.HTTPPort = *e.HTTPPort
	}
	if e.HTTPSPort != nil {
		sp.HTTPSPort = *e.HTTPSPort
	}
	for _, pp := range []struct {
		n string
		v int
	}{{"http_port", sp.HTTPPort}, {"https_port", sp.HTTPSPort}} {
		if pp.v < 1 || pp.v > 65535 {
			l.bad(at(pp.n), "Invalid port", fmt.Sprintf("%s = %d: want 1 to 65535.", pp.n, pp.v))
		}
	}
	sp.Warmup = dur(e.Warmup, 3*time.Second, at("warmup"), &l.ds)
}

// repetitions checks the experiment's repetitions (default 1): a whole
// number from 1 to 100, written or a variable's (-var repetitions=5). The
// error names the value, which a variable's snippet does not show.
func (l *loader) repetitions(x hcl.Expression) {
	if x == nil {
		return
	}
	v, d := x.Value(l.ctx)
	if d.HasErrors() {
		l.ds = append(l.ds, d...)
		return
	}
	if v.IsNull() {
		return
	}
	r := x.Range()
	bad := func(got string) {
		l.ds = append(l.ds, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid repetitions",
			Detail: fmt.Sprintf("repetitions %s: want a whole number from 1 to 100.", got), Subject: &r,
			Expression: x, EvalContext: l.ctx})
	}
	num, err := convert.Convert(v, cty.Number) // "5" is 5, as HCL converts
	if err != nil || !num.IsKnown() {
		bad("is a " + v.Type().FriendlyName())
		return
	}
	bf := num.AsBigFloat()
	n, acc := bf.Int64()
	if !bf.IsInt() || acc != big.Exact || n < 1 || n > 100 {
		bad("= " + bf.Text('g', 10))
		return
	}
	l.sp.Repetitions = int(n)
}

// fixture checks the one fixture block: its seed (evaluated in ctx: it may
// be a variable) and the pinned root hash, if any.
func (l *loader) fixture(fxs []fixtureHCL, ctx *hcl.EvalContext) {
	switch len(fxs) {
	case 0:
		l.bad(l.fileRange(), "Missing fixture block", `An experiment needs a fixture "profile" { seed = N } block.`)
		return
	case 1:
	default:
		l.bad(dupRange(l.f, "fixture", fxs[1].Profile, sameLabel(fxs[0].Profile, fxs[1].Profile)), "Duplicate fixture block", "An experiment seeds one fixture.")
		return
	}
	fx := fxs[0]
	l.sp.Fixture.Profile, l.sp.Fixture.Root = fx.Profile, fx.Root
	r := fx.Seed.Range()
	v, d := fx.Seed.Value(ctx)
	if d.HasErrors() {
		l.ds = append(l.ds, d...)
	} else if v.Type() != cty.Number || !v.IsKnown() || v.IsNull() {
		l.bad(r, "Invalid seed", "seed must be a whole number.")
	} else if bf := v.AsBigFloat(); !bf.IsInt() || bf.Sign() < 0 {
		l.bad(r, "Invalid seed", "seed must be a whole number >= 0.")
	} else {
		u, _ := bf.Uint64()
		l.sp.Fixture.Seed = u
	}
	if fx.Root != "" && !results.IsHex(fx.Root, 64) {
		l.bad(attrRange(l.f, "fixture", fx.Profile, "root"), "Invalid root", "root must be the fixture's 64-digit SHA-256 root hash (see fixture/testdata/golden.txt).")
	}
}

// repeated counts a typ block called id in seen and says whether one came
// before it, naming this one as a duplicate.
func (l *loader) repeated(seen map[string]int, typ, id string) bool {
	if seen[id]++; seen[id] == 1 {
		return false
	}
	l.bad(dupRange(l.f, typ, id, seen[id]-1), "Duplicate "+typ, fmt.Sprintf("%s %q is declared twice.", typ, id))
	return true
}

// scenarios checks the scenario blocks: at least one, each once.
func (l *loader) scenarios(scs []scenarioHCL) {
	seen := map[string]int{}
	for _, sc := range scs {
		if d := noBlocks(sc.Body, kindAttrs(sc.Kind)...); d.HasErrors() {
			l.ds = append(l.ds, whoseAttr(d, sc.Kind)...)
		}
		if l.repeated(seen, "scenario", sc.Name) {
			continue
		}
		l.name("scenario", sc.Name, 0)
		l.sp.Scenarios = append(l.sp.Scenarios, l.scenario(sc))
	}
	if len(scs) == 0 {
		l.bad(l.fileRange(), "No scenarios", `An experiment measures at least one scenario "name" { kind = ... } block.`)
	}
}

// scenario is one scenario block with its defaults, checked.
func (l *loader) scenario(sc scenarioHCL) results.Scenario {
	r := func(attr string) hcl.Range { return attrRange(l.f, "scenario", sc.Name, attr) }
	s := results.Scenario{Name: sc.Name, Kind: sc.Kind, Path: sc.Path, Visitors: sc.Visitors, Requests: sc.Requests, Proto: sc.Proto,
		Rate: sc.Rate, KeepAlive: sc.KeepAlive == nil || *sc.KeepAlive, Gzip: sc.Gzip != nil && *sc.Gzip, Columns: sc.Columns}
	l.checkKind(s, r)
	if s.Path == "" {
		s.Path = "/"
	}
	if !strings.HasPrefix(s.Path, "/") {
		l.bad(r("path"), "Invalid path", fmt.Sprintf("path %q must start with /.", s.Path))
	}
	if s.Proto == "" {
		s.Proto = "h1"
	}
	if !slices.Contains([]string{"h1", "h2", "h2c", "h3"}, s.Proto) {
		l.bad(r("proto"), "Unknown proto", fmt.Sprintf("proto %q: want h1, h2, h2c or h3.", s.Proto))
	}
	// The durations are read first, so a kind decodes over them with their
	// defaults (experiment.Kind.Decode), and said after the load's checks,
	// as the file's errors always were.
	var durs hcl.Diagnostics
	s.Duration = dur(sc.Duration, 15*time.Second, r("duration"), &durs)
	s.Warmup = dur(sc.Warmup, 3*time.Second, r("warmup"), &durs)
	s.Timeout = dur(sc.Timeout, 30*time.Second, r("timeout"), &durs)
	l.load(sc, &s, r)
	l.ds = append(l.ds, durs...)
	l.scenarioColumns(s, r)
	return s
}

// load checks how a scenario loads the server: its visitors (or kit
// concurrency), levels and rate, and its kind's own attributes, defaults
// and checks.
func (l *loader) load(sc scenarioHCL, s *results.Scenario, r func(string) hcl.Range) {
	name := sc.Name
	if len(s.Visitors) == 0 {
		l.bad(blockRange(l.f, "scenario", name), "Missing visitors", "visitors = [N, ...] is required (kit and crowd: the concurrency or crowd sizes).")
	}
	if err := CheckVisitors(s.Visitors); err != nil {
		l.bad(r("visitors"), "Invalid visitor count", err.Error())
	}
	if k, ok := scenarioKinds[s.Kind]; ok {
		k.decode(l, sc, s, r)
	}
	if err := benchgen.CheckRate(s.Rate); err != nil {
		l.bad(r("rate"), "Invalid rate", "rate must be a finite number >= 0 (0: closed loop).")
	}
}

// sameLabel is which block labelled b is the second of two blocks labelled
// a and b: the second (1) if the labels are the same, else the first (0).
func sameLabel(a, b string) int {
	if a == b {
		return 1
	}
	return 0
}

// machines is the experiment's machines block (provision/cloud owns it and
// picks the driver; a file without one runs where the registry says files
// without one run) with the -var values that are not the file's variables
// (names: the file's variables, for the error) and the command line's
// --target, --known-hosts and --identity.
func machines(filename string, src []byte, f *hcl.File, machineVars, fileVars map[string]string, opt LoadOptions) (cloud.Machines, error) {
	m, _, err := cloud.Resolve(cloud.Choice{File: filename, Src: src, Parsed: f, Run: true, Target: opt.Target, Vars: machineVars,
		KnownHosts: opt.KnownHosts, Identity: opt.Identity, ThisHost: opt.ThisHost})
	if err != nil {
		return m, err
	}
	var unknown []string
	for k := range machineVars {
		if !cloud.IsMachineVar(k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		var names []string
		for k := range fileVars {
			names = append(names, k)
		}
		sort.Strings(names)
		return m, exitcode.With(exitcode.Config, fmt.Errorf("-var %s: not a variable of %s (it has: %s) nor a machines attribute (%s)",
			strings.Join(unknown, ", "), filename, strings.Join(names, ", "), cloud.MachineVars()))
	}
	return m, nil
}

// noBlocks rejects nested blocks in a body whose attributes gohcl decoded,
// and any attribute but attrs (a scenario kind's own).
func noBlocks(b hcl.Body, attrs ...hcl.AttributeSchema) hcl.Diagnostics {
	if b == nil {
		return nil
	}
	_, d := b.Content(&hcl.BodySchema{Attributes: attrs})
	return hcldiag.Sorted(d) // HCL names unknown attributes in map order
}

func dur(s string, def time.Duration, r hcl.Range, ds *hcl.Diagnostics) time.Duration {
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		rr := r
		*ds = append(*ds, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid duration",
			Detail: fmt.Sprintf("%q: want a duration such as \"5s\" or \"1m30s\".", s), Subject: &rr})
		return def
	}
	return d
}

func fromString(t cty.Type, s string) (cty.Value, error) {
	switch t {
	case cty.Number:
		v, err := cty.ParseNumberVal(s)
		if err != nil {
			return cty.NilVal, fmt.Errorf("%q is not a number", s)
		}
		return v, nil
	case cty.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return cty.NilVal, fmt.Errorf("%q is not true or false", s)
		}
		return cty.BoolVal(b), nil
	}
	return cty.StringVal(s), nil
}

func toString(v cty.Value) string {
	switch v.Type() {
	case cty.Number:
		return v.AsBigFloat().Text('f', -1)
	case cty.Bool:
		return strconv.FormatBool(v.True())
	case cty.String:
		return v.AsString()
	}
	return v.GoString()
}

// scenario is the scenario named name (zero when there is none).
func (sp *Spec) scenario(name string) results.Scenario {
	for _, s := range sp.Scenarios {
		if s.Name == name {
			return s
		}
	}
	return results.Scenario{}
}
