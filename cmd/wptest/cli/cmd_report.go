package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/termsafe"
	"github.com/wptest/wptest/report"
)

// wptest report: Markdown and one self-contained HTML file from a run directory.
func flagErrHelp() error { return flag.ErrHelp }

func runReport(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "report")
	fs.Usage = func() {
		fmt.Fprintln(a.Stderr, "usage: wptest report runs/<id> [--baseline runs/<other id>] [-o text|json]")
		fs.PrintDefaults()
	}
	baseline := fs.String("baseline", "", "another run `dir`ectory: add a section comparing this run with it (as wptest compare does)")
	output := outputFlag(fs)
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
	out, err := report.WriteWith(absPath(a, dir), report.Options{Baseline: absPath(a, *baseline)})
	if err != nil {
		return exitcode.With(exitcode.Config, err)
	}
	if *output == "json" { // "Does it reproduce?", as claims.json holds it
		b, err := out.Table.JSON()
		if err != nil {
			return err
		}
		_, err = a.Stdout.Write(termsafe.JSON(b))
		return err
	}
	for _, p := range []string{out.Markdown, out.HTML, out.Claims} {
		fmt.Fprintln(a.Stdout, termsafe.Line(p))
	}
	return nil
}
