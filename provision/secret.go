package provision

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/wptest/wptest/internal/redact"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// sensitiveMark is the cty mark a sensitive variable's value carries, as in
// Terraform: cty keeps it on every value computed from the variable
// (functions, templates, operators), so upper(var.pw) is as secret as
// var.pw and HCL's diagnostics leave its value out.
const sensitiveMark = "sensitive"

// Redacted is what output shows in place of a sensitive value.
const Redacted = "(sensitive)"

// secrets are the strings a profile's output hides wherever they appear:
// the backstop behind fieldMarks (which say which fields came from a
// secret, and hide them there), for text no mark reaches, such as a
// command's output or an error. They are the sensitive variables' values
// and what functions computed from them (upper(var.pw) may be printed by
// any command). The value of a whole attribute is not one of them: one a
// secret merely chose ("present" or "absent") is hidden in its field, and
// would hide the word everywhere else.
type secrets struct {
	mu      sync.Mutex
	vars    []string // the sensitive variables' own values
	derived []string // strings functions computed from them
	// inSource says whether a string is written in the profile's own
	// files: then a function that returned it (lookup, coalesce) chose
	// it, and it is no secret.
	inSource func(string) bool
}

// minSecret is the shortest secret searched for in text. A shorter one
// (a one-letter value, substr(var.pw, 0, 1), a number below 1000) would
// hide every such letter or digit of a plan; the fields it came from are
// hidden by their marks, and free text cannot keep one letter secret
// anyway.
const minSecret = 4

// addVar remembers the value of a sensitive variable.
func (s *secrets) addVar(str string) {
	if str == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.vars, str) {
		s.vars = append(s.vars, str)
	}
}

// add remembers a string computed from a secret, unless it is empty or
// holds a remembered secret: then redacting that part already hides what
// s adds ("-p${var.pw}" shows as "-p(sensitive)", not as one opaque
// string).
func (s *secrets) add(str string) {
	if str == "" || s.inSource != nil && s.inSource(str) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range s.vars {
		if strings.Contains(str, v) {
			return
		}
	}
	for _, v := range s.derived {
		if strings.Contains(str, v) {
			return
		}
	}
	s.derived = append(s.derived, str)
}

// list is the secrets text hides, longest first: the variables' values
// and the computed ones, of at least minSecret bytes.
func (s *secrets) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, v := range slices.Concat(s.vars, s.derived) {
		if len(v) >= minSecret {
			out = append(out, v)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// redact replaces every remembered secret in str (redact.Strings: one
// pass, its own marker never touched).
func (s *secrets) redact(str string) string { return redact.Strings(str, s.list()) }

// collect remembers the string leaves of v that are marked (or inside a
// marked value). Numbers and bools are not remembered: replacing every "1"
// in a plan would hide nothing and garble everything.
func (s *secrets) collect(v cty.Value) { s.walk(v, false) }

func (s *secrets) walk(v cty.Value, marked bool) {
	v, m := v.Unmark()
	marked = marked || len(m) > 0
	if !v.IsKnown() || v.IsNull() {
		return
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		if marked {
			s.add(v.AsString())
		}
	case ty.IsListType() || ty.IsSetType() || ty.IsMapType() || ty.IsTupleType() || ty.IsObjectType():
		for it := v.ElementIterator(); it.Next(); {
			_, ev := it.Element()
			s.walk(ev, marked)
		}
	}
}

// unmark is v without marks (what they said is in fieldMarks).
func (s *secrets) unmark(v cty.Value) cty.Value {
	if !v.ContainsMarked() {
		return v
	}
	u, _ := v.UnmarkDeep()
	return u
}

// markVal marks v sensitive when sensitive is set.
func markVal(v cty.Value, sensitive bool) cty.Value {
	if !sensitive {
		return v
	}
	return v.Mark(sensitiveMark)
}

// recordFuncs wraps each function so that a marked result's strings are
// remembered: base64encode(var.pw) is hidden in a plan even where it is
// spliced into a longer command. The inner function still sees its
// arguments as cty's rules say (unmarked unless it allows marks) and its
// result keeps the marks.
func recordFuncs(fns map[string]function.Function, s *secrets) map[string]function.Function {
	out := make(map[string]function.Function, len(fns))
	for name, f := range fns {
		out[name] = recordFunc(f, s)
	}
	return out
}

func recordFunc(f function.Function, s *secrets) function.Function {
	params := f.Params()
	for i := range params {
		params[i].AllowMarked = true
	}
	var vp *function.Parameter
	if p := f.VarParam(); p != nil {
		c := *p
		c.AllowMarked = true
		vp = &c
	}
	return function.New(&function.Spec{
		Description: f.Description(),
		Params:      params,
		VarParam:    vp,
		Type: func(args []cty.Value) (cty.Type, error) {
			un := make([]cty.Value, len(args))
			for i, a := range args {
				un[i], _ = a.UnmarkDeep()
			}
			return f.ReturnTypeForValues(un)
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			v, err := f.Call(args)
			if err == nil {
				s.collect(v)
			}
			return v, err
		},
	})
}

// markBody wraps a body so that every attribute's value is unmarked (its
// secrets remembered) before gohcl decodes it: gocty cannot convert a
// marked value. The attributes named in keep stay marked (a file block's
// vars go on into its template, where they must still be sensitive).
// Which attributes were marked is kept in fm, the marks of the top-level
// block the body belongs to (nil for the root body: each of its blocks
// gets its own), under prefix + the attribute's name ("http.url" for a
// check's nested http block).
type markBody struct {
	hcl.Body
	s      *secrets
	keep   map[string]bool
	fm     *fieldMarks
	prefix string
	reg    *markRegistry // where each block's new marks are listed
}

func newMarkBody(b hcl.Body, s *secrets, fm *fieldMarks, reg *markRegistry) hcl.Body {
	return markBody{Body: b, s: s, keep: map[string]bool{"vars": true}, fm: fm, reg: reg}
}

func (b markBody) wrapContent(c *hcl.BodyContent) *hcl.BodyContent {
	if c == nil {
		return nil
	}
	out := *c
	out.Attributes = b.wrapAttrs(c.Attributes)
	out.Blocks = make(hcl.Blocks, len(c.Blocks))
	for i, blk := range c.Blocks {
		nb := *blk
		fm, prefix := b.fm, b.prefix+blk.Type+"."
		if fm == nil {
			fm, prefix = b.reg.add(blk.DefRange), ""
		}
		nb.Body = markBody{Body: blk.Body, s: b.s, keep: b.keep, fm: fm, prefix: prefix, reg: b.reg}
		out.Blocks[i] = &nb
	}
	return &out
}

func (b markBody) wrapAttrs(as hcl.Attributes) hcl.Attributes {
	if as == nil {
		return nil
	}
	out := make(hcl.Attributes, len(as))
	for n, a := range as {
		na := *a
		if !b.keep[n] {
			na.Expr = markExpr{Expression: a.Expr, s: b.s, fm: b.fm, name: b.prefix + n}
		}
		out[n] = &na
	}
	return out
}

func (b markBody) Content(schema *hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	c, d := b.Body.Content(schema)
	return b.wrapContent(c), d
}

func (b markBody) PartialContent(schema *hcl.BodySchema) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	c, rest, d := b.Body.PartialContent(schema)
	if rest != nil {
		rest = markBody{Body: rest, s: b.s, keep: b.keep, fm: b.fm, prefix: b.prefix, reg: b.reg}
	}
	return b.wrapContent(c), rest, d
}

func (b markBody) JustAttributes() (hcl.Attributes, hcl.Diagnostics) {
	as, d := b.Body.JustAttributes()
	return b.wrapAttrs(as), d
}

// markExpr is an expression whose value comes out unmarked, its secrets
// remembered, and whether it was marked noted in fm (when there is one)
// under name.
type markExpr struct {
	hcl.Expression
	s    *secrets
	fm   *fieldMarks
	name string
}

func (e markExpr) Value(ctx *hcl.EvalContext) (cty.Value, hcl.Diagnostics) {
	v, d := e.Expression.Value(ctx)
	if e.fm != nil && v.ContainsMarked() {
		e.fm.record(e.name, e.Expression, ctx, v)
	}
	return e.s.unmark(v), d
}

// UnwrapExpression lets hcl.ExprList, traversals and keywords see the
// expression itself.
func (e markExpr) UnwrapExpression() hcl.Expression { return e.Expression }

// inSource says whether a string is written in one of the profile's own
// files (its and its parts' HCL; not a -var-file, which holds the secrets).
func (p *Profile) inSource(files []*hcl.File) func(string) bool {
	return func(s string) bool {
		for _, f := range files {
			if bytes.Contains(f.Bytes, []byte(s)) {
				return true
			}
		}
		return false
	}
}
