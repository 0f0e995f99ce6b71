package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/suggest"
)

// command is one wptest command, or a group of them (machines, fixture):
// what the command list says of it, what --help prints, its flags and what
// it runs. Every command is one of these, as in hcloud's and Terraform's
// CLIs, so help, flag errors and positional arguments are handled once
// (exec), not in each command.
type command struct {
	name     string   // as typed after wptest: "plan", "machines up"
	synopsis string   // one line: the command list's and --help's
	usage    string   // the usage line, after "wptest "
	about    string   // more of what --help says (optional)
	examples []string // what --help shows, at least one
	// args: the command takes positional arguments (and checks how many);
	// without, any is a usage error.
	args bool
	// setup adds the command's flags to fs and returns what runs with
	// them (define builds it).
	setup func(fs *flag.FlagSet) runFunc
	subs  []*command // a group's commands: the first argument picks one
}

// runFunc runs a command with its positional arguments.
type runFunc func(ctx context.Context, a *App, args []string) error

// define is a command's setup from its flag builder, over the command's
// own flags type F, and the run func that reads them.
func define[F any](flags func(*flag.FlagSet, *F), run func(context.Context, *App, *F, []string) error) func(*flag.FlagSet) runFunc {
	return func(fs *flag.FlagSet) runFunc {
		f := new(F)
		if flags != nil {
			flags(fs, f)
		}
		return func(ctx context.Context, a *App, args []string) error { return run(ctx, a, f, args) }
	}
}

// noFlags is the flags type of a command that has none.
type noFlags struct{}

// flagSet is c's flags, built as exec builds them, and what runs with them.
func (c *command) flagSet() (*flag.FlagSet, runFunc) {
	fs := flag.NewFlagSet("wptest "+c.name, flag.ContinueOnError)
	// Errors and help are exec's to print, each once.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var run runFunc
	if c.setup != nil {
		run = c.setup(fs)
	}
	return fs, run
}

// exec parses args as c's (flags anywhere among the positional arguments)
// and runs c; -h and --help print c's help. A usage error names the
// command whose help says more.
func (c *command) exec(ctx context.Context, a *App, args []string) error {
	if c.subs != nil {
		return c.dispatch(ctx, a, args)
	}
	fs, run := c.flagSet()
	pos, err := parseInterleaved(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		c.help(a.Stderr)
		return err
	case err != nil:
		return c.named(flagError(fs, err))
	case !c.args && len(pos) > 0:
		return c.named(usage("unexpected argument %q", pos[0]))
	}
	return c.named(run(ctx, a, pos))
}

// dispatch runs the group's command the first argument names.
func (c *command) dispatch(ctx context.Context, a *App, args []string) error {
	if len(args) == 0 {
		return c.named(usage("missing command (want %s)", c.subNames()))
	}
	switch args[0] {
	case "-h", "--help", "help":
		c.help(a.Stderr)
		return flag.ErrHelp
	}
	for _, s := range c.subs {
		if s.name == c.name+" "+args[0] {
			return s.exec(ctx, a, args[1:])
		}
	}
	var names []string
	for _, s := range c.subs {
		names = append(names, s.short())
	}
	return c.named(usage("unknown command %q%s", args[0], meant(args[0], names, "want "+c.subNames())))
}

// short is c's name within its group ("up" of "machines up").
func (c *command) short() string { return c.name[strings.LastIndex(c.name, " ")+1:] }

// subNames is "plan, up, list or drivers".
func (c *command) subNames() string {
	var n []string
	for _, s := range c.subs {
		n = append(n, s.short())
	}
	return strings.Join(n[:len(n)-1], ", ") + " or " + n[len(n)-1]
}

// usageError is a command line wptest does not take: one line that names
// the problem and the help that says more. Exit 2.
type usageError struct {
	msg string
	cmd string // whose help to see: exec fills it in
}

func (e *usageError) Error() string {
	return fmt.Sprintf("%s; see 'wptest %s --help'", e.msg, e.cmd)
}

// usage is a usage error (exit 2) of the command that returns it.
func usage(format string, v ...any) error {
	return exitcode.With(exitcode.Config, &usageError{msg: fmt.Sprintf(format, v...)})
}

// named fills in, in a usage error err holds, the command whose help to see.
func (c *command) named(err error) error {
	if ue, ok := errors.AsType[*usageError](err); ok && ue.cmd == "" {
		ue.cmd = c.name
	}
	return err
}

// flagError is the flag package's parse error as one usage line: an
// unknown flag with the flag it may have meant.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		for i, n := range names {
			names[i] = dashed(n)
		}
		msg = "unknown flag " + dashed(name) + meant(dashed(name), names, "")
	}
	return usage("%s", msg)
}

// meant is " (did you mean X?)" for the name nearest to word, else
// " (otherwise)", or "" without one.
func meant(word string, names []string, otherwise string) string {
	if s, ok := suggest.Closest(word, names); ok {
		return " (did you mean " + s + "?)"
	}
	if otherwise != "" {
		return " (" + otherwise + ")"
	}
	return ""
}

// dashed is a flag as the help writes it: -o, --target.
func dashed(name string) string {
	if len([]rune(name)) == 1 {
		return "-" + name
	}
	return "--" + name
}

// parseInterleaved parses flags that may come before, between or after
// the positional arguments, and returns those.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil // after "--", no flags
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}
