package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wptest/wptest/provision"
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
