package provision

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/zclconf/go-cty/cty"
)

// TestFunctionsAndWhen: the deterministic functions work, file/templatefile
// read inside the profile, when = false removes an op on one platform, and
// clock/random/environment functions do not exist.
func TestFunctionsAndWhen(t *testing.T) {
	fsys := fstest.MapFS{
		"p/main.hcl": {Data: []byte(`
profile {
  description = "f"
  platforms   = ["debian-12", "almalinux-9"]
}
platform "debian-12" {
  package_manager = "apt"
}
platform "almalinux-9" {
  package_manager = "dnf"
}
file "a" {
  path    = "/x/a"
  content = join(",", [sha256("x"), base64encode("hi"), upper(file("templates/raw.txt")), jsonencode({ k = [1, 2] }), tostring(max(3, 7)), format("%03d", 7)])
}
file "b" {
  path    = "/x/b"
  content = templatefile("templates/t.tmpl", { names = ["a", "b"] })
  when    = platform.name == "debian-12"
}
`)},
		"p/templates/raw.txt": {Data: []byte("raw")},
		"p/templates/t.tmpl":  {Data: []byte("%{ for n in names }[${n}]%{ endfor }")},
	}
	p, diags := Load(fsys, "p", Vars{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	deb, _ := p.Render("debian-12")
	alma, _ := p.Render("almalinux-9")
	if len(deb.Ops) != 2 || len(alma.Ops) != 1 {
		t.Fatalf("ops: debian %d, alma %d", len(deb.Ops), len(alma.Ops))
	}
	want := "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881,aGk=,RAW,{\"k\":[1,2]},7,007"
	if got := string(deb.Ops[0].(*FileOp).Body); got != want {
		t.Errorf("a = %q\nwant %q", got, want)
	}
	if got := string(deb.Ops[1].(*FileOp).Body); got != "[a][b]" {
		t.Errorf("b = %q", got)
	}

	for _, fn := range []string{"timestamp()", "uuid()", `env("HOME")`} {
		bad := fstest.MapFS{"p/main.hcl": {Data: []byte(`
profile {
  description = "f"
  platforms   = ["debian-12"]
}
platform "debian-12" {
  package_manager = "apt"
}
file "a" {
  path    = "/x/a"
  content = ` + fn + `
}
`)}}
		_, diags := Load(bad, "p", Vars{})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), "no function named") && !strings.Contains(diags.Error(), "unknown function") {
			t.Errorf("%s: %v", fn, diags)
		}
	}
}

// TestShellQuote: shellquote gives one word for any string (bare only when
// every character is inert), shelljoin one word per element; a NUL byte
// and a null element are errors, and a sensitive argument stays marked.
func TestShellQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "''"},
		{"https://example.org/a-b_c.d?x", "'https://example.org/a-b_c.d?x'"},
		{"/usr/lib/wptest/x.c", "/usr/lib/wptest/x.c"},
		{"a b", "'a b'"},
		{"it's", `'it'\''s'`},
		{"'; touch /tmp/PWNED; echo '", `''\''; touch /tmp/PWNED; echo '\'''`},
		{"$(id)`id`\n*", "'$(id)`id`\n*'"},
		{"~root", "'~root'"},
	} {
		v, err := shellQuoteFunc.Call([]cty.Value{cty.StringVal(c.in)})
		if err != nil || v.AsString() != c.want {
			t.Errorf("shellquote(%q) = %#v, %v; want %s", c.in, v, err, c.want)
		}
	}
	if _, err := shellQuoteFunc.Call([]cty.Value{cty.StringVal("a\x00b")}); err == nil || !strings.Contains(err.Error(), "NUL") {
		t.Errorf("NUL: %v", err)
	}
	v, err := shellJoinFunc.Call([]cty.Value{cty.ListVal([]cty.Value{cty.StringVal("/usr/bin/x"), cty.StringVal("a b"), cty.StringVal("")})})
	if err != nil || v.AsString() != "/usr/bin/x 'a b' ''" {
		t.Errorf("shelljoin = %#v, %v", v, err)
	}
	if _, err := shellJoinFunc.Call([]cty.Value{cty.ListVal([]cty.Value{cty.StringVal("x"), cty.NullVal(cty.String)})}); err == nil {
		t.Error("shelljoin with a null element: no error")
	}
	v, err = shellQuoteFunc.Call([]cty.Value{cty.StringVal("pw").Mark("sensitive")})
	if err != nil || !v.HasMark("sensitive") {
		t.Errorf("marked argument: %#v, %v", v, err)
	}
}
