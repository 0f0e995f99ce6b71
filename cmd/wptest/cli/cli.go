// Package cli holds wptest's subcommands. Process state (args, env, stdio) is
// injected through App, so a whole command runs inside a test (k6's model);
// nothing below this package reads flags or the environment.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/termsafe"
	_ "github.com/wptest/wptest/kinds/all" // the scenario kinds of their own packages
)

// App is one process's state.
type App struct {
	Args   []string // without the program name
	Env    []string // KEY=VALUE, as os.Environ
	Stdin  io.Reader
	Stdout io.Writer // data
	Stderr io.Writer // progress and errors
	// StderrTTY says whether Stderr is a terminal (live progress lines) or not
	// (plain "[host] op: message" lines).
	StderrTTY bool
	// WorkDir is where relative paths and runs/ resolve; "" = current directory.
	WorkDir string
	// CloudBackoff, if set, paces the Hetzner driver's API retries, action
	// polls and teardown attempts instead of its default (1 s doubling to
	// 10 s); tests make those waits instant.
	CloudBackoff func(retries int) time.Duration
	// Executable is this program's path (os.Executable): the agent up
	// installs and the binary run uploads, unless --agent names another.
	Executable string
	// Hostname is this machine's name (os.Hostname): the owner label of
	// the machines it makes and the host a bench report names.
	Hostname string
	// Now is the clock (time.Now): run ids, expiry labels, the cloud
	// journal's times and how long a step took. Never in anything hashed.
	Now func() time.Time
	// Addrs are this machine's interface addresses (net.InterfaceAddrs):
	// its public one is allow_ssh_from's default. nil: none known.
	Addrs func() []netip.Addr
}

// interfaceAddrs are this machine's interface addresses (none when unknown).
func interfaceAddrs() []netip.Addr {
	as, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []netip.Addr
	for _, a := range as {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			out = append(out, p.Addr())
		}
	}
	return out
}

// addrs are a.Addrs(), or none.
func (a *App) addrs() []netip.Addr {
	if a.Addrs == nil {
		return nil
	}
	return a.Addrs()
}

// Getenv returns the value of key in a.Env.
func (a *App) Getenv(key string) string {
	for i := len(a.Env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(a.Env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// commands is every command, in the order usage lists them: the one
// place that says what wptest can do. Each is defined in its cmd_*.go file.
func commands() []*command {
	return []*command{
		profilesCommand(), planCommand(), upCommand(), applyCommand(), swapCommand(), statusCommand(),
		fixtureCommand(), seedCommand(), verifyCommand(), benchCommand(), srvstatCommand(), h3probeCommand(),
		machinesCommand(), runCommand(), reportCommand(), compareCommand(), downCommand(), gcCommand(),
		benchJobCommand(), versionCommand(),
	}
}

// lookup finds the command called name.
func lookup(name string) (*command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return nil, false
}

// Main is the wptest process: SIGINT and SIGTERM cancel the command's
// context (its cleanups still run, on a context of their own), and the
// result is the exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fi, _ := os.Stderr.Stat()
	exe, _ := os.Executable()
	hostname, _ := os.Hostname()
	return Run(ctx, &App{
		Args:       os.Args[1:],
		Env:        os.Environ(),
		Stdin:      os.Stdin,
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		StderrTTY:  fi != nil && fi.Mode()&os.ModeCharDevice != 0,
		Executable: exe,
		Hostname:   hostname,
		Now:        time.Now,
		Addrs:      interfaceAddrs,
	})
}

// Run runs one wptest invocation and returns its exit code.
func Run(ctx context.Context, a *App) int {
	if a.Stdout == nil {
		a.Stdout = io.Discard
	}
	if a.Stderr == nil {
		a.Stderr = io.Discard
	}
	a.fromProcess()
	if len(a.Args) == 0 || a.Args[0] == "-h" || a.Args[0] == "--help" || a.Args[0] == "help" {
		writeUsage(a.Stderr)
		if len(a.Args) == 0 {
			return exitcode.Config
		}
		return exitcode.OK
	}
	if a.Args[0] == "--version" || a.Args[0] == "-version" {
		a.Args = append([]string{"version"}, a.Args[1:]...)
	}
	c, ok := lookup(a.Args[0])
	if !ok {
		var names []string
		for _, c := range commands() {
			names = append(names, c.name)
		}
		fmt.Fprintf(a.Stderr, "wptest: unknown command %q%s\n\n", a.Args[0], meant(a.Args[0], names, ""))
		writeUsage(a.Stderr)
		return exitcode.Config
	}
	err := c.exec(ctx, a, a.Args[1:])
	if err == nil {
		return exitcode.OK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitcode.OK
	}
	name := c.name
	if ue, ok := errors.AsType[*usageError](err); ok {
		name = ue.cmd // a group's command: "machines up"
	}
	// An error may quote a file someone else wrote (a run directory's
	// names, a journal): no control character of it reaches the terminal.
	fmt.Fprintf(a.Stderr, "wptest %s: %s\n", name, termsafe.Text(err.Error()))
	return exitcode.Of(err)
}

// fromProcess fills what the caller left unset from this process, as Main
// does: a test sets only what it looks at (a hostname, a clock).
func (a *App) fromProcess() {
	if a.Executable == "" {
		a.Executable, _ = os.Executable()
	}
	if a.Hostname == "" {
		a.Hostname, _ = os.Hostname()
	}
	if a.Now == nil {
		a.Now = time.Now
	}
}

// since is how long ago t was, by a's clock.
func (a *App) since(t time.Time) time.Duration { return a.Now().Sub(t) }

// writeUsage is wptest's own help: its commands and exit codes.
func writeUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: wptest <command> [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.synopsis)
	}
	fmt.Fprintln(w, "\nEach command's help, with examples: wptest COMMAND --help; this tool's version: wptest --version")
	fmt.Fprintln(w, "\nexit codes: 0 ok, 1 unexpected, 2 usage/config, 3 capacity, 4 provisioning,\n5 fixture hash mismatch, 6 load run, 7 teardown incomplete, 8 interrupted (nothing left)")
}

// multiFlag collects a repeated flag (-var a=1 -var b=2) in order.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
func (m *multiFlag) Type() string       { return "string" }
