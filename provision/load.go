package provision

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/wptest/wptest/internal/hcldiag"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Vars are the values given from outside, applied over the defaults in
// order: every var file (in order), then every -var argument (in order).
type Vars struct {
	Files []VarFile
	Args  []string // "name=value", as given to -var
}

// VarFile is one -var-file: its name (for messages) and its bytes.
type VarFile struct {
	Name string
	Src  []byte
}

// Variable is a declared variable with its final value.
type Variable struct {
	Name        string
	Description string
	Type        cty.Type
	// Value is the default or the value given from outside; On(platform)
	// is the value on one platform (a platform_default where one applies).
	Value     cty.Value
	Sensitive bool
	// OperatorOnly: only the person running wptest may set it (-var,
	// -var-file), never an experiment file: it brings code or bytes onto
	// the machine (a command, a source URL, a package, the hash that
	// vouches for one) or opens the server to others.
	OperatorOnly bool
	Range        hcl.Range
	invalid      bool // a value was given but had the wrong type
	// given: set by a -var-file or -var, which wins over every default.
	given bool
	// platformDefault: the default on each platform named in
	// platform_default, which wins over default.
	platformDefault map[string]cty.Value
	pdRange         *hcl.Range
}

// On is the variable's value on platform: the value given from outside,
// else its platform_default for that platform, else its default.
func (v *Variable) On(platform string) cty.Value {
	if !v.given {
		if pv, ok := v.platformDefault[platform]; ok {
			return pv
		}
	}
	return v.Value
}

// Profile is a loaded, validated profile: variables resolved and every
// declared platform rendered once without error.
type Profile struct {
	Name        string
	Description string
	Platforms   []string
	Aliases     []string
	// Hash is "sha256:" + hex over every file of the profile directory.
	Hash      string
	Variables []*Variable

	parser    *hclparse.Parser
	body      hcl.Body
	content   *hcl.BodyContent
	pfs       *profileFS
	platforms map[string]*platformBlock
	templates map[string]hcl.Expression
	secrets   *secrets
	loadMarks *markRegistry // the platform blocks' marks
	masks     []hcl.Range   // where files hold a sensitive variable's value
	ok        bool          // loaded without error
	platRange hcl.Range
}

// Files returns the parsed files (profile, var files, templates) for
// WriteDiagnostics. Where a file gives a sensitive variable its value (a
// -var-file, a default), the snippet shows asterisks: a diagnostic on
// that line would print the secret else.
func (p *Profile) Files() map[string]*hcl.File {
	files := p.parser.Files()
	if len(p.masks) == 0 {
		return files
	}
	out := make(map[string]*hcl.File, len(files))
	maps.Copy(out, files)
	masked := map[string]bool{}
	for _, rng := range p.masks {
		f := out[rng.Filename]
		if f == nil {
			continue
		}
		if !masked[rng.Filename] {
			nf := *f
			nf.Bytes = append([]byte(nil), f.Bytes...)
			f, out[rng.Filename], masked[rng.Filename] = &nf, &nf, true
		}
		for i := rng.Start.Byte; i < rng.End.Byte && i < len(f.Bytes); i++ {
			if f.Bytes[i] != '\n' && f.Bytes[i] != '\r' {
				f.Bytes[i] = '*'
			}
		}
	}
	return out
}

var rootSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
	{Type: "profile"},
	{Type: "variable", LabelNames: []string{"name"}},
	{Type: "locals"},
	{Type: "platform", LabelNames: []string{"name"}},
	{Type: "precondition"},
	{Type: "file", LabelNames: []string{"name"}},
	{Type: "directory", LabelNames: []string{"name"}},
	{Type: "link", LabelNames: []string{"name"}},
	{Type: "package", LabelNames: []string{"name"}},
	{Type: "user", LabelNames: []string{"name"}},
	{Type: "command", LabelNames: []string{"name"}},
	{Type: "service", LabelNames: []string{"name"}},
	{Type: "check", LabelNames: []string{"name"}},
	{Type: "fact", LabelNames: []string{"name"}},
	{Type: "site"},
	{Type: "process_group", LabelNames: []string{"name"}},
	{Type: "site_refresh", LabelNames: []string{"name"}},
	{Type: "teardown", LabelNames: []string{"name"}},
	{Type: "site_files", LabelNames: []string{"name"}},
	{Type: "server"},
	{Type: "watch", LabelNames: []string{"name"}},
}}

// rootSchemaDyn is rootSchema plus the dynamic meta-block, for the first,
// structural pass (before dynblock can expand anything).
var rootSchemaDyn = &hcl.BodySchema{Blocks: append(append([]hcl.BlockHeaderSchema{}, rootSchema.Blocks...),
	hcl.BlockHeaderSchema{Type: "dynamic", LabelNames: []string{"type"}})}

type profileBlock struct {
	Description string    `hcl:"description"`
	Platforms   []string  `hcl:"platforms"`
	Aliases     []string  `hcl:"aliases,optional"`
	Uses        []string  `hcl:"uses,optional"`
	DefRange    hcl.Range `hcl:",def_range"`
	PlatRange   hcl.Range `hcl:"platforms,attr_value_range"`
}

type platformBlock struct {
	Name           string            `hcl:"name,label"`
	PackageManager string            `hcl:"package_manager,optional"`
	Packages       map[string]string `hcl:"packages,optional"`
	Paths          map[string]string `hcl:"paths,optional"`
	Services       map[string]string `hcl:"services,optional"`
	Values         cty.Value         `hcl:"values,optional"`
	Deviations     []string          `hcl:"deviations,optional"`
	DefRange       hcl.Range         `hcl:",def_range"`
	PMRange        hcl.Range         `hcl:"package_manager,attr_value_range"`

	value cty.Value
	// marked are the keys of packages, paths, services and values, and the
	// indexes of deviations, whose values came from a sensitive value:
	// platform.* carries their marks on into the ops.
	marked map[string][]string
}

// Load reads the profile in dir of fsys, resolves its variables from vars,
// and renders it once per declared platform so that every error is found
// before anything touches a host. File names in diagnostics are
// path.Join(dir, file). On any error the diagnostics say all of them and the
// returned profile serves only Files(), to print them with their snippets:
// Render refuses it, so nothing can be applied.
func Load(fsys fs.FS, dir string, vars Vars) (*Profile, hcl.Diagnostics) {
	p, diags := load(fsys, dir, vars)
	return p, p.redactDiags(p.loadMarks.redactDiags(diags))
}

func load(fsys fs.FS, dir string, vars Vars) (*Profile, hcl.Diagnostics) {
	p := &Profile{
		Name:      path.Base(dir),
		parser:    hclparse.NewParser(),
		pfs:       &profileFS{fsys: fsys, dir: dir},
		platforms: map[string]*platformBlock{},
		templates: map[string]hcl.Expression{},
		secrets:   &secrets{},
		loadMarks: &markRegistry{},
	}
	files, diags := p.parseDir(fsys, dir)
	if len(files) == 0 && !diags.HasErrors() {
		diags = append(diags, errDiag("Empty profile", fmt.Sprintf("%s holds no *.hcl files", dir), nil))
	}
	if diags.HasErrors() {
		return p, dedupe(diags)
	}
	parts, usesAt, d := usedParts(files)
	diags = append(diags, d...)
	dirs := []string{dir}
	for _, part := range parts {
		pdir := PartDir(dir, part)
		if fi, err := fs.Stat(fsys, pdir); err != nil || !fi.IsDir() {
			diags = append(diags, errDiag("Unknown part", fmt.Sprintf("profile.uses names %q, but there is no directory %s.", part, pdir), usesAt))
			continue
		}
		pf, d := p.parseDir(fsys, pdir)
		diags = append(diags, d...)
		files = append(files, pf...)
		dirs = append(dirs, pdir)
	}
	diags = append(diags, sortFiles(files)...)
	if diags.HasErrors() {
		return p, dedupe(diags)
	}
	p.pfs.dirs = dirs
	var err error
	if p.Hash, err = hashDirs(fsys, dirs); err != nil {
		return p, hcl.Diagnostics{errDiag("Cannot hash profile", err.Error(), nil)}
	}
	p.secrets.inSource = p.inSource(files)
	p.body = hcl.MergeFiles(files)
	content, d := p.body.Content(rootSchemaDyn)
	diags = append(diags, d...)
	p.content = content

	diags = append(diags, p.decodeProfile()...)
	diags = append(diags, p.decodeVariables(vars)...)
	if !diags.HasErrors() {
		diags = append(diags, p.decodePlatforms()...)
	}
	// Stop before rendering: a broken variable or block would only cascade
	// into follow-on errors at every use.
	if diags.HasErrors() {
		return p, dedupe(diags)
	}
	p.ok = true
	for _, plat := range p.Platforms {
		_, d := p.Render(plat)
		diags = append(diags, d...)
	}
	diags = dedupe(p.explain(diags))
	p.ok = !diags.HasErrors()
	return p, diags
}

// PartDir is where the part called name of the profile in dir lives: a
// sibling "_parts" directory, so every profile next to it can use it.
func PartDir(dir, name string) string { return path.Join(path.Dir(dir), "_parts", name) }

// parseDir parses every *.hcl file directly in dir (names as dir/file).
func (p *Profile) parseDir(fsys fs.FS, dir string) ([]*hcl.File, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var files []*hcl.File
	err := eachHCLFile(fsys, dir, func(name string, src []byte, err error) {
		if err != nil {
			diags = append(diags, errDiag("Cannot read profile file", fmt.Sprintf("%s: %v", name, err), nil))
			return
		}
		f, d := p.parseFile(fsys, src, name)
		diags = append(diags, d...)
		if f != nil {
			files = append(files, f)
		}
	})
	if err != nil {
		return nil, hcl.Diagnostics{errDiag("Cannot read profile", fmt.Sprintf("%s: %v", dir, err), nil)}
	}
	return files, diags
}

// eachHCLFile calls fn with the name (dir/file) and bytes of every *.hcl
// file directly in dir, in name order, or with the error reading it; the
// error is reading dir itself.
func eachHCLFile(fsys fs.FS, dir string, fn func(name string, src []byte, err error)) error {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".hcl") {
			continue
		}
		name := path.Join(dir, e.Name())
		src, err := fs.ReadFile(fsys, name)
		fn(name, src, err)
	}
	return nil
}

// embedParsed holds the files of an embed.FS (the shipped profiles) as
// parsed once: their bytes cannot change and there are few of them, while
// a process (tests, `plan` of every profile) loads each profile many times
// and parsing was most of a load. The *hcl.File is shared: nothing here
// or in HCL changes a parsed file (bodies are wrapped or copied, never
// written). Only files that parse cleanly are kept, so no diagnostic (a
// pointer that redaction may rewrite) is shared.
var embedParsed sync.Map // embedKey -> *hcl.File

type embedKey struct {
	fsys embed.FS
	name string
}

// parseFile is parseHCL, from embedParsed when fsys is an embed.FS; the
// file joins p.parser's files either way (diagnostics print from them).
func (p *Profile) parseFile(fsys fs.FS, src []byte, name string) (*hcl.File, hcl.Diagnostics) {
	efs, ok := fsys.(embed.FS)
	if !ok {
		return parseHCL(p.parser, src, name)
	}
	key := embedKey{efs, name}
	if f, ok := embedParsed.Load(key); ok {
		p.parser.AddFile(name, f.(*hcl.File))
		return f.(*hcl.File), nil
	}
	f, diags := parseHCL(p.parser, src, name)
	if f != nil && len(diags) == 0 {
		embedParsed.Store(key, f)
	}
	return f, diags
}

// usedParts reads profile.uses from the parsed files before anything is
// merged: the parts' files join the profile's.
func usedParts(files []*hcl.File) ([]string, *hcl.Range, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	for _, f := range files {
		c, _, _ := f.Body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "profile"}}})
		for _, b := range c.Blocks {
			attrs, _ := b.Body.JustAttributes()
			a, ok := attrs["uses"]
			if !ok {
				return nil, nil, nil
			}
			var uses []string
			if d := gohcl.DecodeExpression(a.Expr, nil, &uses); d.HasErrors() {
				return nil, nil, append(diags, errDiag("Invalid uses", "profile.uses must be a list of part names, e.g. [\"site\", \"fpm\"].", a.Expr.Range().Ptr()))
			}
			seen := map[string]bool{}
			for _, u := range uses {
				if !hclsyntax.ValidIdentifier(u) || seen[u] {
					diags = append(diags, errDiag("Invalid uses", fmt.Sprintf("%q: part names are identifiers, each listed once.", u), a.Expr.Range().Ptr()))
				}
				seen[u] = true
			}
			return uses, a.Expr.Range().Ptr(), diags
		}
	}
	return nil, nil, nil
}

// sortFiles puts the profile's and its parts' files in file-name order (ops
// run in that order), refusing two files of the same name.
func sortFiles(files []*hcl.File) hcl.Diagnostics {
	name := func(f *hcl.File) string { return path.Base(fileName(f)) }
	sort.SliceStable(files, func(i, j int) bool { return name(files[i]) < name(files[j]) })
	var diags hcl.Diagnostics
	for i := 1; i < len(files); i++ {
		if name(files[i]) == name(files[i-1]) {
			at := hcl.Range{Filename: fileName(files[i]), Start: hcl.InitialPos, End: hcl.InitialPos}
			diags = append(diags, errDiag("Duplicate file name", fmt.Sprintf("%s and %s: the profile and its parts run in file-name order, so names must differ.", fileName(files[i-1]), fileName(files[i])), &at))
		}
	}
	return diags
}

// fileName is the name a parsed file was given.
func fileName(f *hcl.File) string {
	if b, ok := f.Body.(*hclsyntax.Body); ok {
		return b.SrcRange.Filename
	}
	return ""
}

func (p *Profile) decodeProfile() hcl.Diagnostics {
	var blocks []*hcl.Block
	for _, b := range p.content.Blocks {
		if b.Type == "profile" {
			blocks = append(blocks, b)
		}
	}
	if len(blocks) == 0 {
		r := p.body.MissingItemRange()
		return hcl.Diagnostics{errDiag("Missing profile block", `A profile needs one "profile" block with description and platforms.`, rangePtr(r))}
	}
	var diags hcl.Diagnostics
	for _, b := range blocks[1:] {
		diags = append(diags, errDiag("Duplicate profile block", "Only one profile block is allowed; the first is at "+blocks[0].DefRange.String()+".", b.DefRange.Ptr()))
	}
	var pb profileBlock
	diags = append(diags, decodeBody(blocks[0].Body, nil, &pb)...)
	if diags.HasErrors() {
		return diags
	}
	p.Description, p.Platforms, p.Aliases, p.platRange = pb.Description, pb.Platforms, pb.Aliases, pb.PlatRange
	if len(p.Platforms) == 0 {
		diags = append(diags, errDiag("No platforms", "profile.platforms must name at least one platform, e.g. \"debian-12\".", pb.PlatRange.Ptr()))
	}
	seen := map[string]bool{}
	for _, pl := range p.Platforms {
		if seen[pl] {
			diags = append(diags, errDiag("Duplicate platform", fmt.Sprintf("%q is listed twice.", pl), pb.PlatRange.Ptr()))
		}
		seen[pl] = true
	}
	return diags
}

// decodeVariables declares the profile's variables and sets their values:
// defaults, then -var-file, then -var; then runs their validation rules.
func (p *Profile) decodeVariables(vars Vars) hcl.Diagnostics {
	vd := &varDecoder{p: p, byName: map[string]*Variable{}, valueRange: map[string]*hcl.Range{}}
	for _, b := range p.content.Blocks {
		if b.Type == "variable" {
			vd.declare(b)
		}
	}
	// -var-file values, then -var values (later wins).
	for _, vf := range vars.Files {
		vd.file(vf)
	}
	for _, arg := range vars.Args {
		vd.arg(arg)
	}
	for _, v := range p.Variables {
		for _, plat := range p.valuePlatforms(v) {
			if v.On(plat).IsNull() && !v.invalid {
				on := ""
				if plat != "" {
					on = " on " + plat
				}
				vd.diags = append(vd.diags, errDiag("Missing required variable", fmt.Sprintf("Variable %q has no default%s; set it with -var %s=... or in a -var-file.", v.Name, on, v.Name), v.Range.Ptr()))
			}
		}
	}
	if vd.diags.HasErrors() {
		return vd.diags
	}
	for _, s := range p.sensitiveValues() {
		p.secrets.addVar(s)
	}
	// Each rule is checked on every value its variable takes: once, or
	// once per platform where a platform_default differs.
	for _, r := range vd.rules {
		seen := map[string]bool{}
		for _, plat := range p.valuePlatforms(r.v) {
			val := r.v.On(plat)
			if key := val.GoString(); !seen[key] {
				seen[key] = true
				vd.validate(r, p.varCtx(plat), plat)
			}
		}
	}
	return vd.diags
}

// valuePlatforms are the platforms whose value of v must be checked: ""
// (no platform: the default) when v takes one value everywhere, else each
// of the profile's platforms.
func (p *Profile) valuePlatforms(v *Variable) []string {
	if v.given || len(v.platformDefault) == 0 {
		return []string{""}
	}
	return p.Platforms
}

// varDecoder is one decodeVariables: the variables by name, where each
// one's value came from (nil: -var) and the validation rules to run once
// every value is set.
type varDecoder struct {
	p          *Profile
	byName     map[string]*Variable
	valueRange map[string]*hcl.Range
	rules      []varRule
	diags      hcl.Diagnostics
}

// varRule is a variable's validation block.
type varRule struct {
	v               *Variable
	cond, msg       hcl.Expression
	condRng, defRng hcl.Range
}

var (
	varSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "type"}, {Name: "default"}, {Name: "platform_default"}, {Name: "description"}, {Name: "sensitive"}, {Name: "operator_only"}},
		Blocks:     []hcl.BlockHeaderSchema{{Type: "validation"}},
	}
	validationSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "condition", Required: true}, {Name: "error_message", Required: true}}}
)

// declare adds a variable block: its type, description, sensitivity,
// default and validation rules.
func (vd *varDecoder) declare(b *hcl.Block) {
	name := b.Labels[0]
	if !hclsyntax.ValidIdentifier(name) {
		vd.diags = append(vd.diags, errDiag("Invalid variable name", fmt.Sprintf("%q is not a valid identifier.", name), b.LabelRanges[0].Ptr()))
		return
	}
	if prev, dup := vd.byName[name]; dup {
		vd.diags = append(vd.diags, errDiag("Duplicate variable", fmt.Sprintf("Variable %q was already declared at %s.", name, prev.Range), b.DefRange.Ptr()))
		return
	}
	v := &Variable{Name: name, Type: cty.DynamicPseudoType, Range: b.DefRange}
	vd.byName[name] = v
	vd.p.Variables = append(vd.p.Variables, v)
	c, d := b.Body.Content(varSchema)
	vd.diags = append(vd.diags, d...)
	if a, ok := c.Attributes["type"]; ok {
		ty, d := typeexpr.TypeConstraint(a.Expr)
		vd.diags = append(vd.diags, d...)
		if !d.HasErrors() {
			v.Type = ty
		}
	}
	if a, ok := c.Attributes["description"]; ok {
		vd.diags = append(vd.diags, gohcl.DecodeExpression(a.Expr, nil, &v.Description)...)
	}
	if a, ok := c.Attributes["sensitive"]; ok {
		vd.diags = append(vd.diags, gohcl.DecodeExpression(a.Expr, nil, &v.Sensitive)...)
	}
	if a, ok := c.Attributes["operator_only"]; ok {
		vd.diags = append(vd.diags, gohcl.DecodeExpression(a.Expr, nil, &v.OperatorOnly)...)
	}
	v.Value = cty.NullVal(v.Type)
	if a, ok := c.Attributes["default"]; ok {
		vd.set(v, a.Expr)
	}
	if a, ok := c.Attributes["platform_default"]; ok {
		vd.platformDefault(v, a)
	}
	for _, vb := range c.Blocks {
		vc, d := vb.Body.Content(validationSchema)
		vd.diags = append(vd.diags, d...)
		if d.HasErrors() {
			continue
		}
		vd.rules = append(vd.rules, varRule{v: v, cond: vc.Attributes["condition"].Expr, msg: vc.Attributes["error_message"].Expr,
			condRng: vc.Attributes["condition"].Expr.Range(), defRng: vb.DefRange})
	}
}

// platformDefault reads a variable's platform_default: an object of
// platform name = value, each of the variable's type.
func (vd *varDecoder) platformDefault(v *Variable, a *hcl.Attribute) {
	val, d := a.Expr.Value(nil)
	vd.diags = append(vd.diags, d...)
	if d.HasErrors() {
		return
	}
	if val.IsNull() || !(val.Type().IsObjectType() || val.Type().IsMapType()) {
		vd.diags = append(vd.diags, errDiag("Invalid platform_default", fmt.Sprintf("var.%s: platform_default must be an object of platform = value, e.g. { \"debian-12\" = \"8.2\" }.", v.Name), a.Expr.Range().Ptr()))
		return
	}
	v.platformDefault = map[string]cty.Value{}
	v.pdRange = a.Expr.Range().Ptr()
	if v.Sensitive {
		vd.p.masks = append(vd.p.masks, a.Expr.Range())
	}
	for it := val.ElementIterator(); it.Next(); {
		k, ev := it.Element()
		cv, err := convert.Convert(ev, v.Type)
		if err != nil {
			vd.diags = append(vd.diags, errDiag("Invalid platform_default", fmt.Sprintf("var.%s: platform_default[%q]: %v (type %s).", v.Name, k.AsString(), err, typeexpr.TypeString(v.Type)), a.Expr.Range().Ptr()))
			continue
		}
		v.platformDefault[k.AsString()] = cv
	}
}

// set gives v the value of expr (a default or a -var-file attribute).
func (vd *varDecoder) set(v *Variable, expr hcl.Expression) {
	if v.Sensitive {
		vd.p.masks = append(vd.p.masks, expr.Range())
	}
	val, d := expr.Value(nil)
	vd.diags = append(vd.diags, d...)
	if !d.HasErrors() {
		vd.diags = append(vd.diags, vd.p.setVar(v, val, expr.Range().Ptr())...)
		vd.valueRange[v.Name] = expr.Range().Ptr()
	}
}

// file sets the variables a -var-file names, in the file's order.
func (vd *varDecoder) file(vf VarFile) {
	f, d := parseHCL(vd.p.parser, vf.Src, vf.Name)
	vd.diags = append(vd.diags, d...)
	if d.HasErrors() {
		return
	}
	attrs, d := f.Body.JustAttributes()
	vd.diags = append(vd.diags, d...)
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return attrs[names[i]].Range.Start.Byte < attrs[names[j]].Range.Start.Byte })
	for _, n := range names {
		a := attrs[n]
		v, ok := vd.byName[n]
		if !ok {
			vd.diags = append(vd.diags, errDiag("Undefined variable", fmt.Sprintf("%s sets %q, but the profile declares no variable of that name%s.", vf.Name, n, suggest(n, vd.byName)), a.NameRange.Ptr()))
			continue
		}
		vd.set(v, a.Expr)
		v.given = true
	}
}

// arg sets the variable one -var name=value names.
func (vd *varDecoder) arg(arg string) {
	n, raw, ok := strings.Cut(arg, "=")
	if !ok || n == "" {
		vd.diags = append(vd.diags, errDiag("Invalid -var option", fmt.Sprintf("-var %q: want name=value.", arg), nil))
		return
	}
	v, ok := vd.byName[n]
	if !ok {
		vd.diags = append(vd.diags, errDiag("Undefined variable", fmt.Sprintf("-var %s: the profile declares no variable %q%s.", arg, n, suggest(n, vd.byName)), nil))
		return
	}
	val, d := parseVarArg(v, raw)
	vd.diags = append(vd.diags, d...)
	v.invalid = v.invalid || d.HasErrors()
	if !d.HasErrors() {
		vd.diags = append(vd.diags, vd.p.setVar(v, val, nil)...)
		vd.valueRange[n] = nil
		v.given = true
	}
}

// validate runs one validation rule on its variable's final value on
// platform ("": the value every platform takes).
func (vd *varDecoder) validate(r varRule, ctx *hcl.EvalContext, platform string) {
	cv, d := markExpr{Expression: r.cond, s: vd.p.secrets}.Value(ctx)
	vd.diags = append(vd.diags, d...)
	if d.HasErrors() || !cv.IsKnown() {
		return
	}
	if cv.IsNull() || cv.Type() != cty.Bool {
		vd.diags = append(vd.diags, errDiag("Invalid validation condition", "The condition must be true or false.", r.condRng.Ptr()))
		return
	}
	if cv.True() {
		return
	}
	var msg string
	fm := newFieldMarks()
	vd.diags = append(vd.diags, gohcl.DecodeExpression(markExpr{Expression: r.msg, s: vd.p.secrets, fm: fm, name: "error_message"}, ctx, &msg)...)
	msg = fm.showString("error_message", msg) // what came from a secret, hidden
	subj, found := vd.valueRange[r.v.Name]
	where := ""
	switch {
	case platform != "" && !r.v.given:
		if _, ok := r.v.platformDefault[platform]; ok {
			subj = r.v.pdRange
			where = " (its platform_default on " + platform + ")"
		} else {
			where = " (its default, on " + platform + ")"
		}
	case found && subj == nil:
		where = " (value from -var)"
	}
	if subj == nil {
		subj = r.condRng.Ptr()
	}
	vd.diags = append(vd.diags, errDiag("Invalid value for variable",
		fmt.Sprintf("var.%s%s: %s This was checked by the validation rule at %s.", r.v.Name, where, msg, r.defRng), subj))
}

// parseVarArg reads a -var value as Terraform does: strings as given,
// anything else as an HCL expression of the variable's type.
func parseVarArg(v *Variable, raw string) (cty.Value, hcl.Diagnostics) {
	if v.Type == cty.String || v.Type == cty.DynamicPseudoType {
		return cty.StringVal(raw), nil
	}
	shown := raw
	if v.Sensitive {
		shown = Redacted
	}
	bad := hcl.Diagnostics{errDiag("Invalid value for variable",
		fmt.Sprintf("-var %s=%s: not a valid %s value (strings are taken as given only for string variables).", v.Name, shown, typeexpr.TypeString(v.Type)), nil)}
	name := "<value for var." + v.Name + ">"
	if d := hcldiag.Check(name, []byte(raw), hcldiag.Expression); d != nil {
		return cty.NilVal, hcl.Diagnostics{errDiag("Invalid value for variable", fmt.Sprintf("-var %s: %s: %s", v.Name, d[0].Summary, d[0].Detail), nil)}
	}
	expr, diags := hclsyntax.ParseExpression([]byte(raw), name, hcl.InitialPos)
	if diags.HasErrors() {
		return cty.NilVal, bad
	}
	val, diags := expr.Value(nil)
	if diags.HasErrors() {
		return cty.NilVal, bad
	}
	return val, nil
}

func (p *Profile) setVar(v *Variable, val cty.Value, rng *hcl.Range) hcl.Diagnostics {
	cv, err := convert.Convert(val, v.Type)
	if err != nil {
		v.invalid = true
		where := ""
		if rng == nil {
			where = " (from -var)"
		}
		return hcl.Diagnostics{errDiag("Invalid value for variable",
			fmt.Sprintf("var.%s%s: %v (type %s).", v.Name, where, err, typeexpr.TypeString(v.Type)), rng)}
	}
	v.Value = cv
	return nil
}

func suggest(n string, names map[string]*Variable) string {
	best, bestD := "", 3
	for k := range names {
		if d := levenshtein(n, k); d < bestD || d == bestD && best != "" && k < best {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(` (did you mean "%s"?)`, best)
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev = cur
	}
	return prev[len(b)]
}

// decodePlatforms decodes the platform blocks (see platformBlocks), checks
// them against profile.platforms and each other, and gives each its
// platform.* value.
func (p *Profile) decodePlatforms() hcl.Diagnostics {
	order, diags := p.platformBlocks()
	// A part may know platforms a profile does not list: only the
	// profile's own blocks must be listed.
	order = slices.DeleteFunc(order, func(pb *platformBlock) bool {
		if !slices.Contains(p.Platforms, pb.Name) && !p.ownPlatform(pb.Name) {
			delete(p.platforms, pb.Name)
			return true
		}
		return false
	})
	diags = append(diags, p.checkListed(order)...)
	diags = append(diags, sameKeys(order)...)
	for _, pb := range order {
		pb.value = cty.ObjectVal(map[string]cty.Value{
			"name":            cty.StringVal(pb.Name),
			"package_manager": cty.StringVal(pb.PackageManager),
			"packages":        markElems(strObj(pb.Packages), pb.marked["packages"]),
			"paths":           markElems(strObj(pb.Paths), pb.marked["paths"]),
			"services":        markElems(strObj(pb.Services), pb.marked["services"]),
			"values":          markElems(pb.Values, pb.marked["values"]),
			"deviations":      markElems(strList(pb.Deviations), pb.marked["deviations"]),
		})
	}
	return diags
}

// platformBlocks decodes the platform blocks of the profile and its parts
// into p.platforms, merging the blocks of one platform, and returns them in
// the order first seen.
func (p *Profile) platformBlocks() ([]*platformBlock, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var order []*platformBlock
	for _, b := range p.content.Blocks {
		if b.Type != "platform" {
			continue
		}
		pb := &platformBlock{}
		fm := p.loadMarks.add(b.DefRange)
		// var.* as it is on this platform (platform_default).
		d := decodeBody(newMarkBody(b.Body, p.secrets, fm, nil), p.varCtx(b.Labels[0]), pb)
		pb.Name, pb.DefRange = b.Labels[0], b.DefRange
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		if d := pb.takeMarks(fm); d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		if pb.PackageManager != "" && pb.PackageManager != "apt" && pb.PackageManager != "dnf" {
			diags = append(diags, errDiag("Invalid package_manager", fmt.Sprintf("%q is not one of apt, dnf.", pb.PackageManager), pb.PMRange.Ptr()))
		}
		if pb.Values == cty.NilVal || pb.Values.IsNull() {
			pb.Values = cty.EmptyObjectVal
		}
		if !pb.Values.Type().IsObjectType() && !pb.Values.Type().IsMapType() {
			diags = append(diags, errDiag("Invalid values", "platform values must be an object.", b.DefRange.Ptr()))
			continue
		}
		if prev, dup := p.platforms[pb.Name]; dup {
			// The profile and the parts it uses each give their own keys
			// for a platform: one platform, keys from all of them.
			diags = append(diags, mergePlatform(prev, pb)...)
			continue
		}
		p.platforms[pb.Name] = pb
		order = append(order, pb)
	}
	return order, diags
}

// checkListed checks that every platform has a package manager, that every
// platform profile.platforms lists has a block and every block is listed.
func (p *Profile) checkListed(order []*platformBlock) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, pb := range order {
		if pb.PackageManager == "" {
			diags = append(diags, errDiag("Missing package_manager", fmt.Sprintf("No platform %q block gives package_manager (\"apt\" or \"dnf\").", pb.Name), pb.DefRange.Ptr()))
		}
	}
	listed := map[string]bool{}
	for _, name := range p.Platforms {
		listed[name] = true
		if _, ok := p.platforms[name]; !ok && !declaredPlatform(p.content, name) {
			diags = append(diags, errDiag("Missing platform block", fmt.Sprintf("profile.platforms lists %q but there is no platform %q block.", name, name), rangePtr(p.platRange)))
		}
	}
	for _, pb := range order {
		if !listed[pb.Name] {
			diags = append(diags, errDiag("Platform not listed", fmt.Sprintf("platform %q is not in profile.platforms %q.", pb.Name, p.Platforms), pb.DefRange.Ptr()))
		}
	}
	return diags
}

// sameKeys checks that every platform defines the same packages, paths,
// services and values keys as the first, so an op written once is valid on
// every platform.
func sameKeys(order []*platformBlock) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if len(order) < 2 {
		return nil
	}
	first := order[0]
	for _, pb := range order[1:] {
		for _, m := range []struct {
			what string
			a, b []string
		}{
			{"packages", slices.Sorted(maps.Keys(first.Packages)), slices.Sorted(maps.Keys(pb.Packages))},
			{"paths", slices.Sorted(maps.Keys(first.Paths)), slices.Sorted(maps.Keys(pb.Paths))},
			{"services", slices.Sorted(maps.Keys(first.Services)), slices.Sorted(maps.Keys(pb.Services))},
			{"values", objKeys(first.Values), objKeys(pb.Values)},
		} {
			onlyA, onlyB := diffKeys(m.a, m.b)
			if len(onlyA)+len(onlyB) == 0 {
				continue
			}
			var parts []string
			if len(onlyA) > 0 {
				parts = append(parts, fmt.Sprintf("%s lacks %s", pb.Name, strings.Join(onlyA, ", ")))
			}
			if len(onlyB) > 0 {
				parts = append(parts, fmt.Sprintf("%s lacks %s", first.Name, strings.Join(onlyB, ", ")))
			}
			diags = append(diags, errDiag("Platforms differ in "+m.what,
				fmt.Sprintf("Every platform must define the same %s keys: %s.", m.what, strings.Join(parts, "; ")), pb.DefRange.Ptr()))
		}
	}
	return diags
}

// ownPlatform reports whether one of the profile's own files (not a
// part's) has a block for the platform.
func (p *Profile) ownPlatform(name string) bool {
	for _, b := range p.content.Blocks {
		if b.Type == "platform" && b.Labels[0] == name && path.Dir(b.DefRange.Filename) == p.pfs.dir {
			return true
		}
	}
	return false
}

// mergePlatform adds b's keys to a, another block for the same platform
// (from a part, or the profile); a key given twice is an error naming both.
func mergePlatform(a, b *platformBlock) hcl.Diagnostics {
	var diags hcl.Diagnostics
	dup := func(what, key string) {
		diags = append(diags, errDiag("Duplicate platform key", fmt.Sprintf("platform %q: %s.%s is given here and in the block at %s.", a.Name, what, key, a.DefRange), b.DefRange.Ptr()))
	}
	switch {
	case a.PackageManager == "":
		a.PackageManager, a.PMRange = b.PackageManager, b.PMRange
	case b.PackageManager != "" && b.PackageManager != a.PackageManager:
		diags = append(diags, errDiag("Conflicting package_manager", fmt.Sprintf("platform %q: %q here, %q at %s.", a.Name, b.PackageManager, a.PackageManager, a.PMRange), b.PMRange.Ptr()))
	}
	for _, m := range []struct {
		what string
		dst  *map[string]string
		src  map[string]string
	}{{"packages", &a.Packages, b.Packages}, {"paths", &a.Paths, b.Paths}, {"services", &a.Services, b.Services}} {
		for _, k := range slices.Sorted(maps.Keys(m.src)) {
			if _, ok := (*m.dst)[k]; ok {
				dup(m.what, k)
				continue
			}
			if *m.dst == nil {
				*m.dst = map[string]string{}
			}
			(*m.dst)[k] = m.src[k]
		}
	}
	vals := a.Values.AsValueMap()
	if vals == nil {
		vals = map[string]cty.Value{}
	}
	bv := b.Values.AsValueMap()
	for _, k := range slices.Sorted(maps.Keys(bv)) {
		if _, ok := vals[k]; ok {
			dup("values", k)
			continue
		}
		vals[k] = bv[k]
	}
	a.Values = cty.ObjectVal(vals)
	if a.marked == nil {
		a.marked = map[string][]string{}
	}
	for _, what := range []string{"packages", "paths", "services", "values"} {
		a.marked[what] = append(a.marked[what], b.marked[what]...)
	}
	for _, i := range b.marked["deviations"] {
		if i == "" { // all of b's
			for j := range b.Deviations {
				a.marked["deviations"] = append(a.marked["deviations"], strconv.Itoa(j+len(a.Deviations)))
			}
			continue
		}
		n, _ := strconv.Atoi(i)
		a.marked["deviations"] = append(a.marked["deviations"], strconv.Itoa(n+len(a.Deviations)))
	}
	a.Deviations = append(a.Deviations, b.Deviations...)
	return diags
}

func declaredPlatform(c *hcl.BodyContent, name string) bool {
	for _, b := range c.Blocks {
		if b.Type == "platform" && b.Labels[0] == name {
			return true
		}
	}
	return false
}

func objKeys(v cty.Value) []string {
	var ks []string
	for it := v.ElementIterator(); it.Next(); {
		k, _ := it.Element()
		ks = append(ks, k.AsString())
	}
	sort.Strings(ks)
	return ks
}

func diffKeys(a, b []string) (onlyA, onlyB []string) {
	inA, inB := map[string]bool{}, map[string]bool{}
	for _, k := range a {
		inA[k] = true
	}
	for _, k := range b {
		inB[k] = true
	}
	for _, k := range a {
		if !inB[k] {
			onlyA = append(onlyA, k)
		}
	}
	for _, k := range b {
		if !inA[k] {
			onlyB = append(onlyB, k)
		}
	}
	return
}

func strObj(m map[string]string) cty.Value {
	if len(m) == 0 {
		return cty.EmptyObjectVal
	}
	o := map[string]cty.Value{}
	for k, v := range m {
		o[k] = cty.StringVal(v)
	}
	return cty.ObjectVal(o)
}

func strList(l []string) cty.Value {
	if len(l) == 0 {
		return cty.ListValEmpty(cty.String)
	}
	vs := make([]cty.Value, len(l))
	for i, s := range l {
		vs[i] = cty.StringVal(s)
	}
	return cty.ListVal(vs)
}

// varCtx is the namespaces with var.* as it is on platform ("": the
// defaults, before any platform_default).
func (p *Profile) varCtx(platform string) *hcl.EvalContext {
	ctx := p.evalCtx(nil, cty.NilVal)
	ctx.Variables["var"] = p.varObject(platform)
	return ctx
}

// varObject is var.* on platform.
func (p *Profile) varObject(platform string) cty.Value {
	vars := map[string]cty.Value{}
	for _, v := range p.Variables {
		vars[v.Name] = markVal(v.On(platform), v.Sensitive)
	}
	return cty.ObjectVal(vars)
}

// evalCtx builds the namespaces: var always (as it is on the platform,
// when one is given); platform and local when given.
func (p *Profile) evalCtx(locals map[string]cty.Value, platform cty.Value) *hcl.EvalContext {
	name := ""
	if platform != cty.NilVal {
		name = platform.GetAttr("name").AsString()
	}
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{
			"var":     p.varObject(name),
			"profile": cty.ObjectVal(map[string]cty.Value{"name": cty.StringVal(p.Name)}),
		},
		Functions: recordFuncs(functions(p.pfs), p.secrets),
	}
	if platform != cty.NilVal {
		ctx.Variables["platform"] = platform
	}
	if locals != nil {
		ctx.Variables["local"] = cty.ObjectVal(locals)
	}
	return ctx
}

// hashDir hashes every regular file under dir, sorted by path relative to dir.
// hashDirs hashes the profile's directory (names relative to it) and then
// each part's (names relative to the profile's parent: "_parts/site/...").
func hashDirs(fsys fs.FS, dirs []string) (string, error) {
	h := sha256.New()
	for i, dir := range dirs {
		var names []string
		err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() {
				names = append(names, p)
			}
			return nil
		})
		if err != nil {
			return "", err
		}
		sort.Strings(names)
		base := dir
		if i > 0 {
			base = path.Dir(dirs[0])
		}
		for _, n := range names {
			b, err := fs.ReadFile(fsys, n)
			if err != nil {
				return "", err
			}
			rel := n
			if base != "." {
				rel = strings.TrimPrefix(n, base+"/")
			}
			fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
			h.Write(b)
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// Header is what a profile says about itself in its profile block.
type Header struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Platforms   []string `json:"platforms"`
	Aliases     []string `json:"aliases"`
}

// ReadHeader reads only the profile block of the profile in dir (no
// variables are resolved, so it works for profiles that need -var values):
// for listings and alias lookup.
func ReadHeader(fsys fs.FS, dir string) (Header, hcl.Diagnostics) {
	h := Header{Name: path.Base(dir), Platforms: []string{}, Aliases: []string{}}
	parser := hclparse.NewParser()
	var diags hcl.Diagnostics
	found := false
	err := eachHCLFile(fsys, dir, func(name string, src []byte, err error) {
		if err != nil {
			diags = append(diags, errDiag("Cannot read profile file", err.Error(), nil))
			return
		}
		f, d := parseHCL(parser, src, name)
		diags = append(diags, d...)
		if d.HasErrors() {
			return
		}
		c, _, _ := f.Body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "profile"}}})
		for _, b := range c.Blocks {
			var pb profileBlock
			diags = append(diags, decodeBody(b.Body, nil, &pb)...)
			found = true
			h.Description, h.Platforms = pb.Description, pb.Platforms
			if pb.Aliases != nil {
				h.Aliases = pb.Aliases
			}
		}
	})
	if err != nil {
		return h, hcl.Diagnostics{errDiag("Cannot read profile", fmt.Sprintf("%s: %v", dir, err), nil)}
	}
	if !found && !diags.HasErrors() {
		diags = append(diags, errDiag("Missing profile block", dir+" has no profile block.", nil))
	}
	return h, diags
}

// explain rewrites HCL's generic "Unsupported attribute" for var.X into
// "Undefined variable", naming the declared variables.
func (p *Profile) explain(diags hcl.Diagnostics) hcl.Diagnostics {
	declared := map[string]*Variable{}
	var names []string
	for _, v := range p.Variables {
		declared[v.Name] = v
		names = append(names, v.Name)
	}
	for _, d := range diags {
		st, ok := d.Expression.(*hclsyntax.ScopeTraversalExpr)
		if !ok || d.Summary != "Unsupported attribute" || st.Traversal.RootName() != "var" || len(st.Traversal) < 2 {
			continue
		}
		ta, ok := st.Traversal[1].(hcl.TraverseAttr)
		if !ok || declared[ta.Name] != nil {
			continue
		}
		d.Summary = "Undefined variable"
		d.Detail = fmt.Sprintf("var.%s is not declared in this profile (declared: %s)%s. Add a variable %q block or fix the name.",
			ta.Name, strings.Join(names, ", "), suggest(ta.Name, declared), ta.Name)
	}
	return diags
}
