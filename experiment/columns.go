package experiment

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/wptest/wptest/results"
)

// A column is a shipped profile with its own label and variables:
//
//	column "tuned-400" { profile = "tuned-apache", label = "...", vars = { max_request_workers = 400 } }
//
// profile "name" { label, vars, enabled, reason } is its short form: a
// column called name of profile name. Both share one namespace of column
// ids, in file order.

// Vars is an expression: where each value comes from matters
// (columnvars.go).
type profileHCL struct {
	Name    string         `hcl:"name,label"`
	Label   string         `hcl:"label,optional"`
	Vars    hcl.Expression `hcl:"vars,optional"`
	Enabled *bool          `hcl:"enabled,optional"`
	Reason  string         `hcl:"reason,optional"`
}

type columnHCL struct {
	ID      string         `hcl:"id,label"`
	Profile string         `hcl:"profile"`
	Label   string         `hcl:"label,optional"`
	Vars    hcl.Expression `hcl:"vars,optional"`
	Enabled *bool          `hcl:"enabled,optional"`
	Reason  string         `hcl:"reason,optional"`
}

// columnBlock is one column as written: its block type ("profile" or
// "column") and which block of that type with that label it is.
type columnBlock struct {
	typ string
	n   int
	c   columnHCL
}

// columns checks the profile and column blocks: at least one, each id
// once, each naming a shipped profile, the ports set by the experiment
// block alone (and passed to every column).
func (l *loader) columns(prs []profileHCL, cols []columnHCL) {
	seen := map[string]int{}
	l.colTyp = map[string]string{}
	l.sp.VarFrom = map[string]map[string]VarOrigin{}
	for _, b := range l.columnBlocks(prs, cols) {
		c := b.c
		if seen[c.ID]++; seen[c.ID] > 1 {
			l.bad(dupRange(l.f, b.typ, c.ID, b.n), "Duplicate column", dupDetail(c.ID, l.colTyp[c.ID], b.typ))
			continue
		}
		l.name(b.typ, c.ID, b.n)
		l.colTyp[c.ID] = b.typ
		vars, from := l.columnVarValues(c.Vars)
		col := results.Column{ID: c.ID, Profile: c.Profile, Label: c.Label, Vars: vars, Enabled: c.Enabled == nil || *c.Enabled, Reason: c.Reason}
		if _, err := lookupProfile(c.Profile); err != nil {
			r := labelRange(l.f, b.typ, c.ID, b.n)
			if b.typ == "column" {
				r = attrRange(l.f, b.typ, c.ID, "profile")
			}
			l.bad(r, "Unknown profile", err.Error()+".")
		}
		if col.Label == "" {
			col.Label = c.ID
		}
		for _, k := range []string{"http_port", "https_port"} {
			if _, ok := col.Vars[k]; ok {
				l.bad(attrRange(l.f, b.typ, c.ID, "vars"), "Port set per column", "http_port and https_port are set once, in the experiment block, so every column serves the same URLs.")
			}
		}
		col.Vars["http_port"] = strconv.Itoa(l.sp.HTTPPort)
		col.Vars["https_port"] = strconv.Itoa(l.sp.HTTPSPort)
		from["http_port"], from["https_port"] = VarOrigin{Kind: FromExperiment}, VarOrigin{Kind: FromExperiment}
		l.sp.VarFrom[c.ID] = from
		l.sp.Columns = append(l.sp.Columns, col)
	}
	if len(prs)+len(cols) == 0 {
		l.bad(l.fileRange(), "No columns", `An experiment compares at least one profile "name" { } or column "id" { profile = "name" } block.`)
	}
}

// dupDetail says why a second block with column id is one too many.
func dupDetail(id, first, second string) string {
	if first == second {
		return fmt.Sprintf("%s %q is declared twice.", first, id)
	}
	return fmt.Sprintf("column %q is declared twice: a profile %q block is column %q too.", id, id, id)
}

// columnBlocks are the profile and column blocks in file order (gohcl
// decodes each type apart, in order; the syntax tree interleaves them).
func (l *loader) columnBlocks(prs []profileHCL, cols []columnHCL) []columnBlock {
	var out []columnBlock
	n := map[string]int{}
	add := func(typ string, c columnHCL) {
		out = append(out, columnBlock{typ: typ, n: n[typ+" "+c.ID], c: c})
		n[typ+" "+c.ID]++
	}
	short := func(p profileHCL) columnHCL {
		return columnHCL{ID: p.Name, Profile: p.Name, Label: p.Label, Vars: p.Vars, Enabled: p.Enabled, Reason: p.Reason}
	}
	body, ok := l.f.Body.(*hclsyntax.Body)
	if !ok {
		for _, p := range prs {
			add("profile", short(p))
		}
		for _, c := range cols {
			add("column", c)
		}
		return out
	}
	pi, ci := 0, 0
	for _, b := range body.Blocks {
		switch {
		case b.Type == "profile" && pi < len(prs):
			add("profile", short(prs[pi]))
			pi++
		case b.Type == "column" && ci < len(cols):
			add("column", cols[ci])
			ci++
		}
	}
	return out
}

// columnVars loads every enabled column's profile with its vars, so a
// value the profile's validation refuses (a quote in a URL that a command
// would paste into a root shell, 401 workers where it wants a multiple of
// 25) stops the file here (exit 2), before a plan is printed or anything
// is made.
func (l *loader) columnVars() {
	for _, c := range l.sp.Columns {
		if !c.Enabled {
			continue
		}
		if _, err := loadProfile(c, nil); err != nil {
			l.bad(attrRange(l.f, l.colTyp[c.ID], c.ID, "vars"), "Invalid profile", err.Error())
		}
	}
}

// scenarioColumns checks a scenario's columns = [...]: each one of the
// file's columns.
func (l *loader) scenarioColumns(s results.Scenario, r func(string) hcl.Range) {
	for _, id := range s.Columns {
		if !l.hasColumn(id) {
			l.bad(r("columns"), "Unknown column", fmt.Sprintf("%q is not one of this file's columns (%s).", id, strings.Join(l.columnIDs(), ", ")))
		}
	}
}

// hasColumn says whether the file has a column (or profile block) id.
func (l *loader) hasColumn(id string) bool {
	_, ok := l.colTyp[id]
	return ok
}

func (l *loader) columnIDs() []string {
	var out []string
	for _, c := range l.sp.Columns {
		out = append(out, c.ID)
	}
	return out
}

// renamedAttrs says where an attribute HCL refused was renamed: a
// scenario's profiles = [...] is columns = [...] since columns have ids.
func renamedAttrs(diags hcl.Diagnostics) hcl.Diagnostics {
	for _, d := range diags {
		if d.Summary == "Unsupported argument" && strings.HasPrefix(d.Detail, `An argument named "profiles" is not expected here.`) {
			d.Detail += ` Since columns have ids, a scenario names the ones it runs on as columns = ["id", ...].`
		}
	}
	return diags
}
