package host

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Local is this machine, driven by local exec. It is what `--target local`
// opens, and it behaves like SSH in every way the Host interface promises.
type Local struct {
	name string
	log  *hostLog
	env  []string // every command's whole environment (localEnv)

	mu  sync.Mutex
	ids map[string]int // "u:name" / "g:name" -> id, resolved once
}

// NewLocal returns the local host. log (may be nil) receives every line the
// commands print, prefixed "[local] label: ".
func NewLocal(log io.Writer) *Local {
	return &Local{name: "local", log: newHostLog(log, "local"), env: localEnv(os.Environ()), ids: map[string]int{}}
}

// localEnvKept are the operator's variables a local command gets; nothing
// else of wptest's environment (a cloud token, an agent socket, a proxy
// with a password) reaches the commands or the daemons they start.
var localEnvKept = []string{"PATH", "LANG", "HOME", "TERM"}

// defaultPath is PATH when the operator has none.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// localEnv is the environment of every local command: localEnvKept from
// environ, and LC_ALL=C (output parsed in one locale, as over SSH).
func localEnv(environ []string) []string {
	var env []string
	for _, k := range localEnvKept {
		for _, kv := range environ {
			if strings.HasPrefix(kv, k+"=") {
				env = append(env, kv)
				break
			}
		}
	}
	if !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "PATH=") }) {
		env = append(env, "PATH="+defaultPath)
	}
	return append(env, "LC_ALL=C")
}

// WithEnv is the local host with kv ("NAME=value") added to every
// command's environment: what a caller declares a command needs (a test's
// LD_PRELOAD), never the operator's environment wholesale.
func (l *Local) WithEnv(kv ...string) *Local {
	return &Local{name: l.name, log: l.log, env: append(slices.Clone(l.env), kv...), ids: map[string]int{}}
}

func (l *Local) Name() string { return l.name }
func (l *Local) Close() error { return nil }

// Run runs cmd.Script with /bin/sh in its own process group, with the small
// environment localEnv makes (never this process's whole one); on timeout
// or cancellation the whole group is killed, so no grandchild outlives it.
// Like a command over SSH, it is done when its stdout and stderr close: a
// background process that keeps them open holds Run until it exits or the
// timeout kills it (redirect a daemon's output).
func (l *Local) Run(ctx context.Context, cmd Cmd) (Result, error) {
	timeout := cmd.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fail := func(err error) (Result, error) {
		return Result{Exit: -1}, fmt.Errorf("[%s] %s: %w", l.name, labelOf(cmd), err)
	}
	if err := checkScript(cmd.Script); err != nil {
		return fail(err)
	}

	out := newOutputs(cmd, l.log)
	p, err := newLocalProc(cmd, l.env)
	if err != nil {
		return fail(err)
	}
	l.log.printf("$ %s", labelOf(cmd))
	start := time.Now()
	if err := p.start(cmd); err != nil {
		return fail(err)
	}
	copied := p.copyOutput(out)
	killed, err := p.wait(tctx, copied)
	d := time.Since(start)
	out.flush()
	res := out.result(p.exitCode(), d)
	return l.outcome(ctx, cmd, timeout, res, killed, err)
}

// localProc is one local command with the pipes Run owns: the script on
// fd 3, stdout and stderr, and stdin when the command has one.
type localProc struct {
	c                *exec.Cmd
	scriptR, scriptW *os.File
	outR, outW       *os.File
	errR, errW       *os.File
	stdin            io.WriteCloser
}

// newLocalProc makes the command and its pipes, not yet started.
func newLocalProc(cmd Cmd, env []string) (*localProc, error) {
	p := &localProc{}
	var err error
	// The script reaches sh on fd 3, not in argv, where every local user
	// could read it (ps, /proc/PID/cmdline) with a secret in it. sh reads
	// it whole, closes fd 3 so no child keeps it, and runs it as -c would.
	if p.scriptR, p.scriptW, err = os.Pipe(); err != nil {
		return nil, err
	}
	c := exec.Command("/bin/sh", "-c", `wptest_script=$(cat <&3 && echo .) || exit 126; exec 3<&-; eval "${wptest_script%.}"`)
	c.ExtraFiles = []*os.File{p.scriptR}
	c.Env = env
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.c = c
	// Our own pipes and copies, so the wait for output can be bounded by
	// the timeout and the group killed then (exec's WaitDelay cannot do both).
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, err
	}
	if p.errR, p.errW, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, err
	}
	c.Stdout, c.Stderr = p.outW, p.errW
	if cmd.Stdin != nil {
		// Our own copy too: a reader that never ends must not block Run
		// after the command exited.
		if p.stdin, err = c.StdinPipe(); err != nil {
			p.closeAll()
			return nil, err
		}
	}
	return p, nil
}

// closeAll closes every pipe opened so far, for a command that never started.
func (p *localProc) closeAll() {
	for _, f := range []*os.File{p.scriptR, p.scriptW, p.outR, p.outW, p.errR, p.errW} {
		if f != nil {
			f.Close()
		}
	}
}

// start starts the command, closes the pipe ends that are now the child's,
// and feeds it the script and stdin.
func (p *localProc) start(cmd Cmd) error {
	err := p.c.Start()
	p.outW.Close()
	p.errW.Close()
	p.scriptR.Close()
	if err != nil {
		p.scriptW.Close()
		p.outR.Close()
		p.errR.Close()
		return err
	}
	go func() {
		// Ends when sh has read it all, or with EPIPE when sh is gone.
		_, _ = io.WriteString(p.scriptW, cmd.Script)
		p.scriptW.Close()
	}()
	if p.stdin != nil {
		go func() {
			_, _ = io.Copy(p.stdin, cmd.Stdin)
			p.stdin.Close()
		}()
	}
	return nil
}

// copyOutput copies stdout and stderr into out; the channel closes when
// both pipes are done.
func (p *localProc) copyOutput(out *outputs) <-chan struct{} {
	copied := make(chan struct{})
	go func() {
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { _, _ = io.Copy(out.stdoutW, p.outR); wg.Done() }()
		go func() { _, _ = io.Copy(out.stderrW, p.errR); wg.Done() }()
		wg.Wait()
		close(copied)
	}()
	return copied
}

// wait waits for the command to exit and its output to end, or for tctx;
// then it kills the process group. It returns whether it killed and the
// error Wait returned.
func (p *localProc) wait(tctx context.Context, copied <-chan struct{}) (killed bool, err error) {
	pgid := p.c.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- p.c.Wait() }()
	reaped := false
	select {
	case err = <-exited:
		reaped = true
		select {
		case <-copied:
		case <-tctx.Done():
			killed = true
		}
	case <-tctx.Done():
		killed = true
	}
	if killed {
		// Kill the whole group, then stop reading from anything that
		// escaped it (setsid) and still holds the pipes.
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		select {
		case <-copied:
		case <-time.After(2 * time.Second):
		}
		p.outR.Close()
		p.errR.Close()
		<-copied
		if !reaped {
			err = <-exited // the group leader was SIGKILLed: this is quick
		}
	}
	p.outR.Close()
	p.errR.Close()
	return killed, err
}

// exitCode is the exit status, 128+signal for a killed command (as sh
// reports it), or -1 when it never ran.
func (p *localProc) exitCode() int {
	code := -1
	if ps := p.c.ProcessState; ps != nil {
		code = ps.ExitCode()
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	}
	return code
}

// outcome turns how the command ended into Run's error: a timeout, the
// caller's cancellation, a non-zero exit or a failure to wait.
func (l *Local) outcome(ctx context.Context, cmd Cmd, timeout time.Duration, res Result, killed bool, err error) (Result, error) {
	if killed && ctx.Err() == nil {
		// Our own timeout fired (not the caller's ctx).
		l.log.printf("%s: timed out after %s", labelOf(cmd), timeout)
		return res, &TimeoutError{Host: l.name, Label: cmd.Label, Timeout: timeout, Result: res}
	}
	if killed {
		return res, fmt.Errorf("[%s] %s: %w", l.name, labelOf(cmd), ctx.Err())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		l.log.printf("%s: exit status %d", labelOf(cmd), res.Exit)
		return res, &ExitError{Host: l.name, Label: cmd.Label, Code: res.Exit, Stderr: res.Stderr, Stdout: errStdout(cmd, res)}
	}
	if err != nil {
		return res, fmt.Errorf("[%s] %s: %w", l.name, labelOf(cmd), err)
	}
	return res, nil
}

// Put writes path atomically: a temp file in the same directory gets the
// mode, owner and content, is fsynced, then renamed over path.
func (l *Local) Put(ctx context.Context, path string, r io.Reader, opt PutOptions) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp := filepath.Join(dir, "."+base+".tmp-"+randHex())
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("[%s] put %s: %w", l.name, path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			err = fmt.Errorf("[%s] put %s: %w", l.name, path, err)
		}
	}()
	// Mode and owner before content, so a secret is never readable by others.
	if err = f.Chmod(modeOf(opt)); err != nil {
		return err
	}
	if opt.Owner != "" || opt.Group != "" {
		uid, gid, err := l.owner(opt)
		if err != nil {
			return err
		}
		if err = f.Chown(uid, gid); err != nil {
			return err
		}
	}
	if _, err = io.Copy(f, ctxReader{ctx, r}); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// owner resolves opt's names to ids (-1 = keep), once per name.
func (l *Local) owner(opt PutOptions) (uid, gid int, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	uid, gid = -1, -1
	if opt.Owner != "" {
		if uid, err = l.lookup("u", opt.Owner); err != nil {
			return
		}
	}
	if opt.Group != "" {
		gid, err = l.lookup("g", opt.Group)
	}
	return
}

func (l *Local) lookup(kind, name string) (int, error) {
	if id, ok := l.ids[kind+":"+name]; ok {
		return id, nil
	}
	var s string
	if kind == "u" {
		u, err := user.Lookup(name)
		if err != nil {
			return 0, fmt.Errorf("owner %q: %w", name, err)
		}
		s = u.Uid
	} else {
		g, err := user.LookupGroup(name)
		if err != nil {
			return 0, fmt.Errorf("group %q: %w", name, err)
		}
		s = g.Gid
	}
	id, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("id of %q: %w", name, err)
	}
	l.ids[kind+":"+name] = id
	return id, nil
}

func (l *Local) Get(ctx context.Context, path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("[%s] get %s: %w", l.name, path, err)
	}
	return f, nil
}

func (l *Local) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, fmt.Errorf("[%s] dial %s %s: %w", l.name, network, addr, err)
	}
	return c, nil
}

func (l *Local) Facts(ctx context.Context) (Facts, error) {
	return facts(ctx, l)
}

// facts runs factsScript on h.
func facts(ctx context.Context, h Host) (Facts, error) {
	res, err := h.Run(ctx, Cmd{Script: factsScript, Label: "facts", Timeout: time.Minute})
	if err != nil {
		return Facts{}, err
	}
	f, err := parseFacts(res.Stdout)
	if err != nil {
		return f, fmt.Errorf("[%s] %w", h.Name(), err)
	}
	return f, nil
}

func modeOf(opt PutOptions) os.FileMode {
	if opt.Mode == 0 {
		return 0o644
	}
	return opt.Mode.Perm()
}

func randHex() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
