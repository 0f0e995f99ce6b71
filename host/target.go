package host

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Target names a host on the command line: "local" or
// "ssh://user@host:port" (user defaults to root, port to 22).
type Target struct {
	Local bool
	User  string
	Host  string // hostname or IP, without brackets
	Port  int
}

// ParseTarget parses "local" or "ssh://user@host[:port]".
func ParseTarget(s string) (Target, error) {
	if s == "local" {
		return Target{Local: true}, nil
	}
	if !strings.HasPrefix(s, "ssh://") {
		return Target{}, fmt.Errorf("target %q: want \"local\" or \"ssh://user@host:port\"", s)
	}
	u, err := url.Parse(s)
	if err != nil {
		return Target{}, fmt.Errorf("target %q: %w", s, err)
	}
	if u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return Target{}, fmt.Errorf("target %q: unexpected path, query or fragment (want ssh://user@host:port)", s)
	}
	if _, hasPass := u.User.Password(); hasPass {
		return Target{}, fmt.Errorf("target %q: passwords are not accepted in targets; use a key file or ssh-agent", redactTarget(u))
	}
	t := Target{User: u.User.Username(), Host: u.Hostname(), Port: 22}
	if t.User == "" {
		t.User = "root"
	}
	if t.Host == "" {
		return Target{}, fmt.Errorf("target %q: missing host", s)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Target{}, fmt.Errorf("target %q: bad port %q", s, p)
		}
		t.Port = n
	}
	return t, nil
}

func redactTarget(u *url.URL) string {
	c := *u
	c.User = url.User(u.User.Username())
	return c.String()
}

// Addr is "host:port" (IPv6 in brackets), as dialled.
func (t Target) Addr() string { return net.JoinHostPort(t.Host, strconv.Itoa(t.Port)) }

// String is the canonical form: "local" or "ssh://user@host:port".
func (t Target) String() string {
	if t.Local {
		return "local"
	}
	return "ssh://" + t.User + "@" + t.Addr()
}

// Options configure Open. Nothing here is read from the environment: the
// CLI decides (e.g. passes $SSH_AUTH_SOCK as AgentSocket).
type Options struct {
	// Name overrides the host's name in logs and errors (default
	// "local" or "user@host:port").
	Name string
	// KnownHostsFile pins the host keys (required for ssh). The client only
	// negotiates the key types pinned there for the host.
	KnownHostsFile string
	// IdentityFile is an unencrypted private key; AgentSocket an ssh-agent
	// socket path. At least one is required for ssh; both may be given.
	IdentityFile string
	AgentSocket  string
	// Log receives every command's output lines, prefixed "[name] label: ".
	// Stdin is never logged.
	Log io.Writer
	// ConnectTimeout bounds one attempt (TCP connect + SSH handshake);
	// default 15s.
	ConnectTimeout time.Duration
	// WaitFor keeps retrying a refused or timed-out connection (a booting VM)
	// until this much time has passed; 0 tries once. An unknown host key is
	// never retried; a mismatched one only with RetryHostKeyMismatch.
	WaitFor time.Duration
	// RetryHostKeyMismatch retries (never accepts) a host key that does not
	// match the pinned one until WaitFor runs out: a fresh cloud VM may show
	// its image's key before cloud-init installs the injected one.
	RetryHostKeyMismatch bool
	// KeepaliveInterval is how often an SSH keepalive request is sent
	// (default 15s); after KeepaliveMaxMissed (default 4) intervals without
	// an answer the connection is closed, failing what runs on it.
	KeepaliveInterval  time.Duration
	KeepaliveMaxMissed int
}

// Open connects to t: a *Local for "local", an *SSH otherwise.
func Open(ctx context.Context, t Target, opt Options) (Host, error) {
	if t.Local {
		l := NewLocal(opt.Log)
		if opt.Name != "" {
			l.name = opt.Name
			l.log = newHostLog(opt.Log, opt.Name)
		}
		return l, nil
	}
	return DialSSH(ctx, t, opt)
}
