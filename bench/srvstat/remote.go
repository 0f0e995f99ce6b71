package srvstat

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/wptest/wptest/host"
)

// Remote says how to run srvstat on a server.
type Remote struct {
	Path string   // the wptest binary on the server (the agent stage put it there)
	Args []string // srvstat's flags, e.g. --interval 1s --duration 60s --status-url ...
}

// RunRemote runs `wptest srvstat ARGS` on the server with the wptest binary
// installed at r.Path, streaming its JSON lines to out until it ends (give
// --duration or --count) or ctx ends (then it returns nil). Installing the
// binary is the agent stage's (experiment/stage), not this package's.
func RunRemote(ctx context.Context, h host.Host, r Remote, out io.Writer) error {
	if r.Path == "" {
		return fmt.Errorf("srvstat on %s: no path of an installed wptest", h.Name())
	}
	facts, err := h.Facts(ctx)
	if err != nil {
		return fmt.Errorf("srvstat on %s: facts: %w", h.Name(), err)
	}
	if a := facts.GoArch(); a != "" && a != runtime.GOARCH {
		return fmt.Errorf("srvstat on %s: the server is %s, this wptest is %s/%s: build wptest for linux/%s", h.Name(), facts.Arch, runtime.GOOS, runtime.GOARCH, a)
	}
	q := []string{host.Quote(r.Path), "srvstat"}
	for _, a := range r.Args {
		q = append(q, host.Quote(a))
	}
	_, err = h.Run(ctx, host.Cmd{Script: strings.Join(q, " "), Label: "srvstat", Stdout: out, Timeout: 24 * time.Hour})
	if err != nil && ctx.Err() != nil {
		return nil // stopped by the caller
	}
	if err != nil {
		return fmt.Errorf("srvstat on %s: %w", h.Name(), err)
	}
	return nil
}
