package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/results"
)

func TestProgressPlainAndLive(t *testing.T) {
	var plain bytes.Buffer
	p := newProgress(&App{Stderr: &plain})
	p(provision.Event{Host: "web-1", Op: "file.conf", Msg: "create"})
	p(provision.Event{Host: "web-2", Op: "service.web", Msg: "start"})
	if got := plain.String(); got != "[web-1] file.conf: create\n[web-2] service.web: start\n" {
		t.Fatalf("plain: %q", got)
	}

	var live bytes.Buffer
	p = newProgress(&App{Stderr: &live, StderrTTY: true})
	p(provision.Event{Host: "web-1", Op: "file.conf", Msg: "create"})
	p(provision.Event{Host: "web-2", Op: "service.web", Msg: "start"})
	p(provision.Event{Host: "web-1", Op: "check.home", Msg: strings.Repeat("x", 300)})
	out := live.String()
	// Each event redraws every host's line in place: cursor up N, then the lines.
	if strings.Count(out, "\x1b[2A") != 2 || !strings.HasSuffix(out, "\r\x1b[K[web-2] service.web: start\n") {
		t.Fatalf("live: %q", out)
	}
	if strings.Contains(out, strings.Repeat("x", 200)) {
		t.Error("long line not truncated (it would wrap and break the redraw)")
	}
}

// The run's console: plain stderr gets one line per stage and point (a
// Busy stage or point start only on a terminal), a terminal one live line
// redrawn with \r and the kept lines above it, each point's line (with its
// own figure) among them; the detail reaches only the log
// file, which is made once its directory exists (until then it is held),
// with secrets and URLs' userinfo masked; --verbose puts the detail on
// stderr too.
func TestConsolePlainLiveAndLog(t *testing.T) {
	lines := []experiment.Progress{
		{Kind: experiment.Busy, Text: "[local] swap: (none) -> caddy"},
		{Kind: experiment.Stage, Text: "[local] caddy live after 1.0s"},
		{Kind: experiment.Keep, Text: "note: kept"},
		{Kind: experiment.Busy, Text: "[1/2] rep 1/1 · caddy · static c=10 (0 done) · ETA 3s"},
		{Kind: experiment.Point, Text: "[1/2] rep 1/1 · caddy · static c=10: 900 req/s · ETA 2s"},
		{Kind: experiment.Busy, Text: "[2/2] rep 1/1 · caddy · static c=50 (1 done) · ETA 1s"},
		{Kind: experiment.Point, Text: "[2/2] rep 1/1 · caddy · static c=50: 1,230 req/s"},
	}
	const secret = "hunter2-very-secret"
	show := func(tty, verbose bool) (stderr, log string) {
		dir := filepath.Join(t.TempDir(), "run")
		var errb bytes.Buffer
		red := &cloud.Redactor{}
		red.Add(secret)
		c := newConsole(&App{Stderr: &errb, StderrTTY: tty}, red, filepath.Join(dir, results.LogFile), true, verbose)
		c.say("run r1: x.hcl (2 points) · log %s", c.path)
		fmt.Fprintf(c.Detail(), "[local] $ facts (before the directory: held)\n")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c.Detail(), "[local] fetch: https://user:%s@example.org/x and %s\n", "pw9", secret)
		for _, l := range lines {
			fmt.Fprintln(c.Detail(), l.Text) // the runner logs each line too
			if p := c.progress(); p != nil {
				p(l)
			}
		}
		c.close()
		b, err := os.ReadFile(filepath.Join(dir, results.LogFile))
		if err != nil {
			t.Fatal(err)
		}
		return errb.String(), string(b)
	}

	plain, log := show(false, false)
	want := "run r1: x.hcl (2 points) · log " + filepath.Join("run", results.LogFile)
	if got := strings.Split(plain, "\n"); len(got) != 6 || !strings.HasPrefix(got[0], "run r1: x.hcl (2 points) · log ") ||
		got[1] != lines[1].Text || got[2] != lines[2].Text || got[3] != lines[4].Text || got[4] != lines[6].Text {
		t.Errorf("plain stderr, want the header (%s…) and one line per stage and point, no Busy line:\n%s", want, plain)
	}
	if strings.Contains(plain, "$ facts") || strings.Contains(plain, "fetch") {
		t.Errorf("plain stderr has the detail:\n%s", plain)
	}
	for _, w := range []string{"run r1:", "[local] $ facts (before the directory: held)", "https://(sensitive)@example.org/x", lines[0].Text, lines[3].Text, lines[6].Text} {
		if !strings.Contains(log, w) {
			t.Errorf("log lacks %q:\n%s", w, log)
		}
	}
	if strings.Contains(log, secret) || strings.Contains(log, "pw9") {
		t.Errorf("a secret reached the log:\n%s", log)
	}

	live, _ := show(true, false)
	if strings.Count(live, "\n") != 4 { // the header, the kept note and each point ended
		t.Errorf("terminal: want 4 kept lines, the rest redrawn in place: %q", live)
	}
	if !strings.Contains(live, lines[4].Text+"\n") || !strings.Contains(live, lines[6].Text+"\n") {
		t.Errorf("terminal: a point's line with its figure is not kept: %q", live)
	}
	if !strings.Contains(live, "\r\x1b[K"+lines[5].Text) || !strings.Contains(live, "\r\x1b[K"+lines[0].Text) || !strings.HasSuffix(live, "\r\x1b[K") {
		t.Errorf("terminal: the live line is not redrawn with \\r, or not cleared at the end: %q", live)
	}

	verbose, _ := show(false, true)
	if !strings.Contains(verbose, "[local] $ facts") || !strings.Contains(verbose, lines[6].Text) || strings.Contains(verbose, secret) {
		t.Errorf("--verbose: want the whole detail on stderr, masked:\n%s", verbose)
	}
	if n := strings.Count(verbose, lines[6].Text); n != 1 {
		t.Errorf("--verbose: a point line shown %d times, want once", n)
	}
}

// A new run's log is never another run's: with excl, an existing log.txt
// is left alone.
func TestConsoleLogNeverAppendsToAnotherRun(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, results.LogFile)
	if err := os.WriteFile(p, []byte("another run\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newConsole(&App{}, &cloud.Redactor{}, p, true, false)
	fmt.Fprintln(c.Detail(), "this run")
	c.close()
	if b, _ := os.ReadFile(p); string(b) != "another run\n" {
		t.Errorf("log.txt now %q", b)
	}
}
