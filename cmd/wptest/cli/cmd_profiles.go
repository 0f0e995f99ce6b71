package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/profiles"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/results"
)

// wptest profiles: the shipped profiles (or one --profile-dir) with their
// description, platforms and aliases.
func profilesCommand() *command {
	return &command{name: "profiles", synopsis: "list the server profiles (name, description, platforms, aliases)",
		usage:    "profiles [--profile-dir DIR] [-o text|json]",
		examples: []string{"wptest profiles", "wptest profiles -o json", "wptest profiles --profile-dir ./my-profile"},
		setup:    define(profilesFlags, runProfiles)}
}

type profilesOpts struct{ output, dir string }

func profilesFlags(fs *flag.FlagSet, f *profilesOpts) {
	outputVar(fs, &f.output)
	fs.StringVar(&f.dir, "profile-dir", "", "describe the profile in this directory instead of the shipped ones")
}

func runProfiles(ctx context.Context, a *App, f *profilesOpts, _ []string) error {
	var list []provision.Header
	if f.dir != "" {
		d := absPath(a, f.dir)
		h, diags := provision.ReadHeader(os.DirFS(filepath.Dir(d)), filepath.Base(d))
		if diags.HasErrors() {
			_ = provision.WriteDiagnostics(a.Stderr, nil, diags, true)
			return exitcode.With(exitcode.Config, fmt.Errorf("profile %s has %s", f.dir, results.Plural(len(diags.Errs()), "error")))
		}
		list = append(list, h)
	} else {
		names := profiles.Names()
		if len(names) == 0 {
			return fmt.Errorf("no profiles are embedded in this binary")
		}
		for _, n := range names {
			h, diags := provision.ReadHeader(profiles.FS, n)
			if diags.HasErrors() {
				_ = provision.WriteDiagnostics(a.Stderr, nil, diags, true)
				return exitcode.With(exitcode.Config, fmt.Errorf("shipped profile %s has %s", n, results.Plural(len(diags.Errs()), "error")))
			}
			list = append(list, h)
		}
	}
	if f.output == "json" {
		return writeJSON(a.Stdout, list, true)
	}
	fmt.Fprintf(a.Stdout, "%-16s %-26s %-16s %s\n", "NAME", "PLATFORMS", "ALIASES", "DESCRIPTION")
	for _, h := range list {
		fmt.Fprintf(a.Stdout, "%-16s %-26s %-16s %s\n", h.Name, strings.Join(h.Platforms, ","), strings.Join(h.Aliases, ","), h.Description)
	}
	return nil
}
