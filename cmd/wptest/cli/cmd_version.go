package cli

import (
	"context"
	"fmt"
)

// Version is the tool's version.
const Version = "0.1.0"

// tool is this tool as what it makes records it (a run's manifest, a host
// manifest, an apply's mark) and as `wptest version` prints it.
const tool = "wptest " + Version

func versionCommand() *command {
	return &command{name: "version", synopsis: "print the version", usage: "version",
		about:    "The same string a run's manifest records as its tool. wptest --version is the same.",
		examples: []string{"wptest version"},
		setup: define(nil, func(ctx context.Context, a *App, _ *noFlags, _ []string) error {
			fmt.Fprintln(a.Stdout, tool)
			return nil
		})}
}
