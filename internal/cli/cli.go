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
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/wptest/wptest/internal/exitcode"
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

// command is one subcommand. Each lives in its own cmd_*.go file and adds
// itself to commands in an init function, so independent work does not
// collide in one table.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, a *App, args []string) error
}

var commands = map[string]command{}

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("cli: duplicate command " + c.name)
	}
	commands[c.name] = c
}

// Main is the wptest process: SIGINT and SIGTERM cancel the command's
// context (its cleanups still run, on a context of their own), and the
// result is the exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fi, _ := os.Stderr.Stat()
	return Run(ctx, &App{
		Args:      os.Args[1:],
		Env:       os.Environ(),
		Stdin:     os.Stdin,
		Stdout:    os.Stdout,
		Stderr:    os.Stderr,
		StderrTTY: fi != nil && fi.Mode()&os.ModeCharDevice != 0,
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
	if len(a.Args) == 0 || a.Args[0] == "-h" || a.Args[0] == "--help" || a.Args[0] == "help" {
		usage(a.Stderr)
		if len(a.Args) == 0 {
			return exitcode.Config
		}
		return exitcode.OK
	}
	c, ok := commands[a.Args[0]]
	if !ok {
		fmt.Fprintf(a.Stderr, "wptest: unknown command %q\n\n", a.Args[0])
		usage(a.Stderr)
		return exitcode.Config
	}
	err := c.run(ctx, a, a.Args[1:])
	if err == nil {
		return exitcode.OK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitcode.OK
	}
	fmt.Fprintf(a.Stderr, "wptest %s: %v\n", c.name, err)
	return exitcode.Of(err)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: wptest <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nexit codes: 0 ok, 1 unexpected, 2 usage/config, 3 capacity, 4 provisioning,\n5 fixture hash mismatch, 6 load run, 7 teardown incomplete, 8 interrupted (nothing left)")
}

// newFlags returns a FlagSet for a command that writes its usage to stderr
// and never exits the process.
func newFlags(a *App, name string) *flag.FlagSet {
	fs := flag.NewFlagSet("wptest "+name, flag.ContinueOnError)
	fs.SetOutput(a.Stderr)
	return fs
}

// parseFlags parses args and maps a bad flag to a usage error (exit 2).
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return exitcode.With(exitcode.Config, err)
	}
	if fs.NArg() > 0 {
		return exitcode.With(exitcode.Config, fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	return nil
}

// multiFlag collects a repeated flag (-var a=1 -var b=2) in order.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
