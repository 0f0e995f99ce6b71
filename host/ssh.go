package host

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"
)

// SSH is a host reached over one SSH connection (golang.org/x/crypto/ssh),
// with its key pinned in a known_hosts file. Commands run one session each;
// files go over one SFTP client, opened on first use.
type SSH struct {
	name   string
	target Target
	client *ssh.Client
	log    *hostLog

	sftpMu sync.Mutex
	sftp   *sftp.Client
	fsync  bool // server has fsync@openssh.com

	idMu sync.Mutex
	ids  map[string]int // "u:name"/"g:name" -> id, resolved once by running id/getent

	// sessions bounds concurrent command sessions: OpenSSH allows 10 per
	// connection by default (MaxSessions), and SFTP holds one of them.
	sessions chan struct{}

	done      chan struct{}
	closeOnce sync.Once
	deadErr   atomic.Value // error: why keepalive closed the connection
}

// HostKeyError is a host key that is not the pinned one (or a host that is
// not in the known_hosts file at all). It is returned before anything is
// sent to the host: no authentication, no command.
type HostKeyError struct {
	Host        string   // host:port as dialled
	File        string   // the known_hosts file
	KeyType     string   // type of the key received
	Fingerprint string   // SHA256:... of the key received
	Pinned      []string // "type SHA256:..." of the keys pinned for Host (empty: unknown host)
	Revoked     bool
}

func (e *HostKeyError) Error() string {
	switch {
	case e.Revoked:
		return fmt.Sprintf("host key of %s is revoked in %s: received %s %s; refusing to connect", e.Host, e.File, e.KeyType, e.Fingerprint)
	case len(e.Pinned) == 0:
		return fmt.Sprintf("host %s is not in known_hosts file %s: received %s %s; refusing to connect (nothing was sent)", e.Host, e.File, e.KeyType, e.Fingerprint)
	default:
		return fmt.Sprintf("HOST KEY MISMATCH for %s: received %s %s, but %s pins %s; refusing to connect (nothing was sent)", e.Host, e.KeyType, e.Fingerprint, e.File, strings.Join(e.Pinned, ", "))
	}
}

// Mismatch reports whether the host is known but showed another key.
func (e *HostKeyError) Mismatch() bool { return len(e.Pinned) > 0 && !e.Revoked }

// DialSSH connects to t with opt, retrying as opt says (see Options).
func DialSSH(ctx context.Context, t Target, opt Options) (*SSH, error) {
	name, opt, err := dialOptions(t, opt)
	if err != nil {
		return nil, err
	}
	hostKeys, algos, err := pinnedHostKeys(opt.KnownHostsFile, t.Addr())
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", name, err)
	}
	var keySigner ssh.Signer
	if opt.IdentityFile != "" {
		if keySigner, err = loadIdentity(opt.IdentityFile); err != nil {
			return nil, fmt.Errorf("dial %s: %w", name, err)
		}
	}
	log := newHostLog(opt.Log, name)

	deadline := time.Now().Add(opt.WaitFor)
	backoff := 250 * time.Millisecond
	var retries dialRetries
	for attempt := 1; ; attempt++ {
		client, err := dialOnce(ctx, t, opt, hostKeys, algos, keySigner)
		if err == nil {
			s := &SSH{name: name, target: t, client: client, log: log, ids: map[string]int{},
				sessions: make(chan struct{}, maxSessions), done: make(chan struct{})}
			go s.keepalive(opt.KeepaliveInterval, opt.KeepaliveMaxMissed)
			return s, nil
		}
		err = fmt.Errorf("dial %s (attempt %d): %w", name, attempt, err)
		retry := retries.retry(ctx, err, opt.RetryHostKeyMismatch)
		left := time.Until(deadline)
		if !retry || opt.WaitFor <= 0 || left <= 0 {
			log.printf("%v; giving up", err)
			return nil, retries.final(err)
		}
		// The last try comes at the deadline, not a backoff before it.
		wait := min(backoff, left)
		log.printf("%v; retrying in %s", err, wait.Round(time.Millisecond))
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (gave up: %w)", err, ctx.Err())
		case <-time.After(wait):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// dialOptions checks what DialSSH needs (pinned host keys, a way to log
// in) and fills opt's defaults; name is the host's name in logs and errors.
func dialOptions(t Target, opt Options) (string, Options, error) {
	name := opt.Name
	if name == "" {
		name = t.User + "@" + t.Addr()
	}
	if t.Local {
		return "", opt, fmt.Errorf("dial %s: target is local, not ssh", name)
	}
	if opt.KnownHostsFile == "" {
		return "", opt, fmt.Errorf("dial %s: no known_hosts file given: host keys must be pinned", name)
	}
	if opt.IdentityFile == "" && opt.AgentSocket == "" {
		return "", opt, fmt.Errorf("dial %s: no identity file and no ssh-agent socket given", name)
	}
	if opt.ConnectTimeout <= 0 {
		opt.ConnectTimeout = 15 * time.Second
	}
	if opt.KeepaliveInterval <= 0 {
		opt.KeepaliveInterval = 15 * time.Second
	}
	if opt.KeepaliveMaxMissed <= 0 {
		opt.KeepaliveMaxMissed = 4
	}
	return name, opt, nil
}

// dialRetries decides, attempt by attempt, whether a failed dial is worth
// another try.
type dialRetries struct {
	authFailures int
	// A host key mismatch seen on any attempt is what the user must hear
	// about, even if a later attempt only timed out at the deadline.
	mismatch error
}

func (r *dialRetries) retry(ctx context.Context, err error, retryMismatch bool) bool {
	var hke *HostKeyError
	switch {
	case errors.As(err, &hke):
		// Never accepted; retried only for a booting VM, and each
		// refused attempt is logged.
		if hke.Mismatch() {
			r.mismatch = err
		}
		return hke.Mismatch() && retryMismatch
	case strings.Contains(err.Error(), "unable to authenticate"):
		// cloud-init may not have written authorized_keys yet; a few
		// tries, not the whole wait.
		r.authFailures++
		return r.authFailures < 3
	case ctx.Err() != nil:
		return false
	}
	return true
}

// final is the error DialSSH returns when it gives up after err.
func (r *dialRetries) final(err error) error {
	var hke *HostKeyError
	if r.mismatch != nil && !errors.As(err, &hke) {
		return fmt.Errorf("%w (last attempt: %v)", r.mismatch, err)
	}
	return err
}

// dialOnce makes one TCP connection and SSH handshake.
func dialOnce(ctx context.Context, t Target, opt Options, hostKeys ssh.HostKeyCallback, algos []string, keySigner ssh.Signer) (*ssh.Client, error) {
	var signers []ssh.Signer
	if keySigner != nil {
		signers = append(signers, keySigner)
	}
	if opt.AgentSocket != "" {
		ac, err := net.DialTimeout("unix", opt.AgentSocket, opt.ConnectTimeout)
		if err != nil {
			return nil, fmt.Errorf("ssh-agent %s: %w", opt.AgentSocket, err)
		}
		// The agent is only needed during authentication.
		defer ac.Close()
		as, err := agent.NewClient(ac).Signers()
		if err != nil {
			return nil, fmt.Errorf("ssh-agent %s: %w", opt.AgentSocket, err)
		}
		signers = append(signers, as...)
	}
	cfg := &ssh.ClientConfig{
		User:              t.User,
		Auth:              []ssh.AuthMethod{ssh.PublicKeys(signers...)},
		HostKeyCallback:   hostKeys,
		HostKeyAlgorithms: algos,
		Timeout:           opt.ConnectTimeout,
	}
	actx, cancel := context.WithTimeout(ctx, opt.ConnectTimeout)
	defer cancel()
	d := net.Dialer{KeepAlive: 15 * time.Second}
	conn, err := d.DialContext(actx, "tcp", t.Addr())
	if err != nil {
		return nil, err
	}
	// The handshake has no context of its own: bound it by the deadline and
	// close the connection if ctx ends first.
	dl, _ := actx.Deadline()
	_ = conn.SetDeadline(dl)
	stop := context.AfterFunc(actx, func() { conn.Close() })
	c, chans, reqs, err := ssh.NewClientConn(conn, t.Addr(), cfg)
	if !stop() {
		if err == nil {
			c.Close()
		}
		return nil, fmt.Errorf("ssh handshake: %w", actx.Err())
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	_ = conn.SetDeadline(time.Time{})
	return ssh.NewClient(c, chans, reqs), nil
}

// pinnedHostKeys reads the known_hosts file and returns its checking
// callback plus the host-key algorithms of the keys it pins for addr. A
// server that also offers other key types (RHEL images regenerate RSA and
// ECDSA keys) would otherwise negotiate one of those and fail as a mismatch.
func pinnedHostKeys(file, addr string) (ssh.HostKeyCallback, []string, error) {
	cb, err := knownhosts.New(file)
	if err != nil {
		return nil, nil, fmt.Errorf("known_hosts %s: %w", file, err)
	}
	// knownhosts has no lookup API; checking a throwaway key yields a
	// KeyError listing every key pinned for the host.
	var algos []string
	var ke *knownhosts.KeyError
	if err := cb(addr, probeAddr(addr), probeKey()); errors.As(err, &ke) {
		seen := map[string]bool{}
		for _, k := range ke.Want {
			for _, a := range algorithmsFor(k.Key.Type()) {
				if !seen[a] {
					seen[a] = true
					algos = append(algos, a)
				}
			}
		}
	}
	check := func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		err := cb(hostname, remote, key)
		if err == nil {
			return nil
		}
		e := &HostKeyError{Host: hostname, File: file, KeyType: key.Type(), Fingerprint: ssh.FingerprintSHA256(key)}
		var ke *knownhosts.KeyError
		var re *knownhosts.RevokedError
		switch {
		case errors.As(err, &ke):
			for _, k := range ke.Want {
				e.Pinned = append(e.Pinned, k.Key.Type()+" "+ssh.FingerprintSHA256(k.Key))
			}
		case errors.As(err, &re):
			e.Revoked = true
		default:
			return fmt.Errorf("check host key of %s against %s: %w", hostname, file, err)
		}
		return e
	}
	return check, algos, nil
}

func algorithmsFor(keyType string) []string {
	if keyType == ssh.KeyAlgoRSA {
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	}
	return []string{keyType}
}

func probeAddr(addr string) net.Addr {
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	ip := net.ParseIP(host)
	if ip == nil {
		ip = net.IPv4zero
	}
	return &net.TCPAddr{IP: ip, Port: p}
}

var probeKey = sync.OnceValue(func() ssh.PublicKey {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		panic(err)
	}
	return k
})

func loadIdentity(file string) (ssh.Signer, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("identity file: %w", err)
	}
	s, err := ssh.ParsePrivateKey(b)
	var pm *ssh.PassphraseMissingError
	if errors.As(err, &pm) {
		return nil, fmt.Errorf("identity file %s is encrypted: load it into ssh-agent and pass the agent socket instead", file)
	}
	if err != nil {
		return nil, fmt.Errorf("identity file %s: %w", file, err)
	}
	return s, nil
}

// keepalive sends keepalive@openssh.com every interval; any answer (OpenSSH
// answers "failure") proves the peer alive. After maxMissed intervals with
// no answer it closes the connection, so nothing hangs on a dead peer.
func (s *SSH) keepalive(interval time.Duration, maxMissed int) {
	var last atomic.Int64 // unix nanos of the last answer
	last.Store(time.Now().UnixNano())
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-tick.C:
		}
		if time.Since(time.Unix(0, last.Load())) > time.Duration(maxMissed)*interval {
			err := fmt.Errorf("no keepalive answer for %s", time.Duration(maxMissed)*interval)
			s.deadErr.Store(err)
			s.log.printf("%v: closing the connection", err)
			s.client.Close()
			return
		}
		go func() {
			if _, _, err := s.client.SendRequest("keepalive@openssh.com", true, nil); err == nil {
				last.Store(time.Now().UnixNano())
			}
		}()
	}
}

func (s *SSH) Name() string { return s.name }

// Client is the underlying SSH connection, for the rare caller that needs
// more than Host offers (DialContext covers tunnels).
func (s *SSH) Client() *ssh.Client { return s.client }

func (s *SSH) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.done)
		s.sftpMu.Lock()
		if s.sftp != nil {
			s.sftp.Close()
		}
		s.sftpMu.Unlock()
		err = s.client.Close()
	})
	return err
}

// maxSessions is how many commands run at once on one connection; more
// wait their turn. OpenSSH's default MaxSessions is 10: this leaves room for
// the SFTP session and one kill session.
const maxSessions = 8

// remoteBoot is the one script the remote argv holds: it reads the real
// script from stdin ("LENGTH\n" then exactly LENGTH bytes: the builtin read
// takes one byte at a time from a pipe and GNU head -c no more than it is
// told), so no other user of the host sees it in ps or /proc/PID/cmdline
// (a script may hold credentials: a URL with a password). What follows it
// on stdin is the command's own stdin (Cmd.Stdin). A script cut short (the
// connection died while it was sent) never runs.
const remoteBoot = `IFS= read -r wptest_n || { echo "wptest: no script on stdin" >&2; exit 126; }
case $wptest_n in ""|*[!0-9]*) echo "wptest: bad script header" >&2; exit 126 ;; esac
wptest_s=$(head -c "$wptest_n"; echo .) || exit 126
wptest_s=${wptest_s%.}
[ "${#wptest_s}" = "$wptest_n" ] || { echo "wptest: the script was cut short" >&2; exit 126; }
unset wptest_n
eval "$wptest_s"`

// remoteScript is the remote command: coreutils timeout enforces the
// timeout on the host itself (it TERMs the command's whole process group,
// then KILLs it 5s later, even if our connection is gone), and sh runs
// remoteBoot, which reads the script from stdin. tag ends up in the argv of
// timeout and sh ($0), so killRemote can find them. LC_ALL=C also makes
// ${#var} count bytes.
func remoteScript(timeout time.Duration, tag string) string {
	secs := strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64)
	return "LC_ALL=C exec timeout -k 5 " + secs + "s /bin/sh -c " + Quote(remoteBoot) + " " + tag
}

// scriptHeader is what remoteBoot reads before the command's stdin.
func scriptHeader(script string) string {
	return strconv.Itoa(len(script)) + "\n" + script
}

// killScript TERMs the processes whose argv holds tag. OpenSSH ignores
// channel signals for root logins ("session signalling requires privilege
// separation") and does not kill a command when its channel closes, so a
// cancelled command is found by its tag instead. The pattern brackets one
// character so it does not match the shell running it.
func killScript(tag string) string {
	pat := Quote(tag[:1] + "[" + tag[1:2] + "]" + tag[2:])
	return "if command -v pkill >/dev/null 2>&1; then pkill -TERM -f -- " + pat + "; else " +
		"for d in /proc/[0-9]*; do if tr '\\0' ' ' < $d/cmdline 2>/dev/null | grep -q -- " + pat +
		"; then kill -TERM ${d#/proc/} 2>/dev/null; fi; done; fi; exit 0"
}

// Run runs cmd on the host in a new session (no PTY, so stderr stays apart).
func (s *SSH) Run(ctx context.Context, cmd Cmd) (Result, error) {
	timeout := cmd.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	label := labelOf(cmd)
	fail := func(err error) (Result, error) {
		return Result{Exit: -1}, s.runErr(label, err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err) // do not start what is already cancelled
	}
	if err := checkScript(cmd.Script); err != nil {
		return fail(err)
	}
	release, err := s.acquireSession(ctx)
	if err != nil {
		return fail(err)
	}
	defer release()
	sess, err := s.newSession(ctx)
	if err != nil {
		return fail(fmt.Errorf("new session: %w", err))
	}
	defer sess.Close()
	out := newOutputs(cmd, s.log)
	if err := attachStreams(sess, cmd, out); err != nil {
		return fail(err)
	}
	s.log.printf("$ %s", label)
	start := time.Now()
	tag := "wptest-run-" + randHex()
	if err := sess.Start(remoteScript(timeout, tag)); err != nil {
		return fail(fmt.Errorf("start: %w", err))
	}
	timedOut, err := s.waitRemote(ctx, sess, tag, timeout)
	d := time.Since(start)
	out.flush()
	return s.outcome(ctx, cmd, timeout, out, d, timedOut, err)
}

// runErr wraps a failure of label with the host's name and, when the
// connection is dead, why.
func (s *SSH) runErr(label string, err error) error {
	if d, ok := s.deadErr.Load().(error); ok {
		err = fmt.Errorf("%w (%v)", err, d)
	}
	return fmt.Errorf("[%s] %s: %w", s.name, label, err)
}

// acquireSession takes one of the connection's session slots (sshd's
// MaxSessions); release gives it back.
func (s *SSH) acquireSession(ctx context.Context) (release func(), err error) {
	select {
	case s.sessions <- struct{}{}:
		return func() { <-s.sessions }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.done:
		return nil, errors.New("host closed")
	}
}

// attachStreams points the session's stdout and stderr at out and feeds
// its stdin: the script (remoteBoot reads it first), then cmd.Stdin.
func attachStreams(sess *ssh.Session, cmd Cmd, out *outputs) error {
	sess.Stdout = out.stdoutW
	sess.Stderr = out.stderrW
	// Our own copy, not sess.Stdin: Session.Wait would wait for a reader
	// that never ends even after the command exits.
	w, err := sess.StdinPipe()
	if err != nil {
		return err
	}
	go func() {
		defer w.Close()
		if _, err := io.WriteString(w, scriptHeader(cmd.Script)); err != nil || cmd.Stdin == nil {
			return
		}
		_, _ = io.Copy(w, cmd.Stdin)
	}()
	return nil
}

// waitRemote waits for the started command, for ctx or for a backstop
// past timeout; on the last two it stops the remote command by its tag.
func (s *SSH) waitRemote(ctx context.Context, sess *ssh.Session, tag string, timeout time.Duration) (timedOut bool, err error) {
	waitc := make(chan error, 1)
	go func() { waitc <- sess.Wait() }()
	// The remote timeout should fire first; ours is the backstop for a
	// host that stopped answering.
	backstop := time.NewTimer(timeout + 10*time.Second)
	defer backstop.Stop()
	select {
	case err = <-waitc:
	case <-ctx.Done():
	case <-backstop.C:
		timedOut = true
	}
	if ctx.Err() != nil || timedOut {
		// `timeout` passes a TERM on to the command's process group.
		_ = sess.Signal(ssh.SIGTERM) // honoured for non-root logins only
		sess.Close()                 // frees the server's session slot for the kill
		s.killRemote(tag)
		select {
		case <-waitc:
		case <-time.After(5 * time.Second):
		}
	}
	return timedOut, err
}

// outcome turns how the remote command ended into Run's result and error:
// a timeout (ours or the remote one), cancellation, an exit status, or a
// connection lost before the status came.
func (s *SSH) outcome(ctx context.Context, cmd Cmd, timeout time.Duration, out *outputs, d time.Duration, timedOut bool, err error) (Result, error) {
	label := labelOf(cmd)
	if timedOut {
		res := out.result(-1, d)
		s.log.printf("%s: timed out after %s", label, timeout)
		return res, &TimeoutError{Host: s.name, Label: cmd.Label, Timeout: timeout, Result: res}
	}
	if ctx.Err() != nil {
		return out.result(-1, d), fmt.Errorf("[%s] %s: %w", s.name, label, ctx.Err())
	}
	var ee *ssh.ExitError
	var missing *ssh.ExitMissingError
	switch {
	case err == nil:
		return out.result(0, d), nil
	case errors.As(err, &ee):
		code := ee.ExitStatus()
		res := out.result(code, d)
		// 124: timeout TERMed it; 137: it ignored TERM and was KILLed.
		if (code == 124 || code == 137) && d >= timeout {
			s.log.printf("%s: timed out after %s", label, timeout)
			return res, &TimeoutError{Host: s.name, Label: cmd.Label, Timeout: timeout, Result: res}
		}
		s.log.printf("%s: exit status %d", label, code)
		return res, &ExitError{Host: s.name, Label: cmd.Label, Code: code, Stderr: res.Stderr, Stdout: errStdout(cmd, res)}
	case errors.As(err, &missing):
		return out.result(-1, d), s.runErr(label, errors.New("connection lost before the exit status arrived: outcome unknown"))
	default:
		return out.result(-1, d), s.runErr(label, err)
	}
}

// newSession opens a session channel. sshd frees a closed session's slot
// (MaxSessions) a moment after the client closed it, so a refused open is
// retried briefly rather than failing a command that never started.
func (s *SSH) newSession(ctx context.Context) (*ssh.Session, error) {
	delay := 20 * time.Millisecond
	for tries := 1; ; tries++ {
		sess, err := s.client.NewSession()
		var oce *ssh.OpenChannelError
		if err == nil || !errors.As(err, &oce) || tries == 8 {
			return sess, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(delay):
		}
		delay *= 2
	}
}

// killRemote TERMs a cancelled command's processes from a second session.
func (s *SSH) killRemote(tag string) {
	sess, err := s.newSession(context.Background())
	if err != nil {
		s.log.printf("cannot stop %s: %v", tag, err)
		return
	}
	defer sess.Close()
	done := make(chan error, 1)
	go func() { done <- sess.Run(killScript(tag)) }()
	select {
	case err = <-done:
		if err != nil {
			s.log.printf("stopping %s: %v", tag, err)
		}
	case <-time.After(10 * time.Second):
		s.log.printf("stopping %s: no answer in 10s", tag)
	}
}

// sftpClient opens the host's one SFTP client on first use.
func (s *SSH) sftpClient() (*sftp.Client, error) {
	s.sftpMu.Lock()
	defer s.sftpMu.Unlock()
	if s.sftp != nil {
		return s.sftp, nil
	}
	c, err := sftp.NewClient(s.client, sftp.UseConcurrentWrites(true), sftp.UseConcurrentReads(true))
	if err != nil {
		return nil, fmt.Errorf("sftp: %w", err)
	}
	// Plain SFTP rename refuses to replace an existing file on OpenSSH;
	// without posix-rename there is no atomic overwrite.
	if _, ok := c.HasExtension("posix-rename@openssh.com"); !ok {
		c.Close()
		return nil, errors.New("sftp: server lacks posix-rename@openssh.com, so uploads cannot be atomic")
	}
	_, s.fsync = c.HasExtension("fsync@openssh.com")
	s.sftp = c
	// If the SFTP session dies, the next Put/Get opens a new one.
	go func() {
		_ = c.Wait()
		s.sftpMu.Lock()
		if s.sftp == c {
			s.sftp = nil
		}
		s.sftpMu.Unlock()
	}()
	return c, nil
}

// Put uploads r to path atomically: dir/.name.tmp-<random> is created,
// given its mode and owner (before any content), written, fsynced, then
// PosixRenamed over path. On error the temp file is removed.
func (s *SSH) Put(ctx context.Context, p string, r io.Reader, opt PutOptions) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("[%s] put %s: %w", s.name, p, err)
		}
	}()
	uid, gid := -1, -1
	if opt.Owner != "" || opt.Group != "" {
		if uid, gid, err = s.owner(ctx, opt); err != nil {
			return err
		}
	}
	c, err := s.sftpClient()
	if err != nil {
		return err
	}
	dir, base := path.Split(p)
	if dir == "" {
		dir = "."
	}
	tmp := path.Join(dir, "."+base+".tmp-"+randHex())
	f, err := c.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			_ = c.Remove(tmp)
		}
	}()
	if err = f.Chmod(modeOf(opt)); err != nil {
		return fmt.Errorf("chmod: %w", err)
	}
	if uid >= 0 || gid >= 0 {
		if uid < 0 || gid < 0 {
			// SFTP sets uid and gid together: keep the one not asked for.
			fi, err := f.Stat()
			if err != nil {
				return err
			}
			st, ok := fi.Sys().(*sftp.FileStat)
			if !ok {
				return errors.New("stat: no owner in SFTP attributes")
			}
			if uid < 0 {
				uid = int(st.UID)
			}
			if gid < 0 {
				gid = int(st.GID)
			}
		}
		if err = f.Chown(uid, gid); err != nil {
			return fmt.Errorf("chown %d:%d: %w", uid, gid, err)
		}
	}
	if _, err = f.ReadFrom(ctxReader{ctx, r}); err != nil {
		return err
	}
	if s.fsync {
		if err = f.Sync(); err != nil {
			return fmt.Errorf("fsync: %w", err)
		}
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = c.PosixRename(tmp, p); err != nil {
		return fmt.Errorf("rename %s: %w", tmp, err)
	}
	return nil
}

// owner resolves opt's names to ids on the host (-1 = keep), once per name.
func (s *SSH) owner(ctx context.Context, opt PutOptions) (uid, gid int, err error) {
	uid, gid = -1, -1
	if opt.Owner != "" {
		if uid, err = s.lookupID(ctx, "u", opt.Owner); err != nil {
			return
		}
	}
	if opt.Group != "" {
		gid, err = s.lookupID(ctx, "g", opt.Group)
	}
	return
}

func (s *SSH) lookupID(ctx context.Context, kind, name string) (int, error) {
	key := kind + ":" + name
	s.idMu.Lock()
	id, ok := s.ids[key]
	s.idMu.Unlock()
	if ok {
		return id, nil
	}
	script := "id -u -- " + Quote(name)
	what := "owner"
	if kind == "g" {
		script = "getent group -- " + Quote(name) + " | cut -d: -f3"
		what = "group"
	}
	res, err := s.Run(ctx, Cmd{Script: script, Label: "resolve " + what + " " + name, Timeout: time.Minute})
	if err != nil {
		return 0, fmt.Errorf("%s %q: %w", what, name, err)
	}
	id, err = strconv.Atoi(strings.TrimSpace(string(res.Stdout)))
	if err != nil {
		return 0, fmt.Errorf("%s %q: no such %s on %s", what, name, what, s.name)
	}
	s.idMu.Lock()
	s.ids[key] = id
	s.idMu.Unlock()
	return id, nil
}

// Get opens path over SFTP.
func (s *SSH) Get(ctx context.Context, p string) (io.ReadCloser, error) {
	c, err := s.sftpClient()
	if err != nil {
		return nil, fmt.Errorf("[%s] get %s: %w", s.name, p, err)
	}
	f, err := c.Open(p)
	if err != nil {
		return nil, fmt.Errorf("[%s] get %s: %w", s.name, p, err)
	}
	return f, nil
}

// DialContext opens a direct-tcpip channel: the connection starts at the
// host, so "127.0.0.1:3306" is the host's own MariaDB.
func (s *SSH) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := s.client.DialContext(ctx, network, addr)
	if err != nil {
		return nil, fmt.Errorf("[%s] dial %s %s through ssh: %w", s.name, network, addr, err)
	}
	return c, nil
}

func (s *SSH) Facts(ctx context.Context) (Facts, error) { return facts(ctx, s) }
