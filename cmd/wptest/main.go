// Command wptest reproduces web-server benchmarks: see README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/wptest/wptest/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	fi, _ := os.Stderr.Stat()
	code := cli.Run(ctx, &cli.App{
		Args:      os.Args[1:],
		Env:       os.Environ(),
		Stdin:     os.Stdin,
		Stdout:    os.Stdout,
		Stderr:    os.Stderr,
		StderrTTY: fi != nil && fi.Mode()&os.ModeCharDevice != 0,
	})
	stop()
	os.Exit(code)
}
