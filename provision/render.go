package provision

import (
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/dynblock"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/wptest/wptest/internal/hcldiag"
	"github.com/wptest/wptest/internal/redact"
	"github.com/zclconf/go-cty/cty"
)

// Rendered is a profile evaluated for one platform: ops in run order,
// checks and facts, ready for Offline, Plan or Apply.
type Rendered struct {
	Profile        *Profile
	Platform       string
	PackageManager string
	Deviations     []string
	// Blocked holds the error messages of failed preconditions: apply
	// refuses to start while it is not empty.
	Blocked []string
	Ops     []Op
	Checks  []*Check
	Facts   []*Fact
	// Site and Groups are what the profile declares about itself (site and
	// process_group blocks), for the host manifest.
	Site   *Site
	Groups []ProcessGroup
	// Teardown are the profile's teardown blocks' commands, for the host
	// manifest.
	Teardown []string
	// Server is what the profile declares about its web server (server
	// block); nil when it has none.
	Server *Server
	// Watch are the profile's watch blocks: what shapes the server's
	// performance without being written by it (the drift record's).
	Watch []Watch

	serverOps []*ServiceOp
	retired   []Service
	notices   map[string][]notice // op id -> services to notify when it changes
}

type notice struct {
	service string // op id "service.x"
	action  string // "reload" or "restart"
}

var commonSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "when"}, {Name: "depends_on"}, {Name: "notify"}}}
var whenSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "when"}}}

type fileBlock struct {
	Path          string    `hcl:"path"`
	Template      *string   `hcl:"template,optional"`
	Content       *string   `hcl:"content,optional"`
	Source        *string   `hcl:"source,optional"`
	Vars          cty.Value `hcl:"vars,optional"`
	Mode          *string   `hcl:"mode,optional"`
	Owner         *string   `hcl:"owner,optional"`
	Group         *string   `hcl:"group,optional"`
	PathRange     hcl.Range `hcl:"path,attr_value_range"`
	TemplateRange hcl.Range `hcl:"template,attr_value_range"`
	SourceRange   hcl.Range `hcl:"source,attr_value_range"`
	VarsRange     hcl.Range `hcl:"vars,attr_value_range"`
	ModeRange     hcl.Range `hcl:"mode,attr_value_range"`
}

type dirBlock struct {
	Path      string    `hcl:"path"`
	Mode      *string   `hcl:"mode,optional"`
	Owner     *string   `hcl:"owner,optional"`
	Group     *string   `hcl:"group,optional"`
	PathRange hcl.Range `hcl:"path,attr_value_range"`
	ModeRange hcl.Range `hcl:"mode,attr_value_range"`
}

type linkBlock struct {
	Path      string    `hcl:"path"`
	Target    string    `hcl:"target"`
	PathRange hcl.Range `hcl:"path,attr_value_range"`
}

type packageBlock struct {
	Names      []string  `hcl:"names"`
	State      *string   `hcl:"state,optional"`
	StateRange hcl.Range `hcl:"state,attr_value_range"`
	NamesRange hcl.Range `hcl:"names,attr_value_range"`
}

type userBlock struct {
	Name   string   `hcl:"name"`
	System *bool    `hcl:"system,optional"`
	Home   *string  `hcl:"home,optional"`
	Shell  *string  `hcl:"shell,optional"`
	Groups []string `hcl:"groups,optional"`
}

type commandBlock struct {
	Run          string    `hcl:"run"`
	Unless       *string   `hcl:"unless,optional"`
	OnlyIf       *string   `hcl:"only_if,optional"`
	Creates      *string   `hcl:"creates,optional"`
	Stdin        *string   `hcl:"stdin,optional"`
	Timeout      *string   `hcl:"timeout,optional"`
	TimeoutRange hcl.Range `hcl:"timeout,attr_value_range"`
	Bake         *bool     `hcl:"bake,optional"`
}

type serviceBlock struct {
	Name              string    `hcl:"name"`
	State             *string   `hcl:"state,optional"`
	Enabled           *bool     `hcl:"enabled,optional"`
	OnNotify          *string   `hcl:"on_notify,optional"`
	ReloadOn          []string  `hcl:"reload_on,optional"`
	RestartOn         []string  `hcl:"restart_on,optional"`
	Start             *string   `hcl:"start,optional"`
	Stop              *string   `hcl:"stop,optional"`
	Reload            *string   `hcl:"reload,optional"`
	Restart           *string   `hcl:"restart,optional"`
	Status            *string   `hcl:"status,optional"`
	Ready             *string   `hcl:"ready,optional"`
	ReadyTimeout      *string   `hcl:"ready_timeout,optional"`
	StateRange        hcl.Range `hcl:"state,attr_value_range"`
	OnNotifyRange     hcl.Range `hcl:"on_notify,attr_value_range"`
	ReloadOnRange     hcl.Range `hcl:"reload_on,attr_value_range"`
	RestartOnRange    hcl.Range `hcl:"restart_on,attr_value_range"`
	ReadyTimeoutRange hcl.Range `hcl:"ready_timeout,attr_value_range"`
}

type checkBlock struct {
	Timeout      *string         `hcl:"timeout,optional"`
	HTTP         *httpCheckBlock `hcl:"http,block"`
	Command      *cmdCheckBlock  `hcl:"command,block"`
	TimeoutRange hcl.Range       `hcl:"timeout,attr_value_range"`
}

type httpCheckBlock struct {
	URL             string            `hcl:"url"`
	Method          *string           `hcl:"method,optional"`
	Headers         map[string]string `hcl:"headers,optional"`
	Protocol        *string           `hcl:"protocol,optional"`
	Insecure        *bool             `hcl:"insecure,optional"`
	ServerName      *string           `hcl:"server_name,optional"`
	ExpectStatus    *int              `hcl:"expect_status,optional"`
	ExpectHeader    map[string]string `hcl:"expect_header,optional"`
	ExpectNoHeader  []string          `hcl:"expect_no_header,optional"`
	ExpectBodyRegex *string           `hcl:"expect_body_regex,optional"`
	ExpectProtocol  *string           `hcl:"expect_protocol,optional"`
	URLRange        hcl.Range         `hcl:"url,attr_value_range"`
	ProtocolRange   hcl.Range         `hcl:"protocol,attr_value_range"`
	BodyRegexRange  hcl.Range         `hcl:"expect_body_regex,attr_value_range"`
}

type cmdCheckBlock struct {
	Run         string    `hcl:"run"`
	ExpectRegex *string   `hcl:"expect_regex,optional"`
	ExpectExit  *int      `hcl:"expect_exit,optional"`
	RegexRange  hcl.Range `hcl:"expect_regex,attr_value_range"`
}

type factBlock struct {
	Run         string    `hcl:"run"`
	ExpectRegex *string   `hcl:"expect_regex,optional"`
	Deviation   *string   `hcl:"deviation,optional"`
	RegexRange  hcl.Range `hcl:"expect_regex,attr_value_range"`
	DefRange    hcl.Range `hcl:",def_range"`
}

type preconditionBlock struct {
	Condition    bool   `hcl:"condition"`
	ErrorMessage string `hcl:"error_message"`
}

var opKinds = map[string]bool{"file": true, "directory": true, "link": true, "package": true, "user": true, "command": true, "service": true}

// refs are op references to resolve once every op is known.
type ref struct {
	from   string
	to     string
	attr   string
	rng    hcl.Range
	action string // for notify refs: "" = the service's on_notify
}

// Render evaluates the profile for platform. Load has already rendered
// every declared platform, so errors here only come from a platform the
// profile does not declare.
func (p *Profile) Render(platform string) (*Rendered, hcl.Diagnostics) {
	reg := &markRegistry{}
	r, diags := p.render(platform, reg)
	return r, p.redactDiags(reg.redactDiags(diags))
}

func (p *Profile) render(platform string, reg *markRegistry) (*Rendered, hcl.Diagnostics) {
	if !p.ok {
		return nil, hcl.Diagnostics{errDiag("Profile not loaded", "The profile had errors; nothing can be rendered.", nil)}
	}
	pb, ok := p.platforms[platform]
	if !ok {
		return nil, hcl.Diagnostics{errDiag("Unsupported platform",
			fmt.Sprintf("Profile %s supports %s, not %q.", p.Name, strings.Join(p.Platforms, ", "), platform), nil)}
	}
	r := &Rendered{Profile: p, Platform: platform, PackageManager: pb.PackageManager, Deviations: pb.shownDeviations(), notices: map[string][]notice{}}
	locals, diags := p.evalLocals(pb.value)
	if diags.HasErrors() {
		return nil, diags
	}
	ctx := p.evalCtx(locals, pb.value)
	diags = append(diags, p.refuseSensitiveForEach(ctx)...)
	// Values leave HCL unmarked through this body, their secrets
	// remembered for redact and their marks kept per field (reg).
	content, d := newMarkBody(dynblock.Expand(p.body, ctx), p.secrets, nil, reg).Content(rootSchema)
	diags = append(diags, d...)
	if diags.HasErrors() {
		return nil, diags
	}

	diags = append(diags, decodeDescriptions(r, content.Blocks, ctx)...)
	sb, d := decodeServer(content.Blocks, ctx)
	diags = append(diags, d...)
	declared, d := declareIDs(content.Blocks)
	diags = append(diags, d...)
	refs, services, d := p.decodeBlocks(r, content.Blocks, ctx)
	diags = append(diags, d...)
	// References are checked even after errors above: they need only the
	// declared ids, and the author wants every error at once.
	deps, d := r.resolveRefs(refs, declared, services)
	diags = append(diags, d...)
	diags = append(diags, resolveServer(r, sb, services, declared)...)
	if diags.HasErrors() {
		return nil, diags
	}
	ordered, d := orderOps(r.Ops, deps, declared)
	diags = append(diags, d...)
	r.Ops = ordered
	if diags.HasErrors() {
		return nil, diags
	}
	diags = append(diags, r.siteFiles()...)
	if diags.HasErrors() {
		return nil, diags
	}
	return r, diags
}

// sensitiveValues are the non-empty values of the sensitive variables, which
// output hides.
func (p *Profile) sensitiveValues() []string {
	var out []string
	for _, v := range p.Variables {
		if !v.Sensitive {
			continue
		}
		vals := []cty.Value{v.Value}
		for _, pv := range v.platformDefault {
			vals = append(vals, pv)
		}
		for _, val := range vals {
			// Each string and number in it (a bool is no text to hide,
			// nor are a map's keys).
			var leaves []string
			collectLeaves(val, false, &leaves)
			for _, s := range leaves {
				if s != "" && !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// declareIDs maps the id of every op, check and fact ("file.site_conf") to
// where it is declared, refusing duplicates and invalid names.
func declareIDs(blocks hcl.Blocks) (map[string]hcl.Range, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	declared := map[string]hcl.Range{}
	for _, b := range blocks {
		if !opKinds[b.Type] && b.Type != "check" && b.Type != "fact" {
			continue
		}
		id := b.Type + "." + b.Labels[0]
		if prev, dup := declared[id]; dup {
			diags = append(diags, errDiag("Duplicate "+b.Type, fmt.Sprintf("%s was already declared at %s.", id, prev), b.DefRange.Ptr()))
			continue
		}
		if !hclsyntax.ValidIdentifier(b.Labels[0]) {
			diags = append(diags, errDiag("Invalid name", fmt.Sprintf("%q is not a valid identifier (letters, digits, _ and -).", b.Labels[0]), b.LabelRanges[0].Ptr()))
		}
		declared[id] = b.DefRange
	}
	return declared, diags
}

// decodeBlocks decodes the preconditions, checks, facts and ops (those
// whose when holds) into r, in file order. It returns the references the
// ops make, to resolve once all are known, and the services by id.
func (p *Profile) decodeBlocks(r *Rendered, blocks hcl.Blocks, ctx *hcl.EvalContext) ([]ref, map[string]*ServiceOp, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var refs []ref
	services := map[string]*ServiceOp{}
	index := 0
	for _, b := range blocks {
		switch {
		case b.Type == "precondition":
			var pc preconditionBlock
			d := decodeBody(b.Body, ctx, &pc)
			diags = append(diags, d...)
			if !d.HasErrors() && !pc.Condition {
				r.Blocked = append(r.Blocked, marksOf(b).showString("error_message", pc.ErrorMessage))
			}
		case b.Type == "check" || b.Type == "fact":
			diags = append(diags, decodeCheckOrFact(r, b, ctx)...)
		case opKinds[b.Type]:
			base, when, rest, brefs, d := decodeCommon(b, ctx)
			diags = append(diags, d...)
			if d.HasErrors() || !when {
				continue
			}
			base.index = index
			index++
			op, orefs, d := p.decodeOp(b, rest, ctx, base)
			diags = append(diags, d...)
			if op == nil {
				continue
			}
			refs = append(refs, brefs...)
			refs = append(refs, orefs...)
			if s, ok := op.(*ServiceOp); ok {
				services[s.id] = s
			}
			r.Ops = append(r.Ops, op)
		}
	}
	return refs, services, diags
}

// decodeCheckOrFact adds a check or fact block to r, if its when holds.
func decodeCheckOrFact(r *Rendered, b *hcl.Block, ctx *hcl.EvalContext) hcl.Diagnostics {
	when, rest, diags := decodeWhen(b, ctx)
	if diags.HasErrors() || !when {
		return diags
	}
	if b.Type == "fact" {
		var fb factBlock
		if d := decodeBody(rest, ctx, &fb); d.HasErrors() {
			return append(diags, d...)
		}
		f := &Fact{ID: "fact." + b.Labels[0], Run: fb.Run, marks: marksOf(b)}
		if (fb.ExpectRegex == nil) != (fb.Deviation == nil) {
			return append(diags, errDiag("Incomplete fact deviation", f.ID+": expect_regex and deviation go together: the deviation is recorded when the fact's output does not match expect_regex.", b.DefRange.Ptr()))
		}
		if fb.ExpectRegex != nil {
			if d := checkRegex(*fb.ExpectRegex, fb.RegexRange); d.HasErrors() {
				return append(diags, d...)
			}
			f.ExpectRegex, f.Deviation = *fb.ExpectRegex, *fb.Deviation
		}
		r.Facts = append(r.Facts, f)
		return diags
	}
	c, d := decodeCheck(b, rest, ctx)
	if c != nil {
		r.Checks = append(r.Checks, c)
	}
	return append(diags, d...)
}

// resolveRefs checks every reference against the declared ids and turns
// those between ops present on this platform into dependencies (op id ->
// the ops it depends on) and notices (op id -> services to tell).
func (r *Rendered) resolveRefs(refs []ref, declared map[string]hcl.Range, services map[string]*ServiceOp) (map[string][]string, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	present := map[string]Op{}
	for _, op := range r.Ops {
		present[op.ID()] = op
	}
	deps := map[string][]string{}
	for _, rf := range refs {
		to := rf.to
		if rf.attr == "notify" && !strings.HasPrefix(to, "service.") {
			to = "service." + to
		}
		if _, ok := declared[to]; !ok || !opKinds[strings.SplitN(to, ".", 2)[0]] {
			want := "an op id such as \"file.site_conf\""
			if rf.attr == "notify" {
				want = "a service label"
			}
			diags = append(diags, errDiag("Unknown "+rf.attr+" target",
				fmt.Sprintf("%s: %s names %q, but there is no such op; want %s%s.", rf.from, rf.attr, rf.to, want, suggestID(to, declared)), rf.rng.Ptr()))
			continue
		}
		if _, ok := present[to]; !ok {
			continue // declared, but when = false on this platform (or broken)
		}
		if _, ok := present[rf.from]; !ok {
			continue
		}
		switch rf.attr {
		case "depends_on":
			if to == rf.from {
				diags = append(diags, errDiag("Self dependency", rf.from+" depends on itself.", rf.rng.Ptr()))
				continue
			}
			deps[rf.from] = append(deps[rf.from], to)
		case "notify", "reload_on", "restart_on":
			if d := r.addNotice(rf, to, services); d != nil {
				diags = append(diags, d)
			}
		}
	}
	return deps, diags
}

// addNotice records that a change to an op tells a service (notify from the
// op, reload_on/restart_on from the service); to is the resolved target.
func (r *Rendered) addNotice(rf ref, to string, services map[string]*ServiceOp) *hcl.Diagnostic {
	svc, op := to, rf.from
	if rf.attr != "notify" {
		svc, op = rf.from, to
	}
	s, ok := services[svc]
	if !ok {
		return errDiag("Not a service", fmt.Sprintf("%s: %s must name a service, not %s.", rf.from, rf.attr, to), rf.rng.Ptr())
	}
	action := rf.action
	if action == "" {
		action = s.OnNotify
	}
	r.notices[op] = append(r.notices[op], notice{service: svc, action: action})
	return nil
}

func suggestID(id string, declared map[string]hcl.Range) string {
	best, bestD := "", 4
	for k := range declared {
		if d := levenshtein(id, k); d < bestD || d == bestD && k < best {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(` (did you mean "%s"?)`, best)
}

// orderOps keeps profile order except where depends_on needs an op later:
// Kahn's algorithm, always taking the earliest ready op, so the order is a
// pure function of the profile.
func orderOps(ops []Op, deps map[string][]string, declared map[string]hcl.Range) ([]Op, hcl.Diagnostics) {
	pending := map[string]int{}
	users := map[string][]string{}
	for _, op := range ops {
		id := op.ID()
		pending[id] = len(deps[id])
		for _, d := range deps[id] {
			users[d] = append(users[d], id)
		}
	}
	byID := map[string]Op{}
	for _, op := range ops {
		byID[op.ID()] = op
	}
	var out []Op
	done := map[string]bool{}
	for len(out) < len(ops) {
		progress := false
		for _, op := range ops {
			id := op.ID()
			if done[id] || pending[id] > 0 {
				continue
			}
			done[id] = true
			out = append(out, op)
			for _, u := range users[id] {
				pending[u]--
			}
			progress = true
			break
		}
		if !progress {
			var cyc []string
			for _, op := range ops {
				if !done[op.ID()] {
					cyc = append(cyc, op.ID())
				}
			}
			first := declared[cyc[0]]
			return ops, hcl.Diagnostics{errDiag("Dependency cycle", "depends_on forms a cycle among: "+strings.Join(cyc, ", ")+".", first.Ptr())}
		}
	}
	return out, nil
}

func decodeWhen(b *hcl.Block, ctx *hcl.EvalContext) (bool, hcl.Body, hcl.Diagnostics) {
	c, rest, diags := b.Body.PartialContent(whenSchema)
	when := true
	if a, ok := c.Attributes["when"]; ok {
		diags = append(diags, gohcl.DecodeExpression(a.Expr, ctx, &when)...)
	}
	return when, rest, append(diags, refuseStructural(b)...)
}

// whyStructural is why when, depends_on, notify and an op's references
// refuse a sensitive value.
const whyStructural = "it decides which ops, checks and facts there are and in which order, which every plan shows (and its errors name the value); a secret cannot decide it."

// refuseStructural refuses a sensitive value in a block's when,
// depends_on or notify.
func refuseStructural(b *hcl.Block) hcl.Diagnostics {
	return marksOf(b).refuse(blockName(b), []string{"when", "depends_on", "notify"}, whyStructural)
}

// blockName is how errors name a block: "command.x", "site".
func blockName(b *hcl.Block) string {
	return strings.Join(append([]string{b.Type}, b.Labels...), ".")
}

func decodeCommon(b *hcl.Block, ctx *hcl.EvalContext) (opBase, bool, hcl.Body, []ref, hcl.Diagnostics) {
	base := opBase{id: b.Type + "." + b.Labels[0], kind: b.Type, marks: marksOf(b)}
	c, rest, diags := b.Body.PartialContent(commonSchema)
	when := true
	if a, ok := c.Attributes["when"]; ok {
		diags = append(diags, gohcl.DecodeExpression(a.Expr, ctx, &when)...)
	}
	var refs []ref
	for _, attr := range []string{"depends_on", "notify"} {
		a, ok := c.Attributes[attr]
		if !ok {
			continue
		}
		var list []string
		d := gohcl.DecodeExpression(a.Expr, ctx, &list)
		diags = append(diags, d...)
		for _, to := range list {
			refs = append(refs, ref{from: base.id, to: to, attr: attr, rng: a.Expr.Range()})
			if attr == "depends_on" {
				base.dependsOn = append(base.dependsOn, to)
			} else {
				base.notify = append(base.notify, strings.TrimPrefix(to, "service."))
			}
		}
	}
	return base, when, rest, refs, append(diags, refuseStructural(b)...)
}

func parseMode(s *string, def fs.FileMode, rng hcl.Range) (fs.FileMode, hcl.Diagnostics) {
	if s == nil {
		return def, nil
	}
	m, err := strconv.ParseUint(*s, 8, 32)
	if err != nil || m > 0o7777 {
		return 0, hcl.Diagnostics{errDiag("Invalid mode", fmt.Sprintf("%q is not an octal file mode such as \"0644\".", *s), rng.Ptr())}
	}
	return fs.FileMode(m), nil
}

func parseDuration(s *string, def time.Duration, rng hcl.Range) (time.Duration, hcl.Diagnostics) {
	if s == nil {
		return def, nil
	}
	d, err := time.ParseDuration(*s)
	if err != nil || d <= 0 {
		return 0, hcl.Diagnostics{errDiag("Invalid duration", fmt.Sprintf("%q is not a positive duration such as \"30s\" or \"5m\".", *s), rng.Ptr())}
	}
	return d, nil
}

func absPath(p string, rng hcl.Range) hcl.Diagnostics {
	if !path.IsAbs(p) {
		return hcl.Diagnostics{errDiag("Relative path", fmt.Sprintf("%q must be an absolute path on the host.", p), rng.Ptr())}
	}
	return nil
}

func oneOf(what string, v *string, def string, allowed []string, rng hcl.Range) (string, hcl.Diagnostics) {
	if v == nil {
		return def, nil
	}
	for _, a := range allowed {
		if *v == a {
			return a, nil
		}
	}
	return "", hcl.Diagnostics{errDiag("Invalid "+what, fmt.Sprintf("%q is not one of %s.", *v, strings.Join(allowed, ", ")), rng.Ptr())}
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// decodeOp decodes an op block of kind b.Type; only a service has refs
// (its reload_on and restart_on).
func (p *Profile) decodeOp(b *hcl.Block, body hcl.Body, ctx *hcl.EvalContext, base opBase) (Op, []ref, hcl.Diagnostics) {
	switch b.Type {
	case "file":
		return p.decodeFileOp(b, body, ctx, base)
	case "directory":
		return p.decodeDirOp(b, body, ctx, base)
	case "link":
		return p.decodeLinkOp(b, body, ctx, base)
	case "package":
		return p.decodePackageOp(b, body, ctx, base)
	case "user":
		return p.decodeUserOp(b, body, ctx, base)
	case "command":
		return p.decodeCommandOp(b, body, ctx, base)
	case "service":
		return p.decodeServiceOp(b, body, ctx, base)
	}
	panic("unreachable: op kind " + b.Type)
}

// decodeFileOp decodes a file block: its path, mode and exactly one of template, content or source.
func (p *Profile) decodeFileOp(b *hcl.Block, body hcl.Body, ctx *hcl.EvalContext, base opBase) (Op, []ref, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var fb fileBlock
	if d := decodeBody(body, ctx, &fb); d.HasErrors() {
		return nil, nil, d
	}
	diags = append(diags, absPath(fb.Path, fb.PathRange)...)
	mode, d := base.marks.mode("mode", fb.Mode, 0o644, fb.ModeRange)
	diags = append(diags, d...)
	op := &FileOp{opBase: base, Path: fb.Path, Mode: mode, Owner: str(fb.Owner), Group: str(fb.Group)}
	n := 0
	for _, x := range []*string{fb.Template, fb.Content, fb.Source} {
		if x != nil {
			n++
		}
	}
	if n != 1 {
		diags = append(diags, errDiag("Invalid file body", fmt.Sprintf("%s: give exactly one of template, content or source (got %d).", base.id, n), b.DefRange.Ptr()))
		return nil, nil, diags
	}
	switch {
	case fb.Content != nil:
		op.Body, op.From = []byte(*fb.Content), "content"
	case fb.Source != nil:
		src, _, err := p.pfs.read(*fb.Source)
		if err != nil {
			diags = append(diags, errDiag("Cannot read source", err.Error(), fb.SourceRange.Ptr()))
			return nil, nil, diags
		}
		op.Body, op.From = src, "source "+*fb.Source
	default:
		body, d := p.renderTemplate(*fb.Template, ctx, fb.Vars, fb.TemplateRange, fb.VarsRange, base.marks)
		diags = append(diags, d...)
		op.Body, op.From = []byte(body), "template "+*fb.Template
	}
	if diags.HasErrors() {
		return nil, nil, diags
	}
	// What the plan shows of the body (its digest and size too) follows
	// the body's marks; where it came from, the template's or source's.
	base.marks.alias("from", "template", "source")
	base.marks.alias("sha256", "content")
	base.marks.alias("size", "content")
	return op, nil, diags
}

// decodeDirOp decodes a directory block.
func (p *Profile) decodeDirOp(b *hcl.Block, body hcl.Body, ctx *hcl.EvalContext, base opBase) (Op, []ref, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var db dirBlock
	if d := decodeBody(body, ctx, &db); d.HasErrors() {
		return nil, nil, d
	}
	diags = append(diags, absPath(db.Path, db.PathRange)...)
	mode, d := base.marks.mode("mode", db.Mode, 0o755, db.ModeRange)
	diags = append(diags, d...)
	if diags.HasErrors() {
		return nil, nil, diags
	}
	return &DirOp{opBase: base, Path: db.Path, Mode: mode, Owner: str(db.Owner), Group: str(db.Group)}, nil, nil
}

// decodeLinkOp decodes a link block.
func (p *Profile) decodeLinkOp(b *hcl.Block, body hcl.Body, ctx *hcl.EvalContext, base opBase) (Op, []ref, hcl.Diagnostics) {
	var lb linkBlock
	if d := decodeBody(body, ctx, &lb); d.HasErrors() {
		return nil, nil, d
	}
	if d := absPath(lb.Path, lb.PathRange); d.HasErrors() {
		return nil, nil, d
	}
	return &LinkOp{opBase: base, Path: lb.Path, Target: lb.Target}, nil, nil
}

// decodePackageOp decodes a package block: the names, present or absent, with the platform's package manager.
func (p *Profile) decodePackageOp(b *hcl.Block, body hcl.Body, ctx *hcl.EvalContext, base opBase) (Op, []ref, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var pb packageBlock
	if d := decodeBody(body, ctx, &pb); d.HasErrors() {
		return nil, nil, d
	}
	state, d := oneOf("state", pb.State, "present", []string{"present", "absent"}, pb.StateRange)
	diags = append(diags, d...)
	if len(pb.Names) == 0 {
		diags = append(diags, errDiag("No package names", base.id+": names must list at least one package.", pb.NamesRange.Ptr()))
	}
	if diags.HasErrors() {
		return nil, nil, diags
	}
	return &PackageOp{opBase: base, Names: pb.Names, Absent: state == "absent", Manager: p.platformOf(ctx)}, nil, nil
}

// decodeUserOp decodes a user block.
func (p *Profile) decodeUserOp(b *hcl.Block, body hcl.Body, ctx *hcl.EvalContext, base opBase) (Op, []ref, hcl.Diagnostics) {
	var ub userBlock
	if d := decodeBody(body, ctx, &ub); d.HasErrors() {
		return nil, nil, d
	}
	u := &UserOp{opBase: base, Name: ub.Name, Home: str(ub.Home), Shell: str(ub.Shell), Groups: ub.Groups}
	if ub.System != nil {
		u.System = *ub.System
	}
	return u, nil, nil
}

// decodeCommandOp decodes a command block and its timeout.
func (p *Profile) decodeCommandOp(b *hcl.Block, body hcl.Body, ctx *hcl.EvalContext, base opBase) (Op, []ref, hcl.Diagnostics) {
	var cb commandBlock
	if d := decodeBody(body, ctx, &cb); d.HasErrors() {
		return nil, nil, d
	}
	to, d := base.marks.duration("timeout", cb.Timeout, 0, cb.TimeoutRange)
	if d.HasErrors() {
		return nil, nil, d
	}
	// bake decides what a machine image holds and its key: never a secret.
	if d := base.marks.refuse(base.id, []string{"bake"}, whyStructural); d.HasErrors() {
		return nil, nil, d
	}
	return &CommandOp{opBase: base, Run: cb.Run, Unless: str(cb.Unless), OnlyIf: str(cb.OnlyIf), Creates: str(cb.Creates), Stdin: str(cb.Stdin), Timeout: to,
		Bake: cb.Bake != nil && *cb.Bake}, nil, nil
}

// decodeServiceOp decodes a service block: state, on_notify, ready timeout, its own commands (start needs stop and status) and the ops whose changes reload or restart it.
func (p *Profile) decodeServiceOp(b *hcl.Block, body hcl.Body, ctx *hcl.EvalContext, base opBase) (Op, []ref, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var sb serviceBlock
	if d := decodeBody(body, ctx, &sb); d.HasErrors() {
		return nil, nil, d
	}
	state, d := oneOf("service state", sb.State, "running", []string{"running", "stopped"}, sb.StateRange)
	diags = append(diags, d...)
	onNotify, d := oneOf("on_notify", sb.OnNotify, "reload", []string{"reload", "restart"}, sb.OnNotifyRange)
	diags = append(diags, d...)
	rt, d := base.marks.duration("ready_timeout", sb.ReadyTimeout, 30*time.Second, sb.ReadyTimeoutRange)
	diags = append(diags, d...)
	diags = append(diags, base.marks.refuse(base.id, []string{"reload_on", "restart_on"}, whyStructural)...)
	if diags.HasErrors() {
		return nil, nil, diags
	}
	s := &ServiceOp{opBase: base, Name: sb.Name, State: state, Enabled: sb.Enabled, OnNotify: onNotify, ReadyTimeout: rt, Cmds: map[string]string{}}
	for k, v := range map[string]*string{"start": sb.Start, "stop": sb.Stop, "reload": sb.Reload, "restart": sb.Restart, "status": sb.Status, "ready": sb.Ready} {
		if v != nil {
			s.Cmds[k] = *v
		}
	}
	if (s.Cmds["start"] == "") != (s.Cmds["stop"] == "") || s.Cmds["start"] != "" && s.Cmds["status"] == "" {
		diags = append(diags, errDiag("Incomplete service commands", base.id+": a service with its own start command needs stop and status too (start without stop, or no status, cannot be checked or restarted).", b.DefRange.Ptr()))
		return nil, nil, diags
	}
	var refs []ref
	for _, to := range sb.ReloadOn {
		refs = append(refs, ref{from: base.id, to: to, attr: "reload_on", rng: sb.ReloadOnRange, action: "reload"})
	}
	for _, to := range sb.RestartOn {
		refs = append(refs, ref{from: base.id, to: to, attr: "restart_on", rng: sb.RestartOnRange, action: "restart"})
	}
	return s, refs, nil
}

func (p *Profile) platformOf(ctx *hcl.EvalContext) string {
	return ctx.Variables["platform"].GetAttr("package_manager").AsString()
}

func decodeCheck(b *hcl.Block, body hcl.Body, ctx *hcl.EvalContext) (*Check, hcl.Diagnostics) {
	var cb checkBlock
	if d := decodeBody(body, ctx, &cb); d.HasErrors() {
		return nil, d
	}
	var diags hcl.Diagnostics
	to, d := marksOf(b).duration("timeout", cb.Timeout, 10*time.Second, cb.TimeoutRange)
	diags = append(diags, d...)
	c := &Check{ID: "check." + b.Labels[0], Timeout: to, marks: marksOf(b)}
	if (cb.HTTP == nil) == (cb.Command == nil) {
		return nil, append(diags, errDiag("Invalid check", c.ID+": give exactly one http or command block.", b.DefRange.Ptr()))
	}
	if h := cb.HTTP; h != nil {
		proto, d := oneOf("protocol", h.Protocol, "h1", []string{"h1", "h2", "h2c"}, h.ProtocolRange)
		diags = append(diags, d...)
		u, err := parseURL(h.URL)
		if err != nil {
			diags = append(diags, errDiag("Invalid URL", err.Error(), h.URLRange.Ptr()))
		} else if proto == "h2" && u != "https" {
			diags = append(diags, errDiag("Invalid protocol", `protocol "h2" needs an https:// URL (use "h2c" for cleartext).`, h.ProtocolRange.Ptr()))
		}
		c.HTTP = &HTTPCheck{URL: h.URL, Method: or(str(h.Method), "GET"), Headers: h.Headers, Protocol: proto,
			ServerName: str(h.ServerName), ExpectStatus: 200, ExpectHeader: h.ExpectHeader, ExpectNoHeader: h.ExpectNoHeader,
			ExpectBodyRegex: str(h.ExpectBodyRegex), ExpectProtocol: str(h.ExpectProtocol)}
		if h.Insecure != nil {
			c.HTTP.Insecure = *h.Insecure
		}
		if h.ExpectStatus != nil {
			c.HTTP.ExpectStatus = *h.ExpectStatus
		}
		diags = append(diags, checkRegex(c.HTTP.ExpectBodyRegex, h.BodyRegexRange)...)
		for _, k := range slices.Sorted(maps.Keys(h.ExpectHeader)) {
			diags = append(diags, checkRegex(h.ExpectHeader[k], b.DefRange)...)
		}
	} else {
		c.Command = &CommandCheck{Run: cb.Command.Run, ExpectRegex: str(cb.Command.ExpectRegex)}
		if cb.Command.ExpectExit != nil {
			c.Command.ExpectExit = *cb.Command.ExpectExit
		}
		diags = append(diags, checkRegex(c.Command.ExpectRegex, cb.Command.RegexRange)...)
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return c, diags
}

func (p *Profile) renderTemplate(rel string, ctx *hcl.EvalContext, vars cty.Value, rng, varsRng hcl.Range, fm *fieldMarks) (string, hcl.Diagnostics) {
	expr, ok := p.templates[rel]
	if !ok {
		src, name, err := p.pfs.read(rel)
		if err != nil {
			return "", hcl.Diagnostics{errDiag("Cannot read template", err.Error(), rng.Ptr())}
		}
		// Registered with the parser so diagnostics show the template's lines.
		p.parser.AddFile(name, &hcl.File{Body: hcl.EmptyBody(), Bytes: src})
		if d := hcldiag.Check(name, src, hcldiag.Template); d != nil {
			return "", d
		}
		var diags hcl.Diagnostics
		expr, diags = hclsyntax.ParseTemplate(src, name, hcl.InitialPos)
		if diags.HasErrors() {
			return "", diags
		}
		p.templates[rel] = expr
	}
	child := ctx.NewChild()
	child.Variables = map[string]cty.Value{}
	var varsMarks cty.ValueMarks
	if vars != cty.NilVal {
		vars, varsMarks = vars.Unmark()
	}
	if vars != cty.NilVal && !vars.IsNull() {
		if !vars.Type().IsObjectType() && !vars.Type().IsMapType() {
			return "", hcl.Diagnostics{errDiag("Invalid vars", "vars must be an object such as { port = 8080 }.", varsRng.Ptr())}
		}
		for it := vars.ElementIterator(); it.Next(); {
			k, v := it.Element()
			switch name := k.AsString(); name {
			case "var", "local", "platform", "profile":
				return "", hcl.Diagnostics{errDiag("Reserved template variable", fmt.Sprintf("vars may not define %q: it would hide the profile's %s namespace.", name, name), varsRng.Ptr())}
			default:
				child.Variables[name] = v.WithMarks(varsMarks)
			}
		}
	}
	v, diags := expr.Value(child)
	if diags.HasErrors() {
		return "", diags
	}
	if fm != nil && v.ContainsMarked() {
		// The body as the plan shows it: the template's text, each
		// interpolation of a secret hidden.
		fm.record("content", expr, child, v)
	}
	s, err := toString(p.secrets.unmark(v))
	if err != nil {
		return "", hcl.Diagnostics{errDiag("Invalid template result", err.Error(), rng.Ptr())}
	}
	return s.AsString(), nil
}

// evalLocals evaluates every local in dependency order.
func (p *Profile) evalLocals(platform cty.Value) (map[string]cty.Value, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	attrs := map[string]*hcl.Attribute{}
	var names []string
	for _, b := range p.content.Blocks {
		if b.Type != "locals" {
			continue
		}
		as, d := b.Body.JustAttributes()
		diags = append(diags, d...)
		for n, a := range as {
			if prev, dup := attrs[n]; dup {
				diags = append(diags, errDiag("Duplicate local", fmt.Sprintf("local.%s was already defined at %s.", n, prev.NameRange), a.NameRange.Ptr()))
				continue
			}
			attrs[n] = a
			names = append(names, n)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := attrs[names[i]].Range, attrs[names[j]].Range
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Start.Byte < b.Start.Byte
	})
	vals := map[string]cty.Value{}
	done := map[string]bool{}
	for len(done) < len(names) {
		progress := false
		for _, n := range names {
			if done[n] {
				continue
			}
			ready := true
			for _, tr := range attrs[n].Expr.Variables() {
				if tr.RootName() != "local" || len(tr) < 2 {
					continue
				}
				if ta, ok := tr[1].(hcl.TraverseAttr); ok && attrs[ta.Name] != nil && !done[ta.Name] {
					ready = false
				}
			}
			if !ready {
				continue
			}
			v, d := attrs[n].Expr.Value(p.evalCtx(vals, platform))
			diags = append(diags, d...)
			if d.HasErrors() {
				v = cty.DynamicVal
			}
			vals[n], done[n], progress = v, true, true
		}
		if !progress {
			var cyc []string
			for _, n := range names {
				if !done[n] {
					cyc = append(cyc, "local."+n)
				}
			}
			a := attrs[strings.TrimPrefix(cyc[0], "local.")]
			return nil, append(diags, errDiag("Cycle in locals", "These locals refer to each other: "+strings.Join(cyc, ", ")+".", a.NameRange.Ptr()))
		}
	}
	return vals, diags
}

// redact hides sensitive values, every string computed from one and the
// userinfo of URLs in text shown in plans and recorded in host manifests.
func (r *Rendered) redact(s string) string { return redact.URLs(r.Profile.secrets.redact(s)) }

// Secrets are the strings output must not show: the sensitive variables'
// values and what the profile computed from them, longest first.
func (p *Profile) Secrets() []string { return p.secrets.list() }

// redactDiags hides the secrets in diags' summaries and details.
func (p *Profile) redactDiags(diags hcl.Diagnostics) hcl.Diagnostics {
	return hcldiag.Redact(diags, p.secrets.list())
}

// parseURL validates an http(s) URL and returns its scheme.
func parseURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("%q: %v", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("%q: want an http:// or https:// URL with a host", s)
	}
	return u.Scheme, nil
}

func checkRegex(re string, rng hcl.Range) hcl.Diagnostics {
	if re == "" {
		return nil
	}
	if _, err := regexp.Compile(re); err != nil {
		return hcl.Diagnostics{errDiag("Invalid regular expression", err.Error(), rng.Ptr())}
	}
	return nil
}
