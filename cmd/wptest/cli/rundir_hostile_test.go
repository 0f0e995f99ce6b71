package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/internal/hcloudfake"
	"github.com/wptest/wptest/internal/runtest"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/results"
)

// A run directory is a file anyone can send ("here is my run, see for
// yourself"): its names hold escape sequences, links are planted where
// wptest writes (at a report's final name and at name.tmp) and where it
// reads (results.jsonl -> /dev/zero), a FIFO where it reads. report,
// compare and run --resume must write nothing outside their own new files,
// read nothing unbounded, never hang, and print no control character.

// esc is what a hostile name holds: a CSI that moves the cursor, an OSC
// that sets the window title, a C1 CSI (U+009B, which JSON leaves as it
// is), DEL, a carriage return and a direction override.
const esc = "\x1b[2J\x1b]0;pwned\x07\u009b31m\x7f\r\u202e"

// controls lists, once each, the control characters (other than newline
// and tab), direction overrides and invalid bytes in s.
func controls(s string) []string {
	var bad []string
	seen := map[string]bool{}
	for i, c := range s {
		q := ""
		switch {
		case c == utf8.RuneError && !strings.HasPrefix(s[i:], "\ufffd"):
			q = "invalid UTF-8"
		case (c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069):
			q = strconv.QuoteRune(c)
		}
		if q != "" && !seen[q] {
			seen[q] = true
			bad = append(bad, q)
		}
	}
	return bad
}

// hostileRun writes a complete run whose every name (directory, id,
// experiment, description, columns, labels, scenarios, variables) holds
// esc.
func hostileRun(t *testing.T, parent, id string) string {
	t.Helper()
	return runtest.Run{ID: id, Reps: 3, Jitter: []float64{0, 2, -2},
		Columns:   []string{"apache" + esc, "core" + esc},
		Scenarios: []results.Scenario{{Name: "page" + esc, Kind: "page", Path: "/" + esc, Visitors: []int{2, 8}, Proto: "h1"}},
		Vars:      map[string]string{"w" + esc + id: "v" + esc}, // a difference between two runs
		Manifest: func(m *results.Manifest) {
			m.Experiment, m.Description, m.Target = "exp"+esc, "desc"+esc, "local"+esc
			for i := range m.Columns {
				m.Columns[i].Label = "label" + esc
				m.Columns[i].Vars = map[string]string{"k" + esc: esc}
			}
		}}.Write(t, parent)
}

// canary is a file outside the run directory that a planted link points at.
func canary(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "authorized_keys")
	if err := os.WriteFile(p, []byte("ssh-ed25519 AAAA the owner's key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func checkCanary(t *testing.T, p string) {
	t.Helper()
	if b, err := os.ReadFile(p); err != nil || string(b) != "ssh-ed25519 AAAA the owner's key\n" {
		t.Errorf("the file a planted link points at changed: now %d bytes starting %.60q, %v", len(b), b, err)
	}
}

func plant(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestReportHostileRunDir: links planted at every file report writes, and
// at each one's .tmp, are replaced by the report's own files; the file
// they point at is untouched; nothing printed holds a control character.
func TestReportHostileRunDir(t *testing.T) {
	can := canary(t)
	dir := hostileRun(t, t.TempDir(), "run"+esc)
	files := []string{"report.md", "report.html", results.ClaimsFile}
	for _, f := range files {
		plant(t, can, filepath.Join(dir, f))
		plant(t, can, filepath.Join(dir, f+".tmp"))
	}
	for _, args := range [][]string{{"report", dir}, {"report", dir, "-o", "json"}} {
		code, out, stderr := runCLI(t, nil, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args[2:], code, stderr)
		}
		if bad := controls(out + stderr); len(bad) > 0 {
			t.Errorf("%q: printed control characters %q", args[2:], bad)
		}
		checkCanary(t, can)
		for _, f := range files {
			if fi, err := os.Lstat(filepath.Join(dir, f)); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("%s: %v, %v: want the report's own file in place of the link", f, fi, err)
			}
		}
	}
}

// TestCompareHostileRunDir: compare of a run with hostile names, as text
// and as JSON, prints no control character; the JSON still holds the
// names, escaped.
func TestCompareHostileRunDir(t *testing.T) {
	parent := t.TempDir()
	a := hostileRun(t, parent, "a")
	b := hostileRun(t, parent, "b"+esc)
	code, out, stderr := runCLI(t, nil, "compare", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if bad := controls(out + stderr); len(bad) > 0 {
		t.Errorf("text: printed control characters %q", bad)
	}
	if !strings.Contains(out, "differs: var w\ufffd[2J") || !strings.Contains(out, "\npage\ufffd[2J") {
		t.Errorf("text: want the names, their controls replaced:\n%q", out)
	}
	code, out, stderr = runCLI(t, nil, "compare", "-o", "json", a, b)
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, stderr)
	}
	if bad := controls(out + stderr); len(bad) > 0 {
		t.Errorf("json: printed control characters %q", bad)
	}
	var got struct {
		B struct{ Experiment, Dir string }
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.B.Experiment != "exp"+esc || got.B.Dir != b {
		t.Errorf("json: B = %+v, %v; want the names as they are, escaped", got.B, err)
	}
}

// TestHostileRunDirReads: a link, FIFO or oversized file where report and
// compare read is refused with exit 2 and a message naming the file, in
// bounded memory and without waiting on the FIFO; a link at
// manifest.json to a file outside is not read either.
func TestHostileRunDirReads(t *testing.T) {
	can := canary(t)
	for _, tc := range []struct {
		name, file, want string
		make             func(p string) error
	}{
		{"results.jsonl -> /dev/zero", results.ResultsFile, "is a symbolic link", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{"manifest.json -> /dev/zero", results.ManifestFile, "is a symbolic link", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{"manifest.json -> a file outside", results.ManifestFile, "is a symbolic link", func(p string) error { return os.Symlink(can, p) }},
		{"results.jsonl a FIFO", results.ResultsFile, "is a named pipe", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"manifest.json a FIFO", results.ManifestFile, "is a named pipe", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"results.jsonl a directory", results.ResultsFile, "is a directory", func(p string) error { return os.Mkdir(p, 0o755) }},
		{"results.jsonl of 1 GiB", results.ResultsFile, "larger than 64 MiB", func(p string) error { return os.WriteFile(p, make([]byte, 1), 0o644) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			good := hostileRun(t, parent, "good")
			dir := hostileRun(t, parent, "bad"+esc)
			p := filepath.Join(dir, tc.file)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := tc.make(p); err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(tc.name, "1 GiB") { // sparse: nothing on disk
				if err := os.Truncate(p, 1<<30); err != nil {
					t.Fatal(err)
				}
			}
			for _, args := range [][]string{{"report", dir}, {"compare", good, dir}, {"report", good, "--baseline", dir}} {
				code, out, stderr := runCLIWithin(t, p, args...)
				if code != 2 || !strings.Contains(stderr, tc.file+": "+tc.want) {
					t.Errorf("%s: exit %d, want 2 naming %s (%s): %q", args[0], code, tc.file, tc.want, stderr)
				}
				if bad := controls(out + stderr); len(bad) > 0 {
					t.Errorf("%s: printed control characters %q: %q", args[0], bad, stderr)
				}
			}
			checkCanary(t, can)
		})
	}
}

// runCLIWithin is runCLI that fails, rather than hangs, when the command
// waits on the FIFO at fifo: after a minute (a bound on a bug, not a wait
// for an event) it opens the FIFO's other end so the command ends.
func runCLIWithin(t *testing.T, fifo string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), &App{Args: args, Stdout: &out, Stderr: &errb, WorkDir: t.TempDir()})
	}()
	select {
	case code = <-done:
	case <-time.After(time.Minute):
		t.Errorf("%q: still running after a minute: waiting on the FIFO?", args)
		if f, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
			f.Close()
		}
		code = <-done
	}
	return code, out.String(), errb.String()
}

// TestRunResumeIDIsAnID: run --resume with an id that is not one (a path
// out of runs/) exits 2 before anything is made: no log.txt in the
// directory the path names.
func TestRunResumeIDIsAnID(t *testing.T) {
	quick := quickFile(t)
	for _, id := range []string{"../../x", "../x", "a/b", "..", "X", "-x", strings.Repeat("a", 41), "a\x1b[2J"} {
		root := t.TempDir()
		work := filepath.Join(root, "w", "d")
		// Where each id would put runs/<id>/log.txt: all there.
		for _, d := range []string{filepath.Join(root, "w", "x"), filepath.Join(work, "x"), filepath.Join(work, "runs", "a", "b"), filepath.Join(work, "runs", "x")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		before := snapshot(t, root)
		var out, errb bytes.Buffer
		code := Run(context.Background(), &App{Args: []string{"run", quick, "--target", "local", "--resume", id}, Stdout: &out, Stderr: &errb, WorkDir: work})
		if code != 2 || !strings.Contains(errb.String(), "--resume: run id") {
			t.Errorf("--resume %q: exit %d, want 2 naming --resume: %q", id, code, errb.String())
		}
		if bad := controls(out.String() + errb.String()); len(bad) > 0 {
			t.Errorf("--resume %q: printed control characters %q", id, bad)
		}
		for p := range snapshot(t, root) {
			if _, ok := before[p]; !ok {
				t.Errorf("--resume %q: made %s", id, p)
			}
		}
	}
}

// TestRunResumeHostileRunDir: resuming a (complete) run whose log.txt and
// report.md.tmp are links to a file outside writes through neither: the
// log is not kept (and stderr says so), the report replaces the link.
func TestRunResumeHostileRunDir(t *testing.T) {
	quick := quickFile(t)
	src, err := os.ReadFile(quick)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := experiment.Load(quick, src, experiment.LoadOptions{Target: "local"})
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	const id = "20260101-000000-abcdef"
	dir := runtest.Run{ID: id, Reps: 1, Manifest: func(m *results.Manifest) {
		m.PlanHash, m.Complete = sp.PlanHash(), true
		m.Experiment, m.Description = "exp"+esc, "desc"+esc
	}}.Write(t, filepath.Join(work, "runs"))
	can := canary(t)
	plant(t, can, filepath.Join(dir, results.LogFile))
	plant(t, can, filepath.Join(dir, "report.md.tmp"))
	var out, errb bytes.Buffer
	code := Run(context.Background(), &App{Args: []string{"run", quick, "--target", "local", "--resume", id}, Stdout: &out, Stderr: &errb, WorkDir: work})
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errb.String())
	}
	checkCanary(t, can)
	if !strings.Contains(errb.String(), results.LogFile+": is a symbolic link") {
		t.Errorf("stderr does not say the log is refused:\n%s", errb.String())
	}
	if bad := controls(out.String() + errb.String()); len(bad) > 0 {
		t.Errorf("printed control characters %q: %q", bad, errb.String())
	}
	if fi, err := os.Lstat(filepath.Join(dir, "report.md")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("report.md: %v, %v", fi, err)
	}
}

// TestDownJournalHostileNames: down names the journal's unfinished
// mutations, from a file of the run directory: their names reach stderr
// without a control character.
func TestDownJournalHostileNames(t *testing.T) {
	fake := hcloudfake.New(t)
	dir := t.TempDir()
	runDir := filepath.Join(dir, "runs", "t1")
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		t.Fatal(err)
	}
	j, err := cloud.OpenJournal(filepath.Join(runDir, cloud.JournalFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(cloud.Event{Phase: cloud.PhaseBefore, Op: "create" + esc, Kind: "server" + esc, Name: "wptest-t1-server" + esc}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	r := runIn(dir, []string{"HCLOUD_TOKEN=" + cliToken, "HCLOUD_ENDPOINT=" + fake.URL}, "down", "--run", "t1")
	if r.code != 0 || !strings.Contains(r.stderr, `does not know how "create`) {
		t.Fatalf("down: code %d: %q", r.code, r.stderr)
	}
	if bad := controls(r.stdout + r.stderr); len(bad) > 0 {
		t.Errorf("down printed control characters %q: %q", bad, r.stderr)
	}
}

// TestConsoleLinesHoldNoControls: a run's lines on stderr (kept and live,
// on a terminal and not) may quote its run directory or a host: what is
// printed holds no control character but the console's own redraw.
func TestConsoleLinesHoldNoControls(t *testing.T) {
	for _, tty := range []bool{false, true} {
		var errb bytes.Buffer
		c := newConsole(&App{Stderr: &errb, StderrTTY: tty}, &cloud.Redactor{}, filepath.Join(t.TempDir(), "log.txt"), true, false)
		c.say("resuming %s", "run"+esc)
		c.progress()(experiment.Progress{Kind: experiment.Busy, Text: "point " + esc})
		c.close()
		got := strings.ReplaceAll(strings.ReplaceAll(errb.String(), "\r\x1b[K", ""), "\x1b[K", "")
		if bad := controls(got); len(bad) > 0 {
			t.Errorf("tty %v: printed control characters %q: %q", tty, bad, errb.String())
		}
	}
}
