package provision

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"
)

const secretPW = "hunter2-Secret"

// secretProfile is a profile with a sensitive variable pw whose value is
// used as body; vars carries any extra -var.
func secretProfile(body string) fstest.MapFS {
	return fstest.MapFS{
		"p/main.hcl": {Data: []byte(`
profile {
  description = "s"
  platforms   = ["debian-12"]
}
platform "debian-12" {
  package_manager = "apt"
}
variable "pw" {
  type      = string
  sensitive = true
}
variable "n" {
  type    = string
  default = "nope"
}
` + body)},
		"p/templates/t.tmpl":  {Data: []byte("pw=${lower(pw)}\n")},
		"p/templates/t2.tmpl": {Data: []byte("pw=${var.pw}!\n")},
	}
}

// TestSensitiveThroughFunctions: a value computed from a sensitive
// variable (a function, a template, a local, a template file) is hidden in
// the text and JSON plans, while the op keeps the real value for the host.
func TestSensitiveThroughFunctions(t *testing.T) {
	transforms := []string{secretPW, strings.ToUpper(secretPW), strings.ToLower(secretPW),
		base64.StdEncoding.EncodeToString([]byte(secretPW)), secretPW + "x", "unter2-Secret"}
	for _, tc := range []struct {
		name, body string
		real       string // what the host gets, in the op's command or body
	}{
		{"upper", `command "c" { run = "echo ${upper(var.pw)} > /tmp/f" }`, "echo " + strings.ToUpper(secretPW) + " > /tmp/f"},
		{"base64encode", `command "c" { run = "echo ${base64encode(var.pw)} | x" }`, "echo " + base64.StdEncoding.EncodeToString([]byte(secretPW)) + " | x"},
		{"template", `command "c" { run = "${var.pw}x" }`, secretPW + "x"},
		{"local", "locals { u = trimprefix(var.pw, \"h\") }\ncommand \"c\" { run = \"use ${local.u}\" }", "use unter2-Secret"},
		{"unless", `command "c" {
  run    = "true"
  unless = "test ${upper(var.pw)} = x"
}`, "true"},
		{"file content", `file "f" {
  path    = "/x/f"
  content = "k=${upper(var.pw)}\n"
}`, "k=" + strings.ToUpper(secretPW) + "\n"},
		{"template vars", `file "f" {
  path     = "/x/f"
  template = "templates/t.tmpl"
  vars     = { pw = var.pw }
}`, "pw=" + strings.ToLower(secretPW) + "\n"},
		{"templatefile", `file "f" {
  path    = "/x/f"
  content = templatefile("templates/t2.tmpl", { var = { pw = upper(var.pw) } })
}`, "pw=" + strings.ToUpper(secretPW) + "!\n"},
		{"operator", `command "c" { run = var.pw == "x" ? "yes-one" : "no-other" }`, "no-other"},
		{"check url", `command "c" { run = "true" }
check "h" {
  http { url = "http://u:${upper(var.pw)}@127.0.0.1/" }
}`, "true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, diags := Load(secretProfile(tc.body), "p", Vars{Args: []string{"pw=" + secretPW}})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			r, diags := p.Render("debian-12")
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			switch op := r.Ops[0].(type) {
			case *CommandOp:
				if op.Run != tc.real {
					t.Errorf("host gets %q, want %q", op.Run, tc.real)
				}
			case *FileOp:
				if string(op.Body) != tc.real {
					t.Errorf("host gets %q, want %q", op.Body, tc.real)
				}
			}
			var txt bytes.Buffer
			if err := r.Offline().WriteText(&txt); err != nil {
				t.Fatal(err)
			}
			js, err := json.Marshal(r.Offline())
			if err != nil {
				t.Fatal(err)
			}
			for what, out := range map[string]string{"text": txt.String(), "json": string(js)} {
				for _, s := range transforms {
					if strings.Contains(out, s) {
						t.Errorf("%s plan shows %q:\n%s", what, s, out)
					}
				}
				if tc.name == "operator" && strings.Contains(out, "no-other") {
					t.Errorf("%s plan shows a value chosen by the secret:\n%s", what, out)
				}
				if !strings.Contains(out, Redacted) {
					t.Errorf("%s plan does not say %s:\n%s", what, Redacted, out)
				}
			}
		})
	}
}

// TestSensitiveDiagnostics: an error about a value computed from a
// sensitive variable (a failing function call, a validation message, a bad
// -var) names it without its value, in HCL's text form and compact.
func TestSensitiveDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		args       []string
		forms      []string // more forms of the secret the errors must not show
	}{
		{"function error", `command "c" { run = base64decode(var.pw) }`, nil, nil},
		{"tonumber", `command "c" { run = "x${tonumber(var.pw)}" }`, nil, nil},
		{"wrong type", `command "c" { run = [upper(var.pw)] }`, nil, nil},
		{"index", `command "c" { run = { a = upper(var.pw) }[var.n] }`, nil, nil},
		{"validation message", `command "c" { run = "true" }`, nil, nil},
		// A value of the attribute quoted by wptest's own check: the
		// attribute's secrets are hidden there, however short.
		{"bad mode", `file "f" {
  path    = "/x"
  content = "x"
  mode    = substr(var.pw, 0, 3)
}`, nil, []string{`"hun"`, "(sensitive)644"}},
		{"bad duration", `command "c" {
  run     = "true"
  timeout = "${substr(var.pw, 0, 2)}s"
}`, nil, []string{`"hus"`}},
		{"bad regex", `check "h" {
  command {
    run          = "true"
    expect_regex = "(${substr(var.pw, 0, 3)}"
  }
}`, nil, []string{"hun"}},
		{"unknown depends_on", `command "c" {
  run        = "true"
  depends_on = [substr(var.pw, 0, 3)]
}`, nil, []string{`"hun"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := secretProfile(tc.body)
			if tc.name == "validation message" {
				m := fsys["p/main.hcl"]
				m.Data = bytes.Replace(m.Data, []byte("sensitive = true\n"), []byte(`sensitive = true
  validation {
    condition     = var.pw == "short"
    error_message = "${upper(var.pw)} and ${var.pw} are too long; ${substr(var.pw, 0, 3)} starts it."
  }
`), 1)
				tc.forms = []string{"hun starts"}
			}
			p, diags := Load(fsys, "p", Vars{Args: append([]string{"pw=" + secretPW}, tc.args...)})
			if !diags.HasErrors() {
				t.Fatal("want an error")
			}
			for _, compact := range []bool{false, true} {
				var b bytes.Buffer
				if err := WriteDiagnostics(&b, p.Files(), diags, compact); err != nil {
					t.Fatal(err)
				}
				out := b.String()
				for _, s := range append([]string{secretPW, strings.ToUpper(secretPW)}, tc.forms...) {
					if strings.Contains(out, s) {
						t.Errorf("compact=%v: diagnostics show %q:\n%s", compact, s, out)
					}
				}
				if !strings.Contains(out, "main.hcl") {
					t.Errorf("compact=%v: diagnostics do not name the file:\n%s", compact, out)
				}
			}
		})
	}
	// A non-string -var for a sensitive variable: the message leaves the
	// value out.
	fsys := secretProfile(`command "c" { run = "true" }`)
	m := fsys["p/main.hcl"]
	m.Data = bytes.Replace(m.Data, []byte("type      = string\n  sensitive"), []byte("type      = number\n  sensitive"), 1)
	_, diags := Load(fsys, "p", Vars{Args: []string{"pw=" + secretPW}})
	if !diags.HasErrors() || strings.Contains(diags.Error(), secretPW) {
		t.Errorf("bad -var for a sensitive number: %v", diags)
	}
}

// TestPlanHidesURLUserinfo: a non-sensitive variable holding a URL with a
// password (a download source) reaches the host whole, while the plan's
// ops and variables show it without the userinfo.
func TestPlanHidesURLUserinfo(t *testing.T) {
	src := "https://dl:" + secretPW + "@mirror.example/x.tar.gz"
	p, diags := Load(secretProfile(`variable "src" {
  type    = string
  default = ""
}
command "c" { run = "curl -fsS -o /tmp/x ${shellquote(var.src)}" }`), "p", Vars{Args: []string{"pw=other-secret-value", "src=" + src}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	r, diags := p.Render("debian-12")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := r.Ops[0].(*CommandOp).Run; !strings.Contains(got, src) {
		t.Errorf("host gets %q", got)
	}
	var txt bytes.Buffer
	if err := r.Offline().WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(r.Offline())
	for what, out := range map[string]string{"text": txt.String(), "json": string(js)} {
		if strings.Contains(out, secretPW) || strings.Contains(out, "dl:") || !strings.Contains(out, "https://(sensitive)@mirror.example/x.tar.gz") {
			t.Errorf("%s plan:\n%s", what, out)
		}
	}
}

// TestShortSecretKeepsItsMarker: a secret of one character (a derived
// substr(var.pw, 0, 1), or the value itself) hides the fields it is in
// and nothing else: the word "(sensitive)" is never redacted itself, the
// plan does not grow with it, and it is the same whichever letter the
// secret starts with ("s" is one of the marker's own).
func TestShortSecretKeepsItsMarker(t *testing.T) {
	body := `locals {
  c = substr(var.pw, 0, 1)
}
command "c" {
  run     = "echo ${local.c} ${upper(local.c)} sensitive"
  timeout = "${length(split("", local.c))}s"
}
file "f" {
  path    = "/x/${local.c}"
  content = "k=${local.c}\nsensitive (sensitive) s\n"
}
check "h" {
  command {
    run          = "echo s"
    expect_regex = "^${local.c}$"
  }
}
fact "v" {
  run          = "echo ${local.c}"
  expect_regex = "^${local.c}"
  deviation    = "not ${local.c}: %s"
}
`
	plan := func(pw string) string {
		p, diags := Load(secretProfile(body), "p", Vars{Args: []string{"pw=" + pw}})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		r, diags := p.Render("debian-12")
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		var b bytes.Buffer
		if err := r.Offline().WriteText(&b); err != nil {
			t.Fatal(err)
		}
		js, _ := json.Marshal(r.Offline())
		return b.String() + string(js)
	}
	s, q := plan("s"), plan("Qx")
	if s != q {
		t.Errorf("the plan depends on the secret's first letter:\n%s\n---\n%s", s, q)
	}
	for _, bad := range []string{"(s(sensitive)", "(sensitive)en", "e(sensitive)", "((sensitive)"} {
		if strings.Contains(s, bad) {
			t.Errorf("the marker was redacted itself (%q):\n%s", bad, s)
		}
	}
	if !strings.Contains(s, "sensitive (sensitive) s") || !strings.Contains(s, `"echo (sensitive) (sensitive) sensitive"`) {
		t.Errorf("the plan hides what did not come from the secret, or not what did:\n%s", s)
	}
}

// TestSensitiveVarFileSnippet: an error about a sensitive variable's value
// given in a -var-file (or its default) shows the line it is on, and
// asterisks where the value is.
func TestSensitiveVarFileSnippet(t *testing.T) {
	fsys := secretProfile(`command "c" { run = "true" }`)
	m := fsys["p/main.hcl"]
	m.Data = bytes.Replace(m.Data, []byte("sensitive = true\n"), []byte(`sensitive = true
  validation {
    condition     = var.pw == "short"
    error_message = "Too long."
  }
`), 1)
	vf := VarFile{Name: "secrets.hcl", Src: []byte("n  = \"ok\"\npw = \"" + secretPW + "\" # the password\n")}
	p, diags := Load(fsys, "p", Vars{Files: []VarFile{vf}})
	if !diags.HasErrors() {
		t.Fatal("want an error")
	}
	var b bytes.Buffer
	if err := WriteDiagnostics(&b, p.Files(), diags, false); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, secretPW) || !strings.Contains(out, `pw = ****************`) || !strings.Contains(out, "secrets.hcl") || !strings.Contains(out, "# the password") {
		t.Errorf("snippet:\n%s", out)
	}
}

// TestSensitiveKeysAndShapes: a map whose keys come from a secret, or a
// list whose length does, shows as one "(sensitive)", keys and all
// (platform.* too).
func TestSensitiveKeysAndShapes(t *testing.T) {
	fsys := secretProfile(`check "h" {
  http {
    url           = "http://127.0.0.1/"
    headers       = { (var.pw) = "x" }
    expect_header = { (upper(var.pw)) = "y" }
  }
}
command "keys" {
  run = join(",", keys(platform.values))
}
package "p" {
  names = split("-", var.pw)
}
`)
	m := fsys["p/main.hcl"]
	m.Data = bytes.Replace(m.Data, []byte(`package_manager = "apt"`), []byte(`package_manager = "apt"
  values          = { (var.pw) = "v" }`), 1)
	p, diags := Load(fsys, "p", Vars{Args: []string{"pw=" + secretPW}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	r, diags := p.Render("debian-12")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	js, _ := json.Marshal(r.Offline())
	for _, s := range []string{secretPW, strings.ToUpper(secretPW), `"hunter2"`, `"Secret"`} {
		if strings.Contains(string(js), s) {
			t.Errorf("plan shows %q:\n%s", s, js)
		}
	}
	for _, want := range []string{`"headers":"(sensitive)"`, `"expect_header":"(sensitive)"`, `"run":"(sensitive)"`, `"names":"(sensitive)"`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("plan does not show %s:\n%s", want, js)
		}
	}
}
