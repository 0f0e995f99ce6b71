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
func reportCommand() *command {
	return &command{name: "report", synopsis: "write report.md and report.html for a run directory (runs/<id>)",
		usage: "report RUN [--baseline RUN] [-o text|json]",
		about: "RUN is a run's id or its directory. It writes report.md, report.html and claims.json there and prints their paths; -o json prints \"Does it reproduce?\" as claims.json holds it.",
		examples: []string{"wptest report 20261205-101500-a1b2c3",
			"wptest report runs/20261205-101500-a1b2c3 --baseline 20261204-093000-d4e5f6",
			"wptest report 20261205-101500-a1b2c3 -o json"},
		args: true,
		setup: define(func(fs *flag.FlagSet, f *reportFlags) {
			fs.StringVar(&f.baseline, "baseline", "", "another run (its id or directory): add a section comparing this run with it (as wptest compare does)")
			outputVar(fs, &f.output)
		}, runReport)}
}

type reportFlags struct{ baseline, output string }

func runReport(ctx context.Context, a *App, f *reportFlags, args []string) error {
	if len(args) != 1 {
		return usage("want one run (its id or directory), got %d", len(args))
	}
	dir, err := findRun(a, runsDir, args[0], true)
	if err != nil {
		return err
	}
	var base string
	if f.baseline != "" {
		if base, err = findRun(a, runsDir, f.baseline, true); err != nil {
			return fmt.Errorf("--baseline: %w", err)
		}
	}
	out, err := report.WriteWith(absPath(a, dir), report.Options{Baseline: absPath(a, base)})
	if err != nil {
		return exitcode.With(exitcode.Config, err)
	}
	if f.output == "json" { // "Does it reproduce?", as claims.json holds it
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
