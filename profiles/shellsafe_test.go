package profiles_test

// Shell safety: a profile's "${var.x}" pastes text into scripts that root
// runs with /bin/sh, so every string a user, a -var-file or an experiment
// file gives must either be refused by the variable's validation or land in
// exactly one shell word. This test finds the variables itself (each
// profile's declared string and list(string) variables), gives each hostile
// values, renders every platform the profile declares, and parses every
// command and shell script with a real shell parser (mvdan.cc/sh).

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/wptest/wptest/cmd/wptest/cli"
	"github.com/wptest/wptest/internal/shellword"
	"github.com/wptest/wptest/profiles"
	"github.com/wptest/wptest/provision"
	"github.com/zclconf/go-cty/cty"
	"mvdan.cc/sh/v3/syntax"
)

// marker is in every hostile value: where it shows up in a parsed script
// is where the value went. No shipped profile says it.
const marker = "wptinj"

// payloads are the shell's special characters, each around the marker:
// quotes, substitutions, operators, separators, globs, tilde, comment.
var payloads = []string{
	"'; touch /tmp/" + marker + "; echo '",
	"';touch${IFS}/tmp/" + marker + ";'", // no space: a URL's shape
	"$(touch /tmp/" + marker + ")",
	"`touch /tmp/" + marker + "`",
	";" + marker + ";",
	"&& " + marker + " ||",
	"|" + marker + "&",
	">" + marker + "<",
	" " + marker + " ",
	"\n" + marker + "\n",
	"\t" + marker + "\r",
	"*" + marker + "?[ab]",
	"\"" + marker + "\"$" + marker + "${" + marker + "}",
	"$((1))" + marker + "$'\\x41'",
	"\\" + marker + "\\",
	"'\"'\"'" + marker,
	"~" + marker,
	"#" + marker,
	"<(" + marker + ")",
	"%{" + marker + "}${" + marker,
}

// prefixes put each payload after shapes validation rules often ask for
// (nothing, the default, an absolute path, an https URL), so a value that
// validation lets through is tried too.
func prefixes(def string) []string {
	out := []string{"", "/tmp/x", "https://example.org/"}
	if def != "" {
		out = append(out, def)
	}
	return out
}

// hostile lists -var values for v in HCL (so a list can be given too);
// nil for numbers and bools (parsed, never text) and for types it does not
// know (the test then fails: teach it the type).
func hostile(v *provision.Variable) []cty.Value {
	var out []cty.Value
	ty := v.Type
	switch {
	case ty == cty.String || ty == cty.DynamicPseudoType:
		def := ""
		if v.Value.Type() == cty.String && !v.Value.IsNull() {
			def = v.Value.AsString()
		}
		pres := prefixes(def)
		for i, pre := range pres {
			for j, p := range payloads {
				if testing.Short() && j%len(pres) != i {
					continue // -short: each payload once, the prefixes in turn
				}
				out = append(out, cty.StringVal(pre+p))
			}
		}
	case (ty.IsListType() || ty.IsSetType()) && ty.ElementType() == cty.String:
		var def []cty.Value
		if !v.Value.IsNull() && v.Value.LengthInt() > 0 {
			def = v.Value.AsValueSlice()
		}
		mk := cty.ListVal
		if ty.IsSetType() {
			mk = cty.SetVal
		}
		for j, p := range payloads {
			shapes := []cty.Value{mk([]cty.Value{cty.StringVal(p)}), mk(append(append([]cty.Value{}, def...), cty.StringVal(p)))}
			for i := range def {
				l := append([]cty.Value{}, def...)
				l[i] = cty.StringVal(l[i].AsString() + p)
				shapes = append(shapes, mk(l))
			}
			out = append(out, inTurn(j, shapes)...)
		}
	case ty.IsMapType() && ty.ElementType() == cty.String:
		def := map[string]cty.Value{}
		if !v.Value.IsNull() {
			for k, e := range v.Value.AsValueMap() {
				def[k] = e
			}
		}
		keys := make([]string, 0, len(def))
		for k := range def {
			keys = append(keys, k)
		}
		sort.Strings(keys) // -short picks by index: the same shapes every run
		for j, p := range payloads {
			shapes := []cty.Value{cty.MapVal(map[string]cty.Value{"k": cty.StringVal(p)}), cty.MapVal(map[string]cty.Value{p: cty.StringVal("v")})}
			for _, k := range keys {
				m := map[string]cty.Value{}
				for k2, e2 := range def {
					m[k2] = e2
				}
				m[k] = cty.StringVal(def[k].AsString() + p)
				shapes = append(shapes, cty.MapVal(m))
			}
			out = append(out, inTurn(j, shapes)...)
		}
	}
	return out
}

// inTurn is every shape of payload j's value, or under -short one of them,
// the shapes taken in turn: every payload is still tried, and every shape
// (there are fewer than payloads), in a quarter or so of the pairs (the
// full product takes a minute of CPU).
func inTurn(j int, shapes []cty.Value) []cty.Value {
	if testing.Short() {
		return shapes[j%len(shapes) : j%len(shapes)+1]
	}
	return shapes
}

// attackable: the test gives v hostile values, or v cannot hold text.
func attackable(v *provision.Variable) bool {
	return v.Type == cty.Number || v.Type == cty.Bool || len(hostile(v)) > 0
}

func TestShellSafeVariables(t *testing.T) {
	for _, name := range profiles.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base, diags := provision.Load(profiles.FS, name, provision.Vars{})
			if diags.HasErrors() {
				t.Fatalf("load: %v", diags)
			}
			if len(base.Platforms) == 0 {
				t.Fatal("no platforms")
			}
			parsesAsIs(t, base)
			tried := 0
			for _, v := range base.Variables {
				values := hostile(v)
				if !attackable(v) {
					t.Errorf("var.%s is a %s: the test cannot give it hostile values (teach hostile() the type)", v.Name, v.Type.FriendlyName())
				}
				if len(values) > 0 {
					tried++
				}
				accepted, inScript, viaCLI := 0, 0, false
				for _, val := range values {
					ok, seen := checkValue(t, name, v.Name, val, base.Platforms)
					if ok {
						accepted++
					}
					if seen {
						inScript++
					}
					if !ok && !viaCLI { // the refusal as a user meets it
						viaCLI = true
						planRefuses(t, name, base.Platforms[0], v.Name, val)
					}
				}
				if len(values) > 0 {
					t.Logf("var.%s: %d hostile values: %d refused by validation, %d rendered (%d of them into a script, one word each)", v.Name, len(values), len(values)-accepted, accepted, inScript)
				}
			}
			if tried == 0 {
				t.Fatal("no string variable found: the test would check nothing")
			}
		})
	}
}

// parsesAsIs: with its defaults, every script of every platform parses.
func parsesAsIs(t *testing.T, p *provision.Profile) {
	t.Helper()
	for _, plat := range p.Platforms {
		r, diags := p.Render(plat)
		if diags.HasErrors() {
			t.Fatalf("render %s: %v", plat, diags)
		}
		for _, s := range scripts(r) {
			if _, err := syntax.NewParser(syntax.Variant(s.lang)).Parse(strings.NewReader(s.text), ""); err != nil {
				t.Errorf("%s on %s: %s does not parse: %v", p.Name, plat, s.where, err)
			}
		}
	}
}

// varArg is the -var argument for val: a string as it is, else HCL.
func varArg(name string, val cty.Value) string {
	if val.Type() == cty.String {
		return name + "=" + val.AsString()
	}
	return name + "=" + string(hclwrite.TokensForValue(val).Bytes())
}

// planRefuses runs `wptest plan` in-process with the refused value: exit
// 2, the variable named, nothing on stdout.
func planRefuses(t *testing.T, name, plat, varName string, val cty.Value) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), &cli.App{Args: []string{"plan", "--profile", name, "--platform", plat, "--compact-errors", "-var", varArg(varName, val)},
		Stdout: &out, Stderr: &errb, WorkDir: t.TempDir()})
	if code != 2 || !strings.Contains(errb.String(), "var."+varName) || out.Len() > 0 {
		t.Errorf("wptest plan --profile %s -var %q: exit %d, want 2 naming var.%s and printing no plan\nstdout: %s\nstderr: %s", name, varArg(varName, val), code, varName, out.String(), errb.String())
	}
}

// checkValue loads profile name with var.varName = val and, when its
// validation accepts it, renders every platform and checks every script.
// It reports whether the value was accepted, and whether it reached a script.
func checkValue(t *testing.T, name, varName string, val cty.Value, platforms []string) (accepted, seen bool) {
	t.Helper()
	p, diags := provision.Load(profiles.FS, name, provision.Vars{Args: []string{varArg(varName, val)}})
	if diags.HasErrors() {
		var b bytes.Buffer
		if p != nil {
			_ = provision.WriteDiagnostics(&b, p.Files(), diags, true)
		}
		msg := b.String() + diags.Error()
		if !strings.Contains(msg, "var."+varName) || !strings.Contains(msg, "validation rule") {
			t.Errorf("var.%s = %#v: refused, but not by a validation rule of var.%s:\n%s", varName, val, varName, msg)
		}
		return false, false
	}
	for _, plat := range platforms {
		r, diags := p.Render(plat)
		if diags.HasErrors() {
			t.Errorf("var.%s = %#v accepted, but %s does not render: %v", varName, val, plat, diags)
			continue
		}
		for _, s := range scripts(r) {
			seen = seen || strings.Contains(s.text, marker)
			for _, w := range wordsOf(val) {
				if err := shellword.Check(s.text, s.lang, w, marker); err != nil {
					t.Errorf("%s on %s, var.%s = %#v: %s: %v", name, plat, varName, val, s.where, err)
				}
			}
		}
	}
	return true, seen
}

// wordsOf: the strings that must each stay one word (a list's or a
// map's elements, a map's keys, that hold the marker).
func wordsOf(v cty.Value) []string {
	if v.Type() == cty.String {
		return []string{v.AsString()}
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		for _, x := range []cty.Value{k, e} {
			if x.Type() == cty.String && strings.Contains(x.AsString(), marker) {
				out = append(out, x.AsString())
			}
		}
	}
	return out
}

type shellScript struct {
	where, text string
	lang        syntax.LangVariant
}

// scripts is every piece of shell a rendered profile makes: what command
// ops run and their guards, services' commands, command checks, facts,
// site_refresh, site_files' list and remove, teardown, and every file whose first line starts a POSIX shell or
// bash (a template rendered into a script).
func scripts(r *provision.Rendered) []shellScript {
	var out []shellScript
	add := func(where, s string) {
		if s != "" {
			out = append(out, shellScript{where, s, syntax.LangPOSIX})
		}
	}
	for _, op := range r.Ops {
		switch o := op.(type) {
		case *provision.CommandOp:
			add(o.ID()+" run", o.Run)
			add(o.ID()+" unless", o.Unless)
			add(o.ID()+" only_if", o.OnlyIf)
		case *provision.ServiceOp:
			for k, c := range o.Cmds {
				add(o.ID()+" "+k, c)
			}
		case *provision.FileOp:
			if lang, ok := shebang(o.Body); ok {
				out = append(out, shellScript{o.ID() + " (" + o.Path + ")", string(o.Body), lang})
			}
		}
	}
	for _, c := range r.Checks {
		if c.Command != nil {
			add("check."+c.ID, c.Command.Run)
		}
	}
	for _, f := range r.Facts {
		add("fact."+f.ID, f.Run)
	}
	if r.Site != nil {
		for i, c := range r.Site.Refresh {
			add(fmt.Sprintf("site_refresh %d", i), c)
		}
		for _, m := range r.Site.Made {
			add("site_files "+m.Name+" list", m.List)
			add("site_files "+m.Name+" remove", m.Remove)
		}
	}
	for i, c := range r.Teardown {
		add(fmt.Sprintf("teardown %d", i), c)
	}
	if r.Server != nil {
		for _, s := range r.Server.Services {
			add("server "+s.Label+" restart", s.Restart)
			add("server "+s.Label+" stop", s.Stop)
			add("server "+s.Label+" status", s.Status)
		}
	}
	return out
}

// shebang says whether body is a shell script, and in which language.
func shebang(body []byte) (syntax.LangVariant, bool) {
	line, _, _ := bytes.Cut(body, []byte("\n"))
	f := strings.Fields(strings.TrimPrefix(string(line), "#!"))
	if !bytes.HasPrefix(body, []byte("#!")) || len(f) == 0 {
		return 0, false
	}
	interp := path.Base(f[0])
	if interp == "env" && len(f) > 1 {
		interp = f[1]
	}
	switch interp {
	case "sh", "dash":
		return syntax.LangPOSIX, true
	case "bash":
		return syntax.LangBash, true
	}
	return 0, false
}
