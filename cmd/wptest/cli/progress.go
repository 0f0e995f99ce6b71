package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/internal/redact"
	"github.com/wptest/wptest/internal/safefile"
	"github.com/wptest/wptest/internal/termsafe"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/results"
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

// console is a command's stderr as a person reads it: its stages and
// points (one live line redrawn in place on a terminal, a line each
// elsewhere) and the lines to keep (the preflight, warnings, where the log
// is), while the detail (host commands and their output, samples,
// manifests) goes to a log file, secrets masked; --verbose puts the detail
// on stderr too, as it all was before.
type console struct {
	mu      sync.Mutex
	w       io.Writer // stderr
	tty     bool
	verbose bool
	width   int
	live    string // the live line on a terminal ("": none)

	file   *logFile
	red    *cloud.Redactor
	detail *cloud.RedactWriter // the file (and stderr with --verbose), masked
	path   string              // the log file as the lines name it
	header string              // what the first line names (commandConsole)
}

// newConsole makes the console of a command whose log is the file at path
// (see logFile for excl), masking red's secrets and URLs' userinfo.
func newConsole(a *App, red *cloud.Redactor, path string, excl, verbose bool) *console {
	stderr := a.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	c := &console{w: stderr, tty: a.StderrTTY, verbose: verbose, width: 100, red: red,
		file: &logFile{path: path, excl: excl}, path: shownPath(a, path)}
	c.file.warn = func(err error) { c.keep(fmt.Sprintf("log: %v; the detail is not kept", err)) }
	if n, err := strconv.Atoi(a.Getenv("COLUMNS")); err == nil && n > 20 {
		c.width = n - 1
	}
	var to io.Writer = c.file
	if verbose {
		to = io.MultiWriter(c.file, a.Stderr)
	}
	c.detail = red.Writer(urlsWriter{to})
	return c
}

// Detail is where the command's detail goes.
func (c *console) Detail() io.Writer { return c.detail }

// progress shows one of the run's progress lines (nil with --verbose: the
// detail on stderr has them all).
func (c *console) progress() func(experiment.Progress) {
	if c.verbose {
		return nil
	}
	return func(p experiment.Progress) {
		text := c.red.String(redact.URLs(p.Text))
		switch {
		case p.Kind == experiment.Keep, p.Kind == experiment.Point: // a point's line keeps its figure
			c.keep(text)
		case c.tty:
			c.setLive(text)
		case p.Kind != experiment.Busy:
			c.keep(text)
		}
	}
}

// events is the provision progress sink of up and swap: every event in
// the log; on a terminal, the latest on the live line.
func (c *console) events() provision.Progress {
	return func(e provision.Event) {
		line := fmt.Sprintf("[%s] %s: %s", e.Host, e.Op, e.Msg)
		fmt.Fprintln(c.detail, line)
		if c.tty && !c.verbose {
			c.setLive(c.red.String(redact.URLs(line)))
		}
	}
}

// say is a line of the command's own: in the log and on stderr.
func (c *console) say(format string, v ...any) {
	text := fmt.Sprintf(format, v...)
	fmt.Fprintln(c.detail, text)
	if !c.verbose { // else the detail on stderr has it
		c.keep(c.red.String(redact.URLs(text)))
	}
}

// keep prints a line that stays, above the live line.
func (c *console) keep(text string) {
	// What a run says may quote its run directory (a resumed run's
	// manifest and machines) or a host: never a control character.
	text = termsafe.Text(text)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.tty {
		fmt.Fprintln(c.w, text)
		return
	}
	fmt.Fprintf(c.w, "\r\x1b[K%s\n", text)
	if c.live != "" {
		fmt.Fprintf(c.w, "\r\x1b[K%s", c.live)
	}
}

// setLive redraws the live line (cut to the width: a wrapped line would
// break the redraw).
func (c *console) setLive(text string) {
	text = termsafe.Line(text)
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := []rune(text); len(r) > c.width {
		text = string(r[:c.width-3]) + "..."
	}
	c.live = text
	fmt.Fprintf(c.w, "\r\x1b[K%s", text)
}

// close clears the live line, so what follows (an error, the shell's
// prompt) starts on a clean line, and closes the log.
func (c *console) close() {
	c.detail.Flush()
	c.mu.Lock()
	if c.tty && c.live != "" {
		fmt.Fprint(c.w, "\r\x1b[K")
		c.live = ""
	}
	c.mu.Unlock()
	c.file.Close()
}

// failed says where the whole log of a failed command is (its error,
// printed next, names the host, the step and the command's last output).
func (c *console) failed() {
	c.detail.Flush()
	if c.file.opened() {
		c.keep("the whole log: " + c.path)
	}
}

// urlsWriter hides URLs' userinfo in what passes (whole lines: it sits
// behind a RedactWriter).
type urlsWriter struct{ w io.Writer }

func (u urlsWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(u.w, redact.URLs(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// logFile is a command's log file. It is opened at the first write after
// its directory exists (a run's directory is made by the run; until then
// what is written is held, up to maxHeld, and written first); excl: the
// file must be new (a new run's, never another's). It is opened as a run
// directory's files are (safefile): a link or a FIFO planted at its name
// is refused, warn says so once, and the detail is dropped.
type logFile struct {
	mu   sync.Mutex
	path string
	excl bool
	// unarmed: hold everything until arm (a command that must make
	// nothing before its input is known to be good).
	unarmed bool
	f       *os.File
	held    bytes.Buffer
	err     error // the file could not be opened: the detail is dropped
	warn    func(error)
}

const maxHeld = 1 << 20

func (l *logFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil && l.err == nil && !l.unarmed {
		flags := os.O_WRONLY | os.O_APPEND | os.O_CREATE
		if l.excl {
			flags |= os.O_EXCL
		}
		f, err := safefile.Open(l.path, flags, 0o600)
		switch {
		case err == nil:
			l.f = f
			_, _ = l.f.Write(l.held.Bytes())
			l.held = bytes.Buffer{}
		case errors.Is(err, fs.ErrNotExist):
			if l.held.Len() < maxHeld {
				l.held.Write(p)
			}
			return len(p), nil
		default:
			l.err = err
			if l.warn != nil {
				l.warn(err)
			}
		}
	}
	if l.f == nil {
		return len(p), nil
	}
	return l.f.Write(p)
}

// arm lets the file be made (its directory too) at the next write.
func (l *logFile) arm() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.unarmed = false
	return os.MkdirAll(filepath.Dir(l.path), 0o755)
}

func (l *logFile) opened() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f != nil
}

func (l *logFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	l.err = fs.ErrClosed
	return err
}

// shownPath is p relative to the working directory when it is inside it.
func shownPath(a *App, p string) string {
	if r, err := filepath.Rel(absPath(a, "."), p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// verboseUsage is the help line of --verbose.
const verboseUsage = "show the whole log on stderr too: host commands and their output"

// lines is a writer whose every line is a line of the command's own (say):
// the stages' "[host] ..." lines and the preflight.
func (c *console) lines() io.Writer { return sayWriter{c} }

type sayWriter struct{ c *console }

func (w sayWriter) Write(p []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		w.c.say("%s", l)
	}
	return len(p), nil
}

// commandConsole is the console of up, swap and seed. Their log is the run
// directory's log.txt for a machine of a run (--target run:ID[/MACHINE]),
// else a file of its own in runs/ (runs/up-<time>.log). Nothing is made
// until the host is open (startStage): bad input leaves nothing behind.
func commandConsole(a *App, name, target string, verbose bool) *console {
	runs := absPath(a, runsDir)
	path := filepath.Join(runs, name+"-"+newRunID(a.Now())+".log")
	if spec, ok := runTargetSpec(target); ok {
		// Only an id of a run id's shape becomes a path (openRunMachine
		// refuses any other before the log is made).
		if id, _, _ := strings.Cut(spec, "/"); cloud.ValidRunID(id) == nil {
			path = filepath.Join(runs, id, results.LogFile)
		}
	}
	c := newConsole(a, &cloud.Redactor{}, path, false, verbose)
	c.file.unarmed = true
	c.header = name + " " + target
	return c
}

// startStage makes the log file and says where it is: the command's first
// line, once its host is open.
func (c *console) startStage() stage.Step {
	return stage.Do(func(ctx context.Context, st *stage.State) error {
		if err := c.file.arm(); err != nil {
			return fmt.Errorf("log: %w", err)
		}
		c.say("%s: log %s", c.header, c.path)
		return nil
	})
}
