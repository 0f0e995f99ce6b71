package provision

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/golden"
)

// The live plan and apply reports, as people read them: an op to change, one
// unchanged, one failed, one changed but not applied, the notices, the
// checks that ran and the counts (testdata/plans/report-*.txt).
func TestReportTextLive(t *testing.T) {
	for _, mode := range []string{"plan", "apply"} {
		rep := &Report{Profile: "demo", Hash: "0123abcd", Platform: "debian-12", Host: "web1", Mode: mode,
			Variables:  []VarReport{{Name: "port", Value: 8080}},
			Deviations: []string{"no mod_foo on debian-12"},
			Ops: []*OpReport{
				{ID: "file.conf", Change: &Change{Needed: true, Action: "update", Details: []string{"mode: 0600 -> 0640"}}, Applied: true},
				{ID: "package.web", Change: &Change{Action: "none"}},
				{ID: "command.setup", Error: "exit status 1: no such file"},
				{ID: "service.web", Change: &Change{Needed: true, Action: "start"}},
			},
			Notified: []Notification{{Service: "web", Action: "reload", By: []string{"file.conf"}}, {Service: "php", Action: "restart", By: []string{"file.conf", "file.pool"}, Error: "timeout"}},
			Checks: []*CheckReport{
				{ID: "check.home", HTTP: fields(&HTTPCheck{Method: "GET", URL: "http://127.0.0.1:8080/", Protocol: "h1", ExpectStatus: 200}), Ran: true, Passed: true},
				{ID: "check.cmd", Command: fields(&CommandCheck{Run: "true"}), Ran: true, Error: "exit 1"},
			},
			Retired: []Service{{Label: "old", Name: "apache2"}},
			Changes: 2,
		}
		var b bytes.Buffer
		if err := rep.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		golden.File(t, filepath.Join("testdata", "plans", "report-"+mode+".txt"), b.Bytes())
	}
}

// An apply that stopped at a failed op (a link cut while it ran) says on
// its last line which op failed and which ops never ran; those ops read
// "not run", never as unchanged (testdata/plans/report-apply-stopped.txt).
func TestReportTextApplyStopped(t *testing.T) {
	rep := &Report{Profile: "demo", Hash: "0123abcd", Platform: "debian-13", Host: "web1", Mode: "apply",
		Ops: []*OpReport{
			{ID: "package.web", Change: &Change{Action: "none"}},
			{ID: "file.conf", Change: &Change{Needed: true, Action: "update"}, Applied: true},
			{ID: "file.pool", Error: "[web1] file.pool: no keepalive answer for 1m0s"},
			{ID: "service.php"},
			{ID: "service.web"},
		},
		Checks:  []*CheckReport{{ID: "check.home", Command: fields(&CommandCheck{Run: "true"})}},
		Changes: 1,
		Error:   "apply file.pool on web1: [web1] file.pool: no keepalive answer for 1m0s",
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden.File(t, filepath.Join("testdata", "plans", "report-apply-stopped.txt"), b.Bytes())
}

// An offline plan shows a script as its lines under the field's name, not
// as one quoted line of escapes, and ends with what its ops would do on a
// fresh host, counted as Terraform's plan counts them.
func TestReportTextOfflineScripts(t *testing.T) {
	rep := &Report{Profile: "demo", Hash: "0123abcd", Platform: "debian-13", Mode: "offline",
		Ops: []*OpReport{
			{ID: "command.setup", Kind: "command", Spec: map[string]any{"run": "set -eu\nprintf '%s\\n' \"$x\"\n", "unless": "test -e /x"}},
			{ID: "file.conf", Kind: "file", Spec: map[string]any{"path": "/etc/x", "content": "a\n"}},
			{ID: "package.old", Kind: "package", Spec: map[string]any{"names": []string{"x"}, "state": "absent"}},
			{ID: "service.web", Kind: "service", Spec: map[string]any{"name": "web", "state": "running"}},
		}}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"       run: |\n       | set -eu\n       | printf '%s\\n' \"$x\"\n       unless: \"test -e /x\"\n",
		"\nPlan: 1 to add, 1 to change, 1 to remove, 1 to run (offline: what each op does on a fresh host; --target reads what a host needs).\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("offline plan lacks %q:\n%s", want, b.String())
		}
	}
}
