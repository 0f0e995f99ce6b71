package cli

import (
	"fmt"
	"io"
	"sync"

	"github.com/wptest/wptest/provision"
)

// newProgress returns the provision progress sink for a command: plain
// "[host] op: message" lines when stderr is not a terminal (CI logs, pipes),
// and one live line per host, redrawn in place, when it is.
func newProgress(a *App) provision.Progress {
	if !a.StderrTTY {
		w := a.Stderr
		var mu sync.Mutex
		return func(e provision.Event) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(w, "[%s] %s: %s\n", e.Host, e.Op, e.Msg)
		}
	}
	l := &liveLines{w: a.Stderr, width: 110}
	return l.event
}

// liveLines keeps one line per host at the bottom of the terminal.
type liveLines struct {
	mu    sync.Mutex
	w     io.Writer
	width int
	hosts []string
	lines map[string]string
}

func (l *liveLines) event(e provision.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lines == nil {
		l.lines = map[string]string{}
	}
	if _, ok := l.lines[e.Host]; !ok {
		l.hosts = append(l.hosts, e.Host)
		fmt.Fprintln(l.w) // room for the new host's line
	}
	line := fmt.Sprintf("[%s] %s: %s", e.Host, e.Op, e.Msg)
	if r := []rune(line); len(r) > l.width { // a wrapped line would break the redraw
		line = string(r[:l.width-3]) + "..."
	}
	l.lines[e.Host] = line
	fmt.Fprintf(l.w, "\x1b[%dA", len(l.hosts)) // up to the first host's line
	for _, h := range l.hosts {
		fmt.Fprintf(l.w, "\r\x1b[K%s\n", l.lines[h])
	}
}
