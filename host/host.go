// Package host is the floor every other package stands on: a Host runs
// commands, puts and gets files, and dials network addresses, the same way
// whether it is this machine (Local) or a server reached over SSH (SSH).
//
// host imports nothing else of wptest. provision, fixture and bench depend on
// the Host interface only, never on each other.
package host

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net"
	"strings"
	"time"
)

// Host is what the rest of wptest needs from a machine.
type Host interface {
	// Name is the short name used in logs and errors ("local", "web-1", "root@10.0.0.2:22").
	Name() string
	// Run runs cmd.Script with /bin/sh on the host. A non-zero exit is
	// returned as *ExitError (Result is filled too); other errors mean the
	// command's outcome is unknown (transport failure, timeout).
	Run(ctx context.Context, cmd Cmd) (Result, error)
	// Put writes path atomically: a temp file in the same directory, mode and
	// owner set, then renamed over the target (PosixRename over SFTP), so a
	// reader never sees a partial file.
	Put(ctx context.Context, path string, r io.Reader, opt PutOptions) error
	// Get opens path for reading. The caller closes it.
	Get(ctx context.Context, path string) (io.ReadCloser, error)
	// DialContext opens a connection from the host's point of view (through
	// the SSH connection for a remote host), e.g. to MariaDB on 127.0.0.1:3306.
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
	// Facts reads what the host is: OS, version, arch, init system, package
	// manager, SELinux mode and firewalld state.
	Facts(ctx context.Context) (Facts, error)
	Close() error
}

// Cmd is one command to run on a host.
type Cmd struct {
	// Script is a shell script run by /bin/sh as -c would run it. Quote
	// arguments with Quote. It never reaches an argv (ps shows those to
	// every user of the host): Local hands it to sh on fd 3, SSH on stdin
	// ahead of Stdin. A secret in it still reaches the argv of the commands
	// it runs: pass secrets on Stdin, in a file or in a shell variable.
	Script string
	// Stdin, if set, is copied to the command's standard input.
	Stdin io.Reader
	// Timeout bounds the command (0 = DefaultTimeout). It is enforced on the
	// host too (coreutils timeout), so a dead connection cannot leave it running.
	Timeout time.Duration
	// Label names the command in logs and errors (e.g. the op's ID).
	Label string
	// Stdout and Stderr, if set, also receive the streams as they arrive.
	Stdout, Stderr io.Writer
	// SecretStdout: what the command prints is a secret (credentials it
	// reads): Result.Stdout has it, the host's log and errors never do.
	SecretStdout bool
}

// DefaultTimeout applies when Cmd.Timeout is zero.
const DefaultTimeout = 10 * time.Minute

// Result is what a finished command left.
type Result struct {
	Exit     int
	Stdout   []byte
	Stderr   []byte
	Duration time.Duration
}

// PutOptions are the file's mode and owner. Empty Owner/Group keep the
// connecting user's.
type PutOptions struct {
	Mode  fs.FileMode
	Owner string
	Group string
}

// Facts describe a host. Platform is the profile platform key ("debian-12",
// "debian-13", "almalinux-9"), derived from /etc/os-release ID and
// VERSION_ID's major part.
type Facts struct {
	OSID           string `json:"os_id"`
	OSVersion      string `json:"os_version"`
	Platform       string `json:"platform"`
	Arch           string `json:"arch"`
	Init           string `json:"init"`            // "systemd" or "none" (start services by hand)
	PackageManager string `json:"package_manager"` // "apt" or "dnf"
	// SELinux is "enforcing", "permissive", "disabled" (the tools or
	// config are there, the kernel does not enforce) or "absent".
	SELinux string `json:"selinux"`
	// Firewalld is "running", "not running" (installed, stopped) or "absent".
	Firewalld string `json:"firewalld"`
}

// The SELinux and firewalld states Facts reports.
const (
	SELinuxEnforcing  = "enforcing"
	SELinuxPermissive = "permissive"
	SELinuxDisabled   = "disabled"
	SELinuxAbsent     = "absent"

	FirewalldRunning    = "running"
	FirewalldNotRunning = "not running"
	FirewalldAbsent     = "absent"
)

// SELinuxEnabled reports whether the kernel applies SELinux policy
// (enforcing or permissive): labels matter then.
func (f Facts) SELinuxEnabled() bool {
	return f.SELinux == SELinuxEnforcing || f.SELinux == SELinuxPermissive
}

// GoArch is the GOARCH of a host's `uname -m` ("" when unknown): whether
// this wptest binary can run there.
func (f Facts) GoArch() string {
	switch f.Arch {
	case "x86_64", "amd64":
		return "amd64"
	case "aarch64", "arm64":
		return "arm64"
	}
	return ""
}

// ExitError is a command that ran and exited non-zero. Its message names the
// host, the label, the exit code and the last lines of stderr.
type ExitError struct {
	Host   string
	Label  string
	Code   int
	Stderr []byte
	Stdout []byte
}

func (e *ExitError) Error() string {
	label := e.Label
	if label == "" {
		label = "command"
	}
	msg := fmt.Sprintf("[%s] %s: exit status %d", e.Host, label, e.Code)
	tail := Tail(e.Stderr, 10)
	if tail == "" {
		tail = Tail(e.Stdout, 10)
	}
	if tail != "" {
		msg += "\n" + indent(tail, "    ")
	}
	return msg
}

// errStdout is what of a failed command's stdout its error may show.
func errStdout(cmd Cmd, res Result) []byte {
	if cmd.SecretStdout {
		return nil
	}
	return res.Stdout
}

// Tail returns the last n non-empty lines of b (a NUL ends a line too: an
// error message is text).
func Tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(string(b), "\x00", "\n"), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

func indent(s, p string) string {
	return p + strings.ReplaceAll(s, "\n", "\n"+p)
}

// Quote quotes s for a POSIX shell.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@,+%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// checkScript refuses a script no shell runs as written: a NUL byte (sh
// reads no further, or drops it, and the script that runs is another).
func checkScript(script string) error {
	if i := strings.IndexByte(script, 0); i >= 0 {
		return fmt.Errorf("the script holds a NUL byte at %d: no shell runs it as written", i)
	}
	return nil
}
