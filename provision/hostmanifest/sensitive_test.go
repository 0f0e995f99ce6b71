package hostmanifest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/provision"
)

const (
	secretPW  = "hunter2-Secret"
	secretPIN = "1234567645" // % 1000: 645, a duration of 10m45s; % 512: mode 0205
)

var hexHash = regexp.MustCompile(`(sha256:)?[0-9a-f]{64}`)

// secretForms are what a host manifest (and the report and progress it is
// made from) must never show of the secrets.
var secretForms = []string{secretPW, strings.ToUpper(secretPW), secretPIN, "645", "10m45s", "0205", "hun"}

func noSecrets(t *testing.T, what, out string) {
	t.Helper()
	// The test's temporary directory has random digits in its name (one
	// held "…726453…", read as 645): its path is no form of a secret.
	out = strings.ReplaceAll(out, filepath.Dir(t.TempDir()), "$TMP")
	// A profile's hash covers that path too, so its hex digits are as
	// random (one held "…a4645…"): a hash is no form of a secret either.
	out = hexHash.ReplaceAllString(out, "${1}HASH")
	for _, s := range secretForms {
		if i := strings.Index(out, s); i >= 0 {
			t.Errorf("%s shows %q: …%s…", what, s, out[max(0, i-150):min(len(out), i+80)])
		}
	}
}

// manifestText is m in its file form and as `wptest status` prints it.
func manifestText(t *testing.T, m *Manifest) string {
	t.Helper()
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var txt bytes.Buffer
	m.WriteText(&txt)
	return string(b) + txt.String()
}

// TestManifestEveryField: the host manifest made from the plan of the
// profile with a sensitive value in every field (provision's generated
// testdata) shows none of it.
func TestManifestEveryField(t *testing.T) {
	a, err := txtar.ParseFile("../testdata/sensitive/every-field.txtar")
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, f := range a.Files {
		fsys[f.Name] = &fstest.MapFile{Data: f.Data}
	}
	p, diags := provision.Load(fsys, "every", provision.Vars{Args: []string{"pw=" + secretPW, "pin=" + secretPIN}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	r, diags := p.Render("debian-12")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	noSecrets(t, "host manifest", manifestText(t, FromReport(r.Offline(), "wptest test", "")))
}

// TestSensitiveApplyLocal: an apply (on this machine, in a temporary
// directory) whose ops, checks and facts use secrets, and whose commands
// print them: its progress, report, error and host manifest show none of
// them, in any form, through numbers included; what the host got is the
// real value.
func TestSensitiveApplyLocal(t *testing.T) {
	dir := t.TempDir()
	body := fmt.Sprintf(`
file "f" {
  path    = "%[1]s/f"
  content = "k=${var.pw}\n"
  mode    = format("0%%o", tonumber(var.pin) %% 512)
}
command "w" {
  run     = "printf %%s ${shellquote(var.pw)} > %[1]s/out; echo ${upper(var.pw)} >&2"
  timeout = "${tonumber(var.pin) %% 1000}s"
  creates = "%[1]s/out"
}
fact "f" {
  run          = "cat %[1]s/out"
  expect_regex = "^nomatch-${substr(var.pw, 0, 3)}$"
  deviation    = "got %%s, not ${var.pw}"
}
`, dir)
	rep, events, err := applyLocal(t, body)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := readFile(dir + "/out"); got != secretPW {
		t.Errorf("the host got %q, want the real value", got)
	}
	m := FromReport(rep, "wptest test", "")
	showsNone(t, rep, events, nil, m)
	if len(m.Deviations) != 1 || m.Deviations[0] != "got (sensitive), not (sensitive)" {
		t.Errorf("deviations %q", m.Deviations)
	}

	// Checks that fail, quoting what they expected and got.
	rep, events, err = applyLocal(t, `
check "c" {
  timeout = "${tonumber(var.pin) % 1000}ms"
  command {
    run         = "echo ${var.pw}-out; exit 3"
    expect_exit = tonumber(var.pin) % 1000
  }
}
check "h" {
  timeout = "${tonumber(var.pin) % 1000}ms"
  http {
    url = "http://127.0.0.1:1/${var.pw}/${substr(var.pw, 0, 3)}"
  }
}
`)
	if err == nil {
		t.Fatal("the checks passed")
	}
	showsNone(t, rep, events, err, FromReport(rep, "wptest test", ""))
	if !strings.Contains(err.Error(), "exit status 3, want (sensitive); output: (sensitive)-out") || !strings.Contains(err.Error(), "GET http://127.0.0.1:1/(sensitive)/(sensitive): ") {
		t.Errorf("the checks' errors do not say what failed: %v", err)
	}

	// A command that fails printing its secrets: the error names it and
	// its output, without them.
	rep, events, err = applyLocal(t, `command "bad" {
  run = "echo ${var.pw} >&2; echo ${substr(var.pw, 0, 3)}x >&2; exit 7"
}`)
	var ee *host.ExitError
	if !errors.As(err, &ee) || ee.Code != 7 {
		t.Fatalf("want the command's exit error, got %v", err)
	}
	showsNone(t, rep, events, err, FromReport(rep, "wptest test", ""))
	if !strings.Contains(err.Error(), "(sensitive)x") {
		t.Errorf("the error does not show the command's output: %v", err)
	}
}

// showsNone: the report (JSON and text), the progress, the error and the
// host manifest show none of the secrets.
func showsNone(t *testing.T, rep *provision.Report, events string, err error, m *Manifest) {
	t.Helper()
	js, _ := json.Marshal(rep)
	var txt bytes.Buffer
	if err := rep.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	for what, out := range map[string]string{"progress": events, "report": string(js), "text report": txt.String(), "error": msg, "host manifest": manifestText(t, m)} {
		noSecrets(t, what, out)
	}
}

// applyLocal applies a profile of body (variables pw and pin, sensitive)
// on this machine: its report, progress events and error.
func applyLocal(t *testing.T, body string) (*provision.Report, string, error) {
	t.Helper()
	fsys := fstest.MapFS{"p/main.hcl": {Data: []byte(`profile {
  description = "secrets on the host"
  platforms   = ["debian-12"]
}
platform "debian-12" {
  package_manager = "apt"
}
variable "pw" {
  type      = string
  sensitive = true
}
variable "pin" {
  type      = string
  sensitive = true
}
` + body)}}
	p, diags := provision.Load(fsys, "p", provision.Vars{Args: []string{"pw=" + secretPW, "pin=" + secretPIN}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	r, diags := p.Render("debian-12")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var events strings.Builder
	rep, err := r.Apply(context.Background(), host.NewLocal(nil), func(e provision.Event) {
		fmt.Fprintf(&events, "%s %s: %s\n", e.Host, e.Op, e.Msg)
	})
	return rep, events.String(), err
}

func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}
