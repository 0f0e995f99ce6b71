package srvstat

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/wptest/wptest/host"
)

// RemotePath is where RunRemote puts the wptest binary on the server by default.
const RemotePath = "/tmp/wptest-srvstat"

// Remote says how to run srvstat on a server.
type Remote struct {
	Exe  string   // this wptest binary, built for the server's architecture ("" = already at Path)
	Path string   // where to put it on the server ("" = RemotePath)
	Args []string // srvstat's flags, e.g. --interval 1s --duration 60s --status-url ...
}

// RunRemote uploads r.Exe to the server (unless Exe is "": a wptest already
// installed at Path, such as the agent) and runs `wptest srvstat ARGS` there,
// streaming its JSON lines to out until it ends (give --duration or --count)
// or ctx ends (then it returns nil).
func RunRemote(ctx context.Context, h host.Host, r Remote, out io.Writer) error {
	exe, args, path := r.Exe, r.Args, r.Path
	if path == "" {
		path = RemotePath
	}
	facts, err := h.Facts(ctx)
	if err != nil {
		return fmt.Errorf("srvstat on %s: facts: %w", h.Name(), err)
	}
	if a := facts.GoArch(); a != "" && a != runtime.GOARCH {
		return fmt.Errorf("srvstat on %s: the server is %s, this wptest is %s/%s: build wptest for linux/%s", h.Name(), facts.Arch, runtime.GOOS, runtime.GOARCH, a)
	}
	if exe != "" {
		f, err := os.Open(exe)
		if err != nil {
			return fmt.Errorf("srvstat on %s: %w", h.Name(), err)
		}
		defer f.Close()
		if err := h.Put(ctx, path, f, host.PutOptions{Mode: 0o755}); err != nil {
			return fmt.Errorf("srvstat on %s: upload: %w", h.Name(), err)
		}
	} else if r.Path == "" {
		return fmt.Errorf("srvstat on %s: no binary to upload and no path of an installed one", h.Name())
	}
	q := []string{host.Quote(path), "srvstat"}
	for _, a := range args {
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
