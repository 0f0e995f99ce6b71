package cli

import (
	"context"
	"fmt"
)

// Version is the tool's version, recorded in manifests.
const Version = "0.1.0"

func runVersion(ctx context.Context, a *App, args []string) error {
	if err := parseFlags(newFlags(a, "version"), args); err != nil {
		return err
	}
	fmt.Fprintln(a.Stdout, "wptest", Version)
	return nil
}
