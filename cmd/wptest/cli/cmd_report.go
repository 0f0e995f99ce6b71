package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/report"
)

// wptest report: Markdown and one self-contained HTML file from a run directory.
func flagErrHelp() error { return flag.ErrHelp }

func runReport(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "report")
	fs.Usage = func() { fmt.Fprintln(a.Stderr, "usage: wptest report runs/<id>") }
	dir := ""
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		dir, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if dir == "" {
		fs.Usage()
		return exitcode.With(exitcode.Config, fmt.Errorf("a run directory is required"))
	}
	out, err := report.Write(absPath(a, dir))
	if err != nil {
		return exitcode.With(exitcode.Config, err)
	}
	fmt.Fprintln(a.Stdout, out.Markdown)
	fmt.Fprintln(a.Stdout, out.HTML)
	return nil
}
