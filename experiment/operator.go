package experiment

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/provision"
	"github.com/zclconf/go-cty/cty"
)

// An experiment file is data that strangers send: it may set a column's
// profile variables, but a variable its profile declares operator_only
// (what brings code or bytes onto the server: a source URL, a package, the
// hash that vouches for one; or opens it to others) takes only a value the
// person running wptest gave: a -var of the file's own variables that the
// column passes through unchanged (vars = { package_source =
// var.corehttpd_package }). A value the file supplies (a literal, an
// expression, a variable's default written in it) is an error; a pass-through
// of a variable left at an empty default is left out, so the profile's own
// pinned default applies. local+file:// (a file on this machine) is taken
// from the command line alone, for any variable.

// VarOrigin says where a column's variable got its value, for the plan and
// the rules above.
type VarOrigin struct {
	Kind  OriginKind
	Var   string    // the experiment variable passed through, if any
	Range hcl.Range // where the value is written in the file
}

// OriginKind is where a value came from.
type OriginKind int

const (
	FromFile        OriginKind = iota // written in the experiment file
	FromFileDefault                   // an experiment variable's default, written in the file
	FromCommandLine                   // an experiment variable the command line set (-var)
	FromExperiment                    // the experiment block (the ports every column serves)
)

func (o VarOrigin) String() string {
	switch o.Kind {
	case FromFileDefault:
		return "experiment file: the default of var." + o.Var
	case FromCommandLine:
		return "command line: -var " + o.Var
	case FromExperiment:
		return "experiment block"
	}
	return "experiment file"
}

// columnVars evaluates a column's vars = { name = value, ... }: each value a
// string, number or bool, and where it came from.
func (l *loader) columnVarValues(expr hcl.Expression) (map[string]string, map[string]VarOrigin) {
	vars, from := map[string]string{}, map[string]VarOrigin{}
	if expr == nil {
		return vars, from
	}
	obj, ok := expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		// vars = merge(...), vars = var.x: one value, written in the file.
		v, d := expr.Value(l.ctx)
		l.ds = append(l.ds, d...)
		if d.HasErrors() || v.IsNull() {
			return vars, from
		}
		if !v.Type().IsObjectType() && !v.Type().IsMapType() {
			l.bad(expr.Range(), "Invalid vars", "vars must be an object of variable = value, e.g. { max_request_workers = 400 }.")
			return vars, from
		}
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			if !hclsyntax.ValidIdentifier(k.AsString()) {
				l.bad(expr.Range(), "Invalid vars", fmt.Sprintf("%q: a variable's name is an identifier: letters, digits, '_' and '-', starting with a letter.", k.AsString()))
				continue
			}
			if s, ok := l.varString(ev, expr.Range()); ok {
				vars[k.AsString()], from[k.AsString()] = s, VarOrigin{Kind: FromFile, Range: expr.Range()}
			}
		}
		return vars, from
	}
	for _, item := range obj.Items {
		kv, d := item.KeyExpr.Value(l.ctx)
		l.ds = append(l.ds, d...)
		if d.HasErrors() {
			continue
		}
		if kv.Type() != cty.String || kv.IsNull() || !kv.IsKnown() || !hclsyntax.ValidIdentifier(kv.AsString()) {
			// A name is an identifier: one with "=" in it would be read
			// as another variable's name=value by the profile's loader.
			l.bad(item.KeyExpr.Range(), "Invalid vars", "A variable's name is an identifier: letters, digits, '_' and '-', starting with a letter.")
			continue
		}
		v, d := item.ValueExpr.Value(l.ctx)
		l.ds = append(l.ds, d...)
		if d.HasErrors() {
			continue
		}
		if s, ok := l.varString(v, item.ValueExpr.Range()); ok {
			vars[kv.AsString()], from[kv.AsString()] = s, l.origin(item.ValueExpr)
		}
	}
	return vars, from
}

// varString is a vars value as the profile's -var takes it.
func (l *loader) varString(v cty.Value, r hcl.Range) (string, bool) {
	if v.IsNull() || !v.IsKnown() || !v.Type().IsPrimitiveType() {
		l.bad(r, "Invalid vars value", "A profile variable's value here is a string, a number or a bool.")
		return "", false
	}
	return toString(v), true
}

// origin is where the value of expr comes from: a pass-through of one of
// the file's variables (var.NAME or "${var.NAME}", unchanged) is the
// command line's when -var set it, else the default written in the file;
// anything else is the file's.
func (l *loader) origin(expr hcl.Expression) VarOrigin {
	o := VarOrigin{Kind: FromFile, Range: expr.Range()}
	if w, ok := expr.(*hclsyntax.TemplateWrapExpr); ok {
		expr = w.Wrapped
	}
	st, ok := expr.(*hclsyntax.ScopeTraversalExpr)
	if !ok || len(st.Traversal) != 2 || st.Traversal.RootName() != "var" {
		return o
	}
	a, ok := st.Traversal[1].(hcl.TraverseAttr)
	if !ok {
		return o
	}
	o.Var, o.Kind = a.Name, FromFileDefault
	if l.given[a.Name] {
		o.Kind = FromCommandLine
	}
	return o
}

// operatorVars holds every column's variables to the rules at the top of
// this file: what an operator_only variable or a local file may take.
func (l *loader) operatorVars() {
	for _, c := range l.sp.Columns {
		decl := declaredVars(c.Profile)
		from := l.sp.VarFrom[c.ID]
		for _, k := range byPlace(c.Vars, from) {
			o, ok := from[k]
			if !ok || o.Kind == FromCommandLine {
				continue // the loader's own (ports), or the operator's
			}
			if stage.IsLocalFile(c.Vars[k]) {
				l.bad(o.Range, "Local file named by the experiment file",
					fmt.Sprintf("vars.%s: %s names a file on the machine running wptest, and only the person running it may name one, on the command line: declare a variable with an empty default, pass it here (%s = var.NAME) and run with -var NAME=%sPATH.", k, stage.LocalFilePrefix, k, stage.LocalFilePrefix))
				continue
			}
			v := decl[k]
			if v == nil || !v.OperatorOnly {
				continue
			}
			if o.Kind == FromFileDefault && c.Vars[k] == "" {
				delete(c.Vars, k) // not given: the profile's own default
				delete(from, k)
				continue
			}
			l.bad(o.Range, "Value only the operator may set", operatorOnlyDetail(c.Profile, k, o))
		}
	}
}

// byPlace are vars' names in the order the file writes them (those
// without a place, the loader's own, last), so errors come in file order.
func byPlace(vars map[string]string, from map[string]VarOrigin) []string {
	keys := slices.Sorted(maps.Keys(vars))
	sort.SliceStable(keys, func(i, j int) bool {
		a, okA := from[keys[i]]
		b, okB := from[keys[j]]
		if okA != okB || a.Range.Filename == "" || b.Range.Filename == "" {
			return okA && a.Range.Filename != ""
		}
		return a.Range.Start.Byte < b.Range.Start.Byte
	})
	return keys
}

// operatorOnlyDetail says why vars.k may not be written in the file and
// how to give it.
func operatorOnlyDetail(profile, k string, o VarOrigin) string {
	where := "its value is written in this file"
	how := fmt.Sprintf("declare variable \"NAME\" { default = \"\" } in the file, set vars = { %s = var.NAME } here and run with -var NAME=VALUE", k)
	if o.Kind == FromFileDefault {
		where = fmt.Sprintf("its value is var.%s's default, written in this file (no -var %s was given)", o.Var, o.Var)
		how = fmt.Sprintf("run with -var %s=VALUE, or give var.%s an empty default (the profile's own then applies)", o.Var, o.Var)
	}
	return fmt.Sprintf("Profile %s declares %s operator_only: it brings code or bytes onto the server or opens it to others, so only the person running wptest sets it, never an experiment file. Here %s. To set it, %s.",
		profile, k, where, how)
}

// declaredVars are the variables profile declares, by name (nil for an
// unknown profile: columns() reports that).
func declaredVars(profile string) map[string]*provision.Variable {
	dir, err := lookupProfile(profile)
	if err != nil {
		return nil
	}
	p := baseProfile(dir)
	if p == nil {
		return nil
	}
	out := map[string]*provision.Variable{}
	for _, v := range p.Variables {
		out[v.Name] = v
	}
	return out
}
