package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/internal/golden"
	"github.com/wptest/wptest/internal/runtest"
	"github.com/wptest/wptest/provision/cloud"
)

// A run there is and one there is not, by the ids wptest gives runs.
const (
	runThere = "20261205-101500-a1b2c3"
	runNot   = "20261205-000000-000000"
)

// TestErrorsGolden: what wptest prints for a command line it does not
// take, or that names a run, profile, fixture, kind, command or flag
// that is not there, as testdata/errors.txtar holds it (exit code and
// stderr; the working directory is $WORK, where runs/ holds one run). A
// flag error is one line, printed once, that says where the help is, and
// what was probably meant; a run that is not there is said before any
// driver is asked (down has no token here).
func TestErrorsGolden(t *testing.T) {
	work := t.TempDir()
	runtest.Run{ID: runThere, Reps: 1}.Write(t, filepath.Join(work, "runs"))
	a := &txtar.Archive{Comment: []byte("exit code and stderr of each command line (TestErrorsGolden; go test -update rewrites it)\n")}
	for _, args := range []string{
		"run --targt x", "run --plna", "run", "run a.hcl b.hcl", "run x.hcl --resume " + runNot, "rn",
		"profiles --json", "profiles -o yaml", "plan --profile cpanle --platform debian-12", "plan --profile caddy",
		"fixture manifest --fixture agncy", "fixture", "fixture hsah", "fixture hash",
		"machines", "machines upp", "machines plan --drvier netns",
		"bench --url http://127.0.0.1:1/ --scenario pagee", "version --bogus", "h3probe",
		"report", "report " + runNot, "report " + runThere + " --baseline " + runNot,
		"compare " + runThere, "compare " + runThere + " " + runNot,
		"down --run " + runNot, "status --target run:" + runNot, "status --target " + runNot,
		"up --profile caddy --target " + runNot + "/server",
	} {
		var out, errb bytes.Buffer
		code := Run(context.Background(), &App{Args: strings.Fields(args), Env: []string{"HOME=" + work},
			Stdout: &out, Stderr: &errb, WorkDir: work})
		if out.Len() > 0 {
			t.Errorf("wptest %s: stdout %q", args, out.String())
		}
		got := fmt.Sprintf("exit %d\n%s", code, strings.ReplaceAll(errb.String(), work, "$WORK"))
		a.Files = append(a.Files, txtar.File{Name: "wptest " + args, Data: []byte(got)})
	}
	golden.Archive(t, filepath.Join("testdata", "errors.txtar"), a)
	// Each usage error is one line.
	for _, f := range a.Files {
		if lines := strings.Count(string(f.Data), "\n"); strings.Contains(string(f.Data), "--help'") && lines != 2 {
			t.Errorf("%s: %d lines, want one:\n%s", f.Name, lines-1, f.Data)
		}
	}
}

// A run is named by its bare id everywhere one is named, found in runs/
// as by its directory's path: report, its --baseline, compare, and a
// --target (run:ID, or the bare id of a run wptest made).
func TestBareRunIDs(t *testing.T) {
	work := t.TempDir()
	runs := filepath.Join(work, "runs")
	const other = "20261204-093000-d4e5f6"
	runtest.Run{ID: runThere, Reps: 2}.Write(t, runs)
	runtest.Run{ID: other, Reps: 2}.Write(t, runs)
	dir := filepath.Join(runs, runThere)
	for _, args := range [][]string{
		{"report", runThere}, {"report", filepath.Join("runs", runThere)}, {"report", dir},
		{"report", runThere, "--baseline", other}, {"report", "--baseline", filepath.Join("runs", other), runThere},
	} {
		r := runIn(work, nil, args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, filepath.Join(dir, "report.md")+"\n") {
			t.Errorf("%q: exit %d, stdout %q, stderr %s", args, r.code, r.stdout, r.stderr)
		}
	}
	byID := runIn(work, nil, "compare", other, runThere, "-o", "json")
	byDir := runIn(work, nil, "compare", filepath.Join(runs, other), dir, "-o", "json")
	var a, b struct{ Rows []json.RawMessage }
	if byID.code != 0 || byDir.code != 0 || json.Unmarshal([]byte(byID.stdout), &a) != nil || json.Unmarshal([]byte(byDir.stdout), &b) != nil ||
		len(a.Rows) == 0 || fmt.Sprint(a.Rows) != fmt.Sprint(b.Rows) {
		t.Errorf("compare by ids: exit %d %s; by directories: exit %d %s", byID.code, byID.stderr, byDir.code, byDir.stderr)
	}

	// A --target: the bare id of a run wptest made is run:ID.
	ms := []cloud.Machine{{Name: "wptest-server", Role: "server", Driver: "netns", Address: "192.0.2.10", HostKey: "ssh-ed25519 AAAA"}}
	js, _ := json.Marshal(ms)
	if err := os.WriteFile(filepath.Join(dir, cloud.MachinesFile), js, 0o644); err != nil {
		t.Fatal(err)
	}
	app := &App{WorkDir: work}
	for _, target := range []string{runThere, runThere + "/server"} {
		got, known, id, err := runTarget(app, target, "", "")
		want, wknown, wid, werr := runTarget(app, "run:"+target, "", "")
		if err != nil || werr != nil || got != want || known != wknown || id != wid || got != "ssh://root@192.0.2.10:22" {
			t.Errorf("runTarget(%q) = %q %q %q %v; run:%s gives %q %q %q %v", target, got, known, id, err, target, want, wknown, wid, werr)
		}
	}
	for _, notRun := range []string{"local", "netns", "r1", "20261205-101500"} {
		if got, _, _, err := runTarget(app, notRun, "", ""); err != nil || got != notRun {
			t.Errorf("runTarget(%q) = %q, %v: not a run id wptest gives, so not a run", notRun, got, err)
		}
	}
}

// wptest version and --version print the tool as a run's manifest
// records it.
func TestVersionIsTheRecordedTool(t *testing.T) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var f runFlags
	runFlagSet(fs, &f)
	recorded := runOptions(&App{}, &f, &experiment.Spec{}, runThere).Tool
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, stdout, stderr := runCLI(t, nil, args...)
		if code != 0 || stdout != recorded+"\n" || stderr != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %q, the tool a run records", args, code, stdout, stderr, recorded)
		}
	}
	if recorded != "wptest "+Version {
		t.Errorf("the run records %q", recorded)
	}
}
