package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"

	"github.com/wptest/wptest/compare"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/termsafe"
)

// wptest compare RUN_A RUN_B: run B against run A, benchstat's way.
func runCompare(ctx context.Context, a *App, args []string) error {
	fs := newFlags(a, "compare")
	fs.Usage = func() {
		fmt.Fprintln(a.Stderr, "usage: wptest compare runs/<A> runs/<B> [-o text|json]")
		fs.PrintDefaults()
	}
	output := outputFlag(fs)
	dirs, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) != 2 {
		fs.Usage()
		return exitcode.With(exitcode.Config, fmt.Errorf("want two run directories (A, the baseline, then B), got %d", len(dirs)))
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
		b, err := json.MarshalIndent(c, "", "  ")
		if err != nil {
			return err
		}
		// The runs' names may hold C1 controls, which JSON leaves as they are.
		_, err = a.Stdout.Write(append(termsafe.JSON(b), '\n'))
		return err
	}
	return c.WriteText(a.Stdout)
}

// parseInterleaved parses flags that may come before, between or after
// the positional arguments, and returns those.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, exitcode.With(exitcode.Config, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}
