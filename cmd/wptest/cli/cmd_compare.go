package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/wptest/wptest/compare"
	"github.com/wptest/wptest/internal/exitcode"
)

// wptest compare RUN_A RUN_B: run B against run A, benchstat's way.
func compareCommand() *command {
	return &command{name: "compare", synopsis: "compare two runs point by point: medians, change and a significance test (A is the baseline)",
		usage: "compare RUN_A RUN_B [-o text|json]",
		about: "Each run by its id or its directory. For every point and headline figure both runs have: the two medians, the change and a two-sided Mann-Whitney U test; a change reads ~ unless p < 0.05.",
		examples: []string{"wptest compare 20261204-093000-d4e5f6 20261205-101500-a1b2c3",
			"wptest compare runs/20261204-093000-d4e5f6 runs/20261205-101500-a1b2c3 -o json"},
		args:  true,
		setup: define(func(fs *flag.FlagSet, output *string) { outputVar(fs, output) }, runCompare)}
}

func runCompare(ctx context.Context, a *App, output *string, names []string) error {
	if len(names) != 2 {
		return usage("want two runs (A, the baseline, then B), got %d", len(names))
	}
	var dirs [2]string
	for i, n := range names {
		d, err := findRun(a, runsDir, n, true)
		if err != nil {
			return fmt.Errorf("run %s: %w", "AB"[i:i+1], err)
		}
		dirs[i] = d
	}
	var runs [2]compare.Run
	for i, d := range dirs {
		r, err := compare.Load(absPath(a, d))
		if err != nil {
			return exitcode.With(exitcode.Config, fmt.Errorf("run %s (%s): %w", "AB"[i:i+1], d, err))
		}
		r.Dir = d // as the user named it
		runs[i] = r
	}
	c, err := compare.Compare(runs[0], runs[1])
	if err != nil {
		return exitcode.With(exitcode.Config, fmt.Errorf("compare %s with %s: %w", dirs[1], dirs[0], err))
	}
	if *output == "json" {
		// The runs' names may hold C1 controls, which JSON leaves as they are (writeJSON escapes them).
		return writeJSON(a.Stdout, c, true)
	}
	return c.WriteText(a.Stdout)
}
