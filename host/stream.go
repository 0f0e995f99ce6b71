package host

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// TimeoutError is a command that did not finish within its timeout and was
// killed (locally by process group, remotely by coreutils timeout). Result
// holds what it printed until then. It unwraps to context.DeadlineExceeded.
type TimeoutError struct {
	Host    string
	Label   string
	Timeout time.Duration
	Result  Result
}

func (e *TimeoutError) Error() string {
	label := e.Label
	if label == "" {
		label = "command"
	}
	msg := fmt.Sprintf("[%s] %s: timed out after %s and was killed", e.Host, label, e.Timeout)
	if tail := Tail(e.Result.Stderr, 10); tail != "" {
		msg += "\n" + indent(tail, "    ")
	}
	return msg
}

func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// maxCapture bounds Result.Stdout/Stderr when the caller streams the output
// to its own writer (Cmd.Stdout/Stderr): then only the tail is kept, for
// error messages. Without a writer of its own the caller gets everything.
const maxCapture = 256 << 10

// capture is a bytes.Buffer that optionally keeps only its last max bytes.
type capture struct {
	mu  sync.Mutex
	buf []byte
	max int // 0 = unbounded
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf = append(c.buf, p...)
	if c.max > 0 && len(c.buf) > 2*c.max {
		c.buf = append(c.buf[:0:0], c.buf[len(c.buf)-c.max:]...)
	}
	return len(p), nil
}

func (c *capture) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.buf
	if c.max > 0 && len(b) > c.max {
		b = b[len(b)-c.max:]
	}
	return append([]byte(nil), b...)
}

// outputs wires one command's stdout and stderr to the Result buffers, the
// caller's writers and the host log.
type outputs struct {
	stdout, stderr   *capture
	stdoutW, stderrW io.Writer
	logOut, logErr   *lineWriter
}

func newOutputs(cmd Cmd, log *hostLog) *outputs {
	o := &outputs{stdout: &capture{}, stderr: &capture{}}
	if cmd.Stdout != nil {
		o.stdout.max = maxCapture
	}
	if cmd.Stderr != nil {
		o.stderr.max = maxCapture
	}
	ws := []io.Writer{o.stdout}
	es := []io.Writer{o.stderr}
	if cmd.Stdout != nil {
		ws = append(ws, cmd.Stdout)
	}
	if cmd.Stderr != nil {
		es = append(es, cmd.Stderr)
	}
	if log != nil {
		o.logOut = log.lines(labelOf(cmd), "out")
		o.logErr = log.lines(labelOf(cmd), "err")
		if !cmd.SecretStdout {
			ws = append(ws, o.logOut)
		}
		es = append(es, o.logErr)
	}
	o.stdoutW = io.MultiWriter(ws...)
	o.stderrW = io.MultiWriter(es...)
	return o
}

// flush writes any unterminated last line to the log.
func (o *outputs) flush() {
	if o.logOut != nil {
		o.logOut.flush()
		o.logErr.flush()
	}
}

func (o *outputs) result(code int, d time.Duration) Result {
	return Result{Exit: code, Stdout: o.stdout.Bytes(), Stderr: o.stderr.Bytes(), Duration: d}
}

func labelOf(cmd Cmd) string {
	if cmd.Label != "" {
		return cmd.Label
	}
	first, _, _ := strings.Cut(strings.TrimSpace(cmd.Script), "\n")
	if len(first) > 60 {
		first = first[:60] + "..."
	}
	return first
}

// hostLog is the per-host log (Options.Log): every line a command prints,
// prefixed "[host] label: " (stderr lines "[host] label! "), plus one line
// per command started and finished. Stdin is never logged.
type hostLog struct {
	mu   sync.Mutex
	w    io.Writer
	host string
}

func newHostLog(w io.Writer, host string) *hostLog {
	if w == nil {
		return nil
	}
	return &hostLog{w: w, host: host}
}

func (l *hostLog) printf(format string, args ...any) {
	if l == nil {
		return
	}
	line := fmt.Sprintf("[%s] "+format, append([]any{l.host}, args...)...)
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = io.WriteString(l.w, strings.TrimRight(line, "\n")+"\n")
}

func (l *hostLog) lines(label, stream string) *lineWriter {
	sep := ":"
	if stream == "err" {
		sep = "!"
	}
	return &lineWriter{log: l, prefix: fmt.Sprintf("[%s] %s%s ", l.host, label, sep)}
}

// lineWriter splits a stream into lines and writes each whole line to the
// log under its lock, so concurrent commands never interleave mid-line.
type lineWriter struct {
	log     *hostLog
	prefix  string
	partial []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.partial = append(w.partial, p...)
	for {
		// A NUL ends a record as a newline ends a line (find -print0,
		// sha256sum -z, what xargs -0 is fed): the log is text, a NUL in
		// it makes grep call it binary. An empty record is left out.
		i := bytes.IndexAny(w.partial, "\n\x00")
		if i < 0 {
			break
		}
		if w.partial[i] == '\n' || i > 0 {
			w.emit(w.partial[:i])
		}
		w.partial = w.partial[i+1:]
	}
	// A very long line without newline is emitted in pieces.
	if len(w.partial) > 64<<10 {
		w.emit(w.partial)
		w.partial = nil
	}
	return len(p), nil
}

func (w *lineWriter) flush() {
	if len(w.partial) > 0 {
		w.emit(w.partial)
		w.partial = nil
	}
}

func (w *lineWriter) emit(line []byte) {
	w.log.mu.Lock()
	defer w.log.mu.Unlock()
	_, _ = io.WriteString(w.log.w, w.prefix+string(line)+"\n")
}

// ctxReader fails a copy as soon as ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// factsScript prints /etc/os-release and a few WPTEST_* lines; parseFacts
// reads them. Local and SSH run the same script, so they agree. SELinux's
// mode comes from selinuxfs (mounted exactly when SELinux is enabled), so
// it needs no SELinux tools; firewalld's state from firewall-cmd.
const factsScript = `cat /etc/os-release 2>/dev/null || cat /usr/lib/os-release
echo
echo "WPTEST_ARCH=$(uname -m)"
if [ -d /run/systemd/system ]; then echo WPTEST_INIT=systemd; else echo WPTEST_INIT=none; fi
if command -v apt-get >/dev/null 2>&1; then echo WPTEST_PM=apt
elif command -v dnf >/dev/null 2>&1; then echo WPTEST_PM=dnf
else echo WPTEST_PM=none; fi
if [ -r /sys/fs/selinux/enforce ]; then
	if [ "$(cat /sys/fs/selinux/enforce)" = 1 ]; then echo WPTEST_SELINUX=enforcing; else echo WPTEST_SELINUX=permissive; fi
elif command -v getenforce >/dev/null 2>&1 || [ -e /etc/selinux/config ]; then echo WPTEST_SELINUX=disabled
else echo WPTEST_SELINUX=absent; fi
if command -v firewall-cmd >/dev/null 2>&1; then
	if [ "$(timeout 20 firewall-cmd --state 2>/dev/null)" = running ]; then echo WPTEST_FIREWALLD=running; else echo "WPTEST_FIREWALLD=not running"; fi
else echo WPTEST_FIREWALLD=absent; fi`

func parseFacts(out []byte) (Facts, error) {
	kv := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok || k == "" || strings.HasPrefix(k, "#") {
			continue
		}
		kv[k] = unquoteOSRelease(v)
	}
	f := Facts{
		OSID:           kv["ID"],
		OSVersion:      kv["VERSION_ID"],
		Arch:           kv["WPTEST_ARCH"],
		Init:           kv["WPTEST_INIT"],
		PackageManager: kv["WPTEST_PM"],
		SELinux:        kv["WPTEST_SELINUX"],
		Firewalld:      kv["WPTEST_FIREWALLD"],
	}
	if f.OSID == "" {
		return f, errors.New("facts: no ID in /etc/os-release")
	}
	f.Platform = f.OSID
	if major, _, _ := strings.Cut(f.OSVersion, "."); major != "" {
		f.Platform += "-" + major
	}
	return f, nil
}

// unquoteOSRelease undoes os-release(5) shell-style quoting.
func unquoteOSRelease(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		if v[0] == '"' {
			v = strings.NewReplacer(`\"`, `"`, `\\`, `\`, "\\`", "`", `\$`, `$`).Replace(v[1 : len(v)-1])
		} else {
			v = v[1 : len(v)-1]
		}
	}
	return v
}
