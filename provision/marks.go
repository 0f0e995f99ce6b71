package provision

import (
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/wptest/wptest/internal/redact"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// fieldMarks carry cty's sensitive marks past the point where a value
// leaves HCL (gohcl decodes unmarked values into Go fields): for one
// top-level block (an op, a check, a fact, the site...), the attributes
// whose values came from a sensitive value, by path ("run", "http.url").
// What output shows of such a field comes from here (Terraform's model),
// whatever Go made of the value since: a number turned into a duration
// ("${tonumber(var.pw) % 1000}s" shown as 10m45s before) is as hidden as
// the string it came from.
type fieldMarks struct {
	mu  sync.Mutex
	m   map[string]*fieldMark
	def hcl.Range // the block's header, where diagnostics about it point
}

// fieldMark is one attribute whose value came from a sensitive value.
type fieldMark struct {
	rng hcl.Range
	// shown is the value as output shows it: every part that came from a
	// secret (a template's interpolation, a list's or map's element, or
	// the whole value) reads Redacted, the rest as written.
	shown cty.Value
	// secrets are the strings of those parts (a number as cty writes it),
	// hidden in text about the block: its errors, what it changes.
	secrets []string
	// paths are where in the value the marks are (platform blocks put them
	// back on platform.*).
	paths []cty.Path
}

func newFieldMarks() *fieldMarks { return &fieldMarks{m: map[string]*fieldMark{}} }

// record notes that attribute name, expression e, evaluated in ctx to v,
// came from a sensitive value (v holds a mark).
func (f *fieldMarks) record(name string, e hcl.Expression, ctx *hcl.EvalContext, v cty.Value) {
	fm := &fieldMark{rng: e.Range()}
	_, pvm := v.UnmarkDeepWithPaths()
	for _, p := range pvm {
		fm.paths = append(fm.paths, p.Path)
	}
	if t, ok := e.(*hclsyntax.TemplateExpr); ok && v.Type() == cty.String {
		fm.shown, fm.secrets = shownTemplate(t, ctx)
	} else {
		fm.shown = shownLeaves(v, false, &fm.secrets)
	}
	f.set(name, fm)
}

func (f *fieldMarks) set(name string, fm *fieldMark) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.m[name] = fm
}

// get is the mark of attribute name, or nil. nil-safe.
func (f *fieldMarks) get(name string) *fieldMark {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[name]
}

// marked says whether attribute name came from a sensitive value.
func (f *fieldMarks) marked(name string) bool { return f.get(name) != nil }

// names are the marked attributes, sorted. nil-safe.
func (f *fieldMarks) names() []string {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.m))
	for n := range f.m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// secrets are the strings of every marked part of the block, and more
// (renderings of what Go made of them: a duration, a file mode), for
// the text about it.
func (f *fieldMarks) secrets() []string {
	var out []string
	for _, n := range f.names() {
		out = append(out, f.get(n).secrets...)
	}
	return out
}

// rendered adds what Go made of a marked attribute's value (a duration's
// String, a mode in octal) to its secrets: text about the block may print
// it so. Nothing when name is not marked.
func (f *fieldMarks) rendered(name string, forms ...string) {
	fm := f.get(name)
	if fm == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	fm.secrets = append(fm.secrets, forms...)
}

// alias marks attribute to as shown wholly Redacted when any of from is
// marked (a spec field computed from several attributes).
func (f *fieldMarks) alias(to string, from ...string) {
	fm := &fieldMark{shown: cty.StringVal(Redacted)}
	found := false
	for _, n := range from {
		if m := f.get(n); m != nil {
			found = true
			fm.rng = m.rng
			fm.secrets = append(fm.secrets, m.secrets...)
		}
	}
	if found {
		f.set(to, fm)
	}
}

// shownTemplate is a template as output shows it: its literal parts as
// written, each interpolation that came from a secret Redacted (its value
// remembered in secrets). Where the secret is in the text is all it says:
// not its length, nor whether it was empty.
func shownTemplate(t *hclsyntax.TemplateExpr, ctx *hcl.EvalContext) (cty.Value, []string) {
	var b strings.Builder
	var secrets []string
	last := false // the last part written was Redacted
	for _, part := range t.Parts {
		pv, _ := part.Value(ctx)
		pv, marks := pv.UnmarkDeep()
		if len(marks) > 0 {
			if s, err := convert.Convert(pv, cty.String); err == nil && s.IsKnown() && !s.IsNull() && s.AsString() != "" {
				secrets = append(secrets, s.AsString())
			}
			if !last {
				b.WriteString(Redacted)
			}
			last = true
			continue
		}
		if s, err := convert.Convert(pv, cty.String); err == nil && s.IsKnown() && !s.IsNull() {
			b.WriteString(s.AsString())
			last = last && s.AsString() == ""
		}
	}
	return cty.StringVal(b.String()), secrets
}

// shownLeaves is v with every part that is marked replaced by Redacted:
// a leaf, or a whole collection (its keys and length may come from the
// secret: { (var.pw) = "x" }, split(",", var.pw)). The strings of what it
// hides are appended to secrets (numbers too: "645" may be printed
// anywhere; keys too).
func shownLeaves(v cty.Value, marked bool, secrets *[]string) cty.Value {
	if !marked && !v.ContainsMarked() {
		return v
	}
	v, m := v.Unmark()
	ty := v.Type()
	switch {
	case marked || len(m) > 0:
		collectLeaves(v, true, secrets)
		return cty.StringVal(Redacted)
	case !v.IsKnown() || v.IsNull() || ty.IsPrimitiveType():
		return v
	case ty.IsMapType() || ty.IsObjectType():
		out := map[string]cty.Value{}
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			out[k.AsString()] = shownLeaves(ev, false, secrets)
		}
		return cty.ObjectVal(out)
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		var out []cty.Value
		for it := v.ElementIterator(); it.Next(); {
			_, ev := it.Element()
			out = append(out, shownLeaves(ev, false, secrets))
		}
		return cty.TupleVal(out)
	}
	return cty.StringVal(Redacted)
}

// collectLeaves appends the strings of v's leaves (strings and numbers,
// not bools) and, with keys, of its map and object keys to secrets.
func collectLeaves(v cty.Value, keys bool, secrets *[]string) {
	v, _ = v.UnmarkDeep()
	ty := v.Type()
	switch {
	case !v.IsKnown() || v.IsNull() || ty == cty.Bool:
	case ty.IsPrimitiveType():
		if s, err := convert.Convert(v, cty.String); err == nil {
			*secrets = append(*secrets, s.AsString())
		}
	case ty.IsMapType() || ty.IsObjectType() || ty.IsListType() || ty.IsSetType() || ty.IsTupleType():
		keyed := ty.IsMapType() || ty.IsObjectType()
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			if keyed && keys {
				*secrets = append(*secrets, k.AsString())
			}
			collectLeaves(ev, keys, secrets)
		}
	}
}

// show is how output shows real, the Go value decoded from attribute
// name: as decoded when the attribute is not marked; else its shown
// value, in real's shape where it has one (a string, a list of strings, a
// map of strings), else Redacted.
func (f *fieldMarks) show(name string, real any) any {
	fm := f.get(name)
	if fm == nil {
		return real
	}
	return goShown(fm.shown, real)
}

// showString is show for a string field.
func (f *fieldMarks) showString(name, real string) string {
	s, _ := f.show(name, real).(string)
	return s
}

func goShown(shown cty.Value, real any) any {
	str := func(v cty.Value) string {
		if v, err := convert.Convert(v, cty.String); err == nil && v.IsKnown() && !v.IsNull() {
			return v.AsString()
		}
		return Redacted
	}
	ty := shown.Type()
	switch real.(type) {
	case string:
		if ty == cty.String {
			return str(shown)
		}
	case []string:
		if ty.IsTupleType() || ty.IsListType() {
			out := []string{}
			for it := shown.ElementIterator(); it.Next(); {
				_, ev := it.Element()
				out = append(out, str(ev))
			}
			return out
		}
	case map[string]string:
		if ty.IsObjectType() || ty.IsMapType() {
			out := map[string]string{}
			for it := shown.ElementIterator(); it.Next(); {
				k, ev := it.Element()
				out[k.AsString()] = str(ev)
			}
			return out
		}
	}
	return Redacted
}

// fields is a struct's fields by their JSON names as encoding/json
// writes them (omitempty honoured), for a report to show field by field.
func fields(v any) map[string]any {
	rv := reflect.Indirect(reflect.ValueOf(v))
	rt := rv.Type()
	out := map[string]any{}
	for i := range rt.NumField() {
		sf := rt.Field(i)
		tag := sf.Tag.Get("json")
		if !sf.IsExported() || tag == "-" || tag == "" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := rv.Field(i)
		if strings.Contains(opts, "omitempty") && fv.IsZero() {
			continue
		}
		if (fv.Kind() == reflect.Map || fv.Kind() == reflect.Slice) && fv.Len() == 0 && strings.Contains(opts, "omitempty") {
			continue
		}
		out[name] = fv.Interface()
	}
	return out
}

// showFields is m (a spec: field name -> value) as output shows it: each
// field from a marked attribute of the same name shown so (show), every
// string also through text (the backstop: the sensitive variables' own
// values and a URL's userinfo, wherever they are).
func (f *fieldMarks) showFields(m map[string]any, text func(string) string) map[string]any {
	for k, v := range m {
		v = f.show(k, v)
		switch x := v.(type) {
		case string:
			v = text(x)
		case []string:
			if x != nil {
				red := make([]string, len(x))
				for i, e := range x {
					red[i] = text(e)
				}
				v = red
			}
		case map[string]string:
			red := make(map[string]string, len(x))
			for k, e := range x {
				red[k] = text(e)
			}
			v = red
		}
		m[k] = v
	}
	return m
}

// refuse is an error for each attribute of the block that came from a
// sensitive value and may not (names nil: any attribute), saying why.
func (f *fieldMarks) refuse(block string, names []string, why string) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, n := range f.names() {
		if names != nil && !slices.Contains(names, n) {
			continue
		}
		fm := f.get(n)
		diags = append(diags, errDiag("Sensitive value not allowed here",
			block+"."+n+" comes from a sensitive value, but "+why, rangePtr(fm.rng)))
	}
	return diags
}

// whyRecorded is why the fields the host manifest records refuse a
// sensitive value; what names them ("it").
func whyRecorded(what string) string {
	return "the host manifest records " + what + " (a file every user of the host can read, shown by `wptest status` and copied into run manifests) and later commands use it from there; give it a value that is not secret."
}

// marksOf is the marks of a block that came through a markBody (nil
// otherwise).
func marksOf(b *hcl.Block) *fieldMarks {
	if mb, ok := b.Body.(markBody); ok {
		return mb.fm
	}
	return nil
}

// textFor hides secrets (a block's own, then the backstop) in text about
// it: a change's details, an error, a command's output.
func textFor(s string, own []string, backstop func(string) string) string {
	return backstop(redact.Strings(s, own))
}

// takeMarks notes which keys (and deviations) of the platform block came
// from a sensitive value, so that platform.* carries their marks on
// (gohcl decoded them unmarked). package_manager may not: every package op
// shows it.
func (pb *platformBlock) takeMarks(fm *fieldMarks) hcl.Diagnostics {
	diags := fm.refuse("platform."+pb.Name, []string{"package_manager"}, "it names the package manager every package op shows; it is apt or dnf, never a secret.")
	pb.marked = map[string][]string{}
	for _, what := range []string{"packages", "paths", "services", "values", "deviations"} {
		m := fm.get(what)
		if m == nil {
			continue
		}
		seen := map[string]bool{}
		for _, p := range m.paths {
			var ks []string
			switch st := firstStep(p).(type) {
			case cty.GetAttrStep:
				ks = []string{st.Name}
			case cty.IndexStep:
				if st.Key.Type() == cty.String {
					ks = []string{st.Key.AsString()}
				} else if i, acc := st.Key.AsBigFloat().Int64(); acc == 0 {
					ks = []string{strconv.FormatInt(i, 10)}
				}
			}
			if ks == nil { // the whole value (its keys too), or a step we cannot name
				ks = []string{""}
			}
			for _, k := range ks {
				if !seen[k] {
					seen[k] = true
					pb.marked[what] = append(pb.marked[what], k)
				}
			}
		}
	}
	return diags
}

func firstStep(p cty.Path) cty.PathStep {
	if len(p) == 0 {
		return nil
	}
	return p[0]
}

// markElems is v (an object, a map or a list) with the elements at keys
// (names, or indexes in decimal) marked sensitive; key "" marks v whole.
func markElems(v cty.Value, keys []string) cty.Value {
	if len(keys) == 0 || v.IsNull() || !v.IsKnown() {
		return v
	}
	if slices.Contains(keys, "") {
		return v.Mark(sensitiveMark)
	}
	ty := v.Type()
	if ty.IsListType() || ty.IsTupleType() {
		elems := v.AsValueSlice()
		for _, k := range keys {
			if i, err := strconv.Atoi(k); err == nil && i >= 0 && i < len(elems) {
				elems[i] = elems[i].Mark(sensitiveMark)
			}
		}
		if ty.IsListType() {
			return cty.ListVal(elems)
		}
		return cty.TupleVal(elems)
	}
	m := v.AsValueMap()
	for _, k := range keys {
		if ev, ok := m[k]; ok {
			m[k] = ev.Mark(sensitiveMark)
		}
	}
	if ty.IsMapType() {
		return cty.MapVal(m)
	}
	return cty.ObjectVal(m)
}

// shownDeviations are the platform's deviations as output shows them: one
// that came from a sensitive value reads Redacted.
func (pb *platformBlock) shownDeviations() []string {
	out := append([]string{}, pb.Deviations...)
	for _, k := range pb.marked["deviations"] {
		if k == "" {
			for i := range out {
				out[i] = Redacted
			}
		}
		if i, err := strconv.Atoi(k); err == nil && i >= 0 && i < len(out) {
			out[i] = Redacted
		}
	}
	return out
}

// sub is the marks under prefix (a nested block's: "http."), by the
// rest of their names. nil-safe.
func (f *fieldMarks) sub(prefix string) *fieldMarks {
	out := newFieldMarks()
	for _, n := range f.names() {
		if rest, ok := strings.CutPrefix(n, prefix); ok {
			out.m[rest] = f.get(n)
		}
	}
	return out
}

// markRegistry lists the marks of every block one render (or load) made,
// so that its diagnostics can hide what they quote of a marked attribute.
type markRegistry struct {
	mu   sync.Mutex
	list []*fieldMarks
}

// add makes the (empty) marks of the block declared at def and lists them.
// A nil registry lists nothing.
func (g *markRegistry) add(def hcl.Range) *fieldMarks {
	fm := newFieldMarks()
	fm.def = def
	if g != nil {
		g.mu.Lock()
		g.list = append(g.list, fm)
		g.mu.Unlock()
	}
	return fm
}

// redactDiags hides, in each diagnostic about a marked attribute (its
// subject overlaps the attribute's expression, or is the header of its
// block: "Invalid mode", "%q is not an octal file mode"), the secrets of
// that attribute or block. The backstop (Profile.redactDiags) leaves out
// short computed secrets; these are hidden where they belong.
func (g *markRegistry) redactDiags(diags hcl.Diagnostics) hcl.Diagnostics {
	if g == nil {
		return diags
	}
	g.mu.Lock()
	list := append([]*fieldMarks(nil), g.list...)
	g.mu.Unlock()
	out := make(hcl.Diagnostics, len(diags))
	for i, d := range diags {
		out[i] = d
		if d.Subject == nil {
			continue
		}
		var own []string
		for _, fm := range list {
			own = append(own, fm.secretsAbout(*d.Subject)...)
		}
		if len(own) == 0 {
			continue
		}
		c := *d
		c.Summary, c.Detail = redact.Strings(c.Summary, own), redact.Strings(c.Detail, own)
		out[i] = &c
	}
	return out
}

// secretsAbout are the secrets of the marked attributes whose expression
// overlaps rng, or all of the block's when rng is its header.
func (f *fieldMarks) secretsAbout(rng hcl.Range) []string {
	if f.def.Filename != "" && f.def == rng {
		return f.secrets()
	}
	var out []string
	for _, n := range f.names() {
		m := f.get(n)
		if m.rng.Filename == rng.Filename && m.rng.Overlaps(rng) {
			out = append(out, m.secrets...)
		}
	}
	return out
}

// refuseSensitiveForEach refuses a dynamic block whose for_each comes
// from a sensitive value (as Terraform does): how many blocks it makes,
// and their labels, show in every plan. Nested dynamic blocks whose
// for_each needs an outer iterator are left to dynblock (it refuses a
// marked label itself).
func (p *Profile) refuseSensitiveForEach(ctx *hcl.EvalContext) hcl.Diagnostics {
	var diags hcl.Diagnostics
	var walk func(blocks hclsyntax.Blocks)
	walk = func(blocks hclsyntax.Blocks) {
		for _, b := range blocks {
			if a, ok := b.Body.Attributes["for_each"]; ok && b.Type == "dynamic" {
				if v, d := a.Expr.Value(ctx); !d.HasErrors() && v.ContainsMarked() {
					diags = append(diags, errDiag("Sensitive value not allowed here",
						"dynamic "+strings.Join(b.Labels, ".")+": for_each comes from a sensitive value, but "+whyStructural, a.Expr.Range().Ptr()))
				}
			}
			walk(b.Body.Blocks)
		}
	}
	for _, b := range p.content.Blocks {
		if sb, ok := b.Body.(*hclsyntax.Body); ok {
			walk(hclsyntax.Blocks{{Type: b.Type, Labels: b.Labels, Body: sb}})
		}
	}
	return diags
}

// mode is parseMode of attribute name; when it came from a secret, the
// octal forms of the mode join its secrets (a change's details print
// "mode 0644 -> 0205").
func (f *fieldMarks) mode(name string, s *string, def fs.FileMode, rng hcl.Range) (fs.FileMode, hcl.Diagnostics) {
	m, diags := parseMode(s, def, rng)
	if !diags.HasErrors() {
		f.rendered(name, fmt.Sprintf("%04o", m), fmt.Sprintf("%o", m))
	}
	return m, diags
}

// duration is parseDuration of attribute name; when it came from a
// secret, the duration as Go prints it joins its secrets ("10m45s").
func (f *fieldMarks) duration(name string, s *string, def time.Duration, rng hcl.Range) (time.Duration, hcl.Diagnostics) {
	d, diags := parseDuration(s, def, rng)
	if !diags.HasErrors() {
		f.rendered(name, d.String())
	}
	return d, diags
}
