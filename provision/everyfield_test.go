package provision

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hashicorp/hcl/v2"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/wptest/wptest/internal/golden"
	"github.com/zclconf/go-cty/cty"
)

// The every-field profile (testdata/sensitive/every-field.txtar) puts a
// sensitive value in every attribute a profile can hold, one block per
// attribute, read from the schema: the top-level blocks of rootSchema, the
// attributes and nested blocks of the struct each decodes into (their hcl
// tags), and the attributes every op, check and fact has (commonSchema,
// whenSchema). A new attribute is in it as soon as `go test -update`
// regenerates the file (TestEveryFieldProfileIsCurrent fails until then);
// one the generator has no value for fails the test until it gets one.
//
// "every/" is one profile with every attribute that takes a secret:
// TestSensitiveEveryField renders it and finds none of the secret's forms
// in plans, and "(sensitive)" in each block's part of the plan.
// "refused/NAME/" are profiles with one attribute that refuses a secret
// (the host manifest records it, or it decides which ops there are): each
// must fail with an error naming it, itself without the secret.

// The secrets: a password, and digits whose numbers are distinctive
// (tonumber(var.pin) % 1000 is 645: 10m45s as a duration; % 512 is 133,
// mode "0205").
const (
	efPW  = "hunter2-Secret"
	efPIN = "1234567645"
)

// efForms are what the secrets must never show as.
var efForms = []string{efPW, strings.ToUpper(efPW), strings.ToLower(efPW), "aHVudGVyMi1TZWNyZXQ", efPIN, "645", "10m45s", "0205"}

// efBlock is what the generator knows of one top-level block type: the
// struct its body decodes into, a body that is valid without secrets
// ("attr" or "nested.attr" -> expression), blocks it needs beside it,
// and whether the host manifest records it (every attribute refuses a
// secret).
type efBlock struct {
	body     any
	base     map[string]string
	needs    string
	recorded bool
}

const efSite = `site {
  docroot = "/srv/www"
  owner   = "u"
  group   = "g"
  php     = "php"
  rewrite = "server"
}
`

var efBlocks = map[string]efBlock{
	"file":          {body: fileBlock{}, base: map[string]string{"path": `"/srv/f"`, "content": `"x"`}},
	"directory":     {body: dirBlock{}, base: map[string]string{"path": `"/srv/d"`}},
	"link":          {body: linkBlock{}, base: map[string]string{"path": `"/srv/l"`, "target": `"/srv/t"`}},
	"package":       {body: packageBlock{}, base: map[string]string{"names": `["p"]`}},
	"user":          {body: userBlock{}, base: map[string]string{"name": `"u"`}},
	"command":       {body: commandBlock{}, base: map[string]string{"run": `"true"`}},
	"service":       {body: serviceBlock{}, base: map[string]string{"name": `"svc"`}},
	"check":         {body: checkBlock{}, base: map[string]string{"http.url": `"http://127.0.0.1/"`}},
	"fact":          {body: factBlock{}, base: map[string]string{"run": `"true"`, "expect_regex": `"^x$"`, "deviation": `"d %s"`}},
	"precondition":  {body: preconditionBlock{}, base: map[string]string{"condition": "false", "error_message": `"blocked"`}},
	"site":          {body: siteBlock{}, recorded: true},
	"site_refresh":  {body: refreshBlock{}, base: map[string]string{"run": `"true"`}, needs: efSite, recorded: true},
	"teardown":      {body: refreshBlock{}, base: map[string]string{"run": `"true"`}, recorded: true},
	"site_files":    {body: siteFilesBlock{}, base: map[string]string{"list": `"true"`, "remove": `"true"`}, needs: efSite, recorded: true},
	"process_group": {body: groupBlock{}, base: map[string]string{"exe": `["x"]`}, recorded: true},
	"watch":         {body: watchBlock{}, base: map[string]string{"paths": `["/etc/x.ini"]`}, recorded: true},
	"server": {body: serverBlock{}, base: map[string]string{"services": `["web"]`},
		needs: "service \"web\" {\n  name = \"web\"\n}\nfact \"f\" {\n  run = \"true\"\n}\n", recorded: true},
}

// efNotBlocks are the top-level blocks that hold no value from a variable
// a plan could show, and why.
var efNotBlocks = map[string]string{
	"profile":  "decoded without variables",
	"variable": "its validation's error_message is TestSensitiveDiagnostics'",
	"locals":   "shown only through what uses them",
	"platform": "its attributes are generated apart (one block per platform)",
}

// efOverride is an attribute's sensitive expression where the one for
// its type would not be valid, and the attributes it drops from the base
// or adds to it.
type efOverride struct {
	expr string
	drop []string
	add  map[string]string
}

const (
	efDuration = `"${tonumber(var.pin) % 1000}s"`
	efMode     = `format("0%o", tonumber(var.pin) % 512)`
	efRegex    = `"^${var.pw}$"`
)

var efOverrides = map[string]efOverride{
	"file.path":                    {expr: `"/srv/${var.pw}/f"`},
	"directory.path":               {expr: `"/srv/${var.pw}/d"`},
	"link.path":                    {expr: `"/srv/${var.pw}/l"`},
	"file.mode":                    {expr: efMode},
	"directory.mode":               {expr: efMode},
	"file.template":                {expr: `var.pw == "x" ? "templates/t.tmpl" : "templates/t2.tmpl"`, drop: []string{"content"}},
	"file.source":                  {expr: `var.pw == "x" ? "templates/t.tmpl" : "templates/t2.tmpl"`, drop: []string{"content"}},
	"file.vars":                    {expr: `{ pw = var.pw }`, drop: []string{"content"}, add: map[string]string{"template": `"templates/t.tmpl"`}},
	"command.timeout":              {expr: efDuration},
	"service.ready_timeout":        {expr: efDuration},
	"check.timeout":                {expr: efDuration},
	"package.state":                {expr: `var.pw == "x" ? "absent" : "present"`},
	"service.state":                {expr: `var.pw == "x" ? "stopped" : "running"`},
	"service.on_notify":            {expr: `var.pw == "x" ? "restart" : "reload"`},
	"service.start":                {add: map[string]string{"stop": `"true"`, "status": `"true"`}},
	"service.stop":                 {add: map[string]string{"start": `"true"`, "status": `"true"`}},
	"service.reload_on":            {expr: `[var.pw == "x" ? "command.x" : "service.svc"]`},
	"service.restart_on":           {expr: `[var.pw == "x" ? "command.x" : "service.svc"]`},
	"check.http.url":               {expr: `"http://127.0.0.1/${var.pw}/${tonumber(var.pin) % 1000}"`},
	"check.http.protocol":          {expr: `var.pw == "x" ? "h2c" : "h1"`},
	"check.http.expect_body_regex": {expr: efRegex},
	"check.http.expect_header":     {expr: `{ X = "^${var.pw}$", N = "^${tonumber(var.pin) % 1000}$" }`},
	"check.command.expect_regex":   {expr: efRegex},
	"fact.expect_regex":            {expr: efRegex},
	"site.docroot":                 {expr: `"/srv/${var.pw}"`},
	"site.rewrite":                 {expr: `var.pw == "x" ? "htaccess" : "server"`},
	"server.services":              {expr: `[var.pw == "x" ? "x" : "web"]`},
	"server.shows":                 {expr: `[var.pw == "x" ? "x" : "f"]`},
	"server.protocols":             {expr: `var.pw == "x" ? ["h2"] : ["h1"]`},
	"server.status.url":            {expr: `"http://127.0.0.1/${var.pw}"`, add: map[string]string{"status.format": `"apache"`}},
	"server.status.format":         {expr: `var.pw == "x" ? "x" : "apache"`, add: map[string]string{"status.url": `"http://127.0.0.1/s"`}},
	"when":                         {expr: `var.pw != "x"`},
	"depends_on":                   {expr: `[var.pw == "x" ? "command.x" : "command.run"]`},
	"notify":                       {expr: `[var.pw == "x" ? "x" : "svc"]`},
}

// efRefused are the attributes of blocks the host manifest does not record
// that still refuse a secret: they decide which ops there are.
var efRefused = []string{"when", "depends_on", "notify", "service.reload_on", "service.restart_on", "command.bake"}

// efNotShown are the attributes no plan shows at all (so no "(sensitive)"
// either), and why.
var efNotShown = map[string]string{
	"precondition.condition": "only whether the profile is blocked shows",
	"service.ready_timeout":  "how long apply waits for the service",
	"command.stdin":          `shown as "(given, not shown)" whatever it is`,
}

// efExpr is the sensitive expression for an attribute of Go type t.
func efExpr(t reflect.Type) (string, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeOf(cty.Value{}):
		return `{ k = var.pw, n = tonumber(var.pin) % 1000 }`, true
	case t.Kind() == reflect.String:
		return `"s-${var.pw}-${tonumber(var.pin) % 1000}"`, true
	case t.Kind() == reflect.Int:
		return `tonumber(var.pin) % 1000`, true
	case t.Kind() == reflect.Bool:
		return `var.pw == "x"`, true
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		return `["a", var.pw, "${tonumber(var.pin) % 1000}"]`, true
	case t.Kind() == reflect.Map && t.Elem().Kind() == reflect.String:
		return `{ k = var.pw, n = "${tonumber(var.pin) % 1000}", plain = "v" }`, true
	case t.Kind() == reflect.Map && t.Elem().Kind() == reflect.Int:
		return `{ http = tonumber(var.pin) % 1000 }`, true
	}
	return "", false
}

// efAttrs are the attributes of the struct body decodes into, by path
// ("url", "http.url"), with their Go types; nested blocks are walked.
func efAttrs(body reflect.Type, prefix string, out map[string]reflect.Type) {
	for i := range body.NumField() {
		f := body.Field(i)
		name, kind, _ := strings.Cut(f.Tag.Get("hcl"), ",")
		switch kind {
		case "", "optional":
			if name != "" {
				out[prefix+name] = f.Type
			}
		case "block":
			t := f.Type
			for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
				t = t.Elem()
			}
			efAttrs(t, prefix+name+".", out)
		}
	}
}

// efCase is one generated block: the attribute it sets to a secret.
type efCase struct {
	kind, attr string // block type; "attr" or "nested.attr"
	label      string
	refused    bool
	hcl        string
}

// efCases generates one block per attribute of every block type.
func efCases(t *testing.T) []efCase {
	labelled := map[string]bool{}
	for _, b := range rootSchema.Blocks {
		labelled[b.Type] = len(b.LabelNames) > 0
		if _, ok := efBlocks[b.Type]; !ok && efNotBlocks[b.Type] == "" {
			t.Errorf("block %q: neither generated (efBlocks) nor said why not (efNotBlocks)", b.Type)
		}
	}
	var cases []efCase
	for _, kind := range slices.Sorted(maps.Keys(efBlocks)) {
		bc := efBlocks[kind]
		attrs := map[string]reflect.Type{}
		efAttrs(reflect.TypeOf(bc.body), "", attrs)
		var common []string
		switch {
		case opKinds[kind]:
			common = schemaAttrs(commonSchema)
		case kind == "check" || kind == "fact" || kind == "site_refresh" || kind == "teardown" || kind == "site_files" || kind == "process_group" || kind == "watch":
			common = schemaAttrs(whenSchema)
		}
		for _, a := range common {
			attrs[a] = nil
		}
		base := bc.base
		if kind == "site" {
			base = efSiteBase()
		}
		for _, a := range slices.Sorted(maps.Keys(attrs)) {
			c := efCase{kind: kind, attr: a, refused: bc.recorded || slices.Contains(efRefused, a) || slices.Contains(efRefused, kind+"."+a)}
			if labelled[kind] {
				c.label = "a_" + strings.ReplaceAll(a, ".", "_")
			}
			ov, ok := efOverrides[kind+"."+a]
			if !ok {
				ov = efOverrides[a]
			}
			expr := ov.expr
			if expr == "" {
				e, ok := efExpr(attrs[a])
				if !ok {
					t.Errorf("%s.%s (%v): no sensitive expression for its type; add one to efOverrides", kind, a, attrs[a])
					continue
				}
				expr = e
			}
			body := maps.Clone(base)
			for _, d := range ov.drop {
				delete(body, d)
			}
			maps.Copy(body, ov.add)
			if kind == "check" && strings.HasPrefix(a, "command.") {
				delete(body, "http.url")
				body["command.run"] = `"true"`
			}
			body[a] = expr
			c.hcl = efHCL(kind, c.label, body)
			if c.refused {
				c.hcl = bc.needs + c.hcl
			}
			cases = append(cases, c)
		}
	}
	return cases
}

func efSiteBase() map[string]string {
	return map[string]string{"docroot": `"/srv/www"`, "owner": `"u"`, "group": `"g"`, "php": `"php"`, "rewrite": `"server"`}
}

// schemaAttrs are the attribute names of s.
func schemaAttrs(s *hcl.BodySchema) []string {
	var out []string
	for _, a := range s.Attributes {
		out = append(out, a.Name)
	}
	return out
}

// efHCL writes one block: attributes, then nested blocks, sorted.
func efHCL(kind, label string, body map[string]string) string {
	var b strings.Builder
	b.WriteString(kind)
	if label != "" {
		fmt.Fprintf(&b, " %q", label)
	}
	b.WriteString(" {\n")
	nested := map[string]map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(body)) {
		if n, a, ok := strings.Cut(k, "."); ok {
			if nested[n] == nil {
				nested[n] = map[string]string{}
			}
			nested[n][a] = body[k]
			continue
		}
		fmt.Fprintf(&b, "  %s = %s\n", k, body[k])
	}
	for _, n := range slices.Sorted(maps.Keys(nested)) {
		fmt.Fprintf(&b, "  %s {\n", n)
		for _, a := range slices.Sorted(maps.Keys(nested[n])) {
			fmt.Fprintf(&b, "    %s = %s\n", a, nested[n][a])
		}
		b.WriteString("  }\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// efHeader is the profile every generated one starts with: the
// variables, and a platform whose every attribute but package_manager
// (refused: "refused/platform.package_manager") comes from a secret.
const efHeader = `profile {
  description = "every field a profile holds, each from a sensitive value"
  platforms   = ["debian-12"]
}
variable "pw" {
  type      = string
  sensitive = true
}
variable "pin" {
  type      = string
  sensitive = true
}
`

// efRefusedByHand are the refusals the schema cannot say: where a field
// refuses a secret for what it is to another block (by case name, its
// last part the field the error names).
var efRefusedByHand = map[string]string{
	"platform.package_manager": "platform \"debian-12\" {\n  package_manager = var.pw == \"x\" ? \"dnf\" : \"apt\"\n}\n",
	// The server's services' commands are recorded in the host manifest.
	"server-service.stop": "platform \"debian-12\" {\n  package_manager = \"apt\"\n}\n" +
		"service \"web\" {\n  name   = \"web\"\n  start  = \"true\"\n  stop   = \"kill ${var.pw}\"\n  status = \"true\"\n}\nserver {\n  services = [\"web\"]\n}\n",
	// A file the profile writes in the docroot is listed there too.
	"docroot-file.path": "platform \"debian-12\" {\n  package_manager = \"apt\"\n}\n" + efSite +
		"file \"probe\" {\n  path    = \"/srv/www/${var.pw}.txt\"\n  content = \"x\"\n}\n",
	// How many blocks a dynamic block makes shows in every plan.
	"dynamic.for_each": "platform \"debian-12\" {\n  package_manager = \"apt\"\n}\n" +
		"dynamic \"command\" {\n  for_each = var.pw == \"x\" ? [\"a\"] : []\n  labels   = [\"c\"]\n  content {\n    run = \"true\"\n  }\n}\n",
}

// efPlatform is the platform block of "every/": each attribute from a
// secret, and an op that uses each (through platform.*, marks and all).
const efPlatform = `platform "debian-12" {
  package_manager = "apt"
  packages        = { k = "p-${var.pw}" }
  paths           = { k = "/srv/${var.pw}" }
  services        = { k = "s-${var.pw}" }
  values          = { k = var.pw, n = tonumber(var.pin) % 1000 }
  deviations      = ["d-${var.pw}", "n-${tonumber(var.pin) % 1000}"]
}
command "platform_uses" {
  run     = "${platform.packages.k} ${platform.paths.k} ${platform.services.k} ${platform.values.k} ${platform.values.n} ${join(",", platform.deviations)}"
  timeout = "${platform.values.n}s"
}
`

// efTemplates are the templates the file blocks name.
var efTemplates = map[string]string{
	"templates/t.tmpl":  "pw=${lower(pw)}\n",
	"templates/t2.tmpl": "pw=${var.pw}!\n",
}

// everyFieldArchive is the generated testdata.
func everyFieldArchive(t *testing.T) *txtar.Archive {
	a := &txtar.Archive{Comment: []byte("A sensitive value in every field a profile holds, generated from the schema by\n" +
		"provision/everyfield_test.go. Regenerate: go test ./provision -run TestEveryFieldProfileIsCurrent -update\n" +
		"every/: every field that takes a secret (the plan shows none of it);\n" +
		"refused/NAME/: one field that refuses a secret each (the error names it, without it).\n")}
	var every strings.Builder
	every.WriteString(efHeader + efPlatform)
	for _, c := range efCases(t) {
		if !c.refused {
			every.WriteString(c.hcl)
			continue
		}
		a.Files = append(a.Files, txtar.File{Name: "refused/" + c.kind + "." + c.attr + "/main.hcl",
			Data: []byte(efHeader + "platform \"debian-12\" {\n  package_manager = \"apt\"\n}\n" + c.hcl)})
	}
	for _, name := range slices.Sorted(maps.Keys(efRefusedByHand)) {
		a.Files = append(a.Files, txtar.File{Name: "refused/" + name + "/main.hcl", Data: []byte(efHeader + efRefusedByHand[name])})
	}
	a.Files = append(a.Files, txtar.File{Name: "every/main.hcl", Data: []byte(every.String())})
	for _, name := range slices.Sorted(maps.Keys(efTemplates)) {
		a.Files = append(a.Files, txtar.File{Name: "every/" + name, Data: []byte(efTemplates[name])})
	}
	sort.SliceStable(a.Files, func(i, j int) bool { return a.Files[i].Name < a.Files[j].Name })
	return a
}

// efArchivePath is where the generated profile is kept.
const efArchivePath = "testdata/sensitive/every-field.txtar"

// TestEveryFieldProfileIsCurrent: the every-field profile in testdata is
// what the schema makes of it now (a new attribute is in it once
// regenerated).
func TestEveryFieldProfileIsCurrent(t *testing.T) {
	golden.Archive(t, efArchivePath, everyFieldArchive(t))
}

// efLoad loads the profile in dir of the every-field archive with the
// secrets as -var.
func efLoad(t *testing.T, dir string) (*Profile, hcl.Diagnostics) {
	return efLoadWith(t, dir, efPW, efPIN)
}

// efLoadWith is efLoad with other secrets.
func efLoadWith(t *testing.T, dir, pw, pin string) (*Profile, hcl.Diagnostics) {
	t.Helper()
	a, err := txtar.ParseFile(efArchivePath)
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, f := range a.Files {
		fsys[f.Name] = &fstest.MapFile{Data: f.Data}
	}
	return Load(fsys, dir, Vars{Args: []string{"pw=" + pw, "pin=" + pin}})
}

// efShows fails t for each form of the secrets out shows.
func efShows(t *testing.T, what, out string) {
	t.Helper()
	for _, s := range efForms {
		if strings.Contains(out, s) {
			i := strings.Index(out, s)
			t.Errorf("%s shows %q: …%s…", what, s, out[max(0, i-200):min(len(out), i+100)])
		}
	}
}

// TestSensitiveEveryField: with a sensitive value in every field a profile
// holds, the offline plan (text and JSON) shows none of it, in any form
// (upper-cased, base64, through numbers: 645, a duration 10m45s, a mode
// 0205), and shows "(sensitive)" in the part of each block that came from
// it; each field that refuses a secret fails to load with an error that
// names it and shows none of it, nor its snippet.
func TestSensitiveEveryField(t *testing.T) {
	rep, txt, js := efPlan(t, efPW, efPIN)
	efShows(t, "text plan", txt)
	efShows(t, "JSON plan", js)
	// Nothing in the plan depends on the secrets at all (whatever form
	// they take): with others, it is the same, byte for byte.
	if _, txt2, js2 := efPlan(t, "s", "9876543210"); txt2 != txt || js2 != js {
		t.Errorf("the plan differs with other secrets:\n%s", firstLineDiff(txt, txt2))
	}
	for _, c := range efCases(t) {
		if c.refused || efNotShown[c.kind+"."+c.attr] != "" {
			continue
		}
		part := efPart(t, rep, c)
		if !strings.Contains(part, Redacted) {
			t.Errorf("%s.%s from a secret: its plan does not say %s: %s", c.kind, c.attr, Redacted, part)
		}
		efOnlyItself(t, rep, c)
	}
	if !strings.Contains(efPart(t, rep, efCase{kind: "command", label: "platform_uses"}), `"timeout":"(sensitive)`) {
		t.Errorf("a timeout from platform.values (a number from a secret) is not hidden")
	}
}

// efAlso are the other fields of an op's plan that a field from a secret
// hides too (what the op computes from it).
var efAlso = map[string][]string{
	"file.content":  {"sha256", "size"},
	"file.template": {"from", "content", "sha256", "size"},
	"file.source":   {"from"},
	"file.vars":     {"content", "sha256", "size"},
}

// efOnlyItself: an op's plan hides the field from a secret (and what is
// computed from it), and no other: a plan stays readable.
func efOnlyItself(t *testing.T, rep *Report, c efCase) {
	t.Helper()
	for _, o := range rep.Ops {
		if o.ID != c.kind+"."+c.label {
			continue
		}
		for k, v := range o.Spec {
			if k == c.attr || slices.Contains(efAlso[c.kind+"."+c.attr], k) {
				continue
			}
			if b, _ := json.Marshal(v); strings.Contains(string(b), Redacted) {
				t.Errorf("%s: %s from a secret hides %s too: %s", o.ID, c.attr, k, b)
			}
		}
	}
}

// efPlan is the offline plan of "every" with the secrets pw and pin: the
// report, its text and its JSON.
func efPlan(t *testing.T, pw, pin string) (*Report, string, string) {
	t.Helper()
	p, diags := efLoadWith(t, "every", pw, pin)
	if diags.HasErrors() {
		var b strings.Builder
		_ = WriteDiagnostics(&b, p.Files(), diags, false)
		t.Fatalf("every: %s", b.String())
	}
	r, diags := p.Render("debian-12")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	rep := r.Offline()
	var txt strings.Builder
	if err := rep.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	js, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return rep, txt.String(), string(js)
}

// firstLineDiff names the first line where a and b differ.
func firstLineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n  %s\n  %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines, %d lines", len(al), len(bl))
}

// efPart is what the plan shows of case c's block, as JSON.
func efPart(t *testing.T, rep *Report, c efCase) string {
	t.Helper()
	var part any
	switch c.kind {
	case "check":
		for _, cr := range rep.Checks {
			if cr.ID == "check."+c.label {
				part = cr
			}
		}
	case "fact":
		for _, f := range rep.DeviationRules {
			if f.ID == "fact."+c.label {
				part = f
			}
		}
	case "precondition":
		part = rep.Blocked
	default:
		for _, o := range rep.Ops {
			if o.ID == c.kind+"."+c.label {
				part = o
			}
		}
	}
	if part == nil {
		t.Errorf("%s.%s: its block is not in the plan", c.kind, c.label)
		return ""
	}
	b, _ := json.Marshal(part)
	return string(b)
}

// TestSensitiveRefused: each field that refuses a secret fails to load
// with an error naming it; the error, in HCL's text form (snippet and
// all) and compact, shows none of the secret.
func TestSensitiveRefused(t *testing.T) {
	a, err := txtar.ParseFile(efArchivePath)
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	for _, f := range a.Files {
		if d, ok := strings.CutPrefix(f.Name, "refused/"); ok {
			dirs[strings.Split(d, "/")[0]] = true
		}
	}
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		t.Run(d, func(t *testing.T) {
			p, diags := efLoad(t, "refused/"+d)
			if !diags.HasErrors() {
				t.Fatal("loaded")
			}
			attr := d[strings.LastIndex(d, ".")+1:]
			for _, compact := range []bool{false, true} {
				var b strings.Builder
				_ = WriteDiagnostics(&b, p.Files(), diags, compact)
				out := b.String()
				if !strings.Contains(out, "Sensitive value not allowed here") || !strings.Contains(out, attr) {
					t.Errorf("error does not refuse %s for the secret:\n%s", attr, out)
				}
				efShows(t, "error", out)
			}
		})
	}
}
