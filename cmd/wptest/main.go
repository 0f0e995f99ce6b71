// Command wptest reproduces web-server benchmarks: see README.md.
package main

import (
	"os"

	"github.com/wptest/wptest/cmd/wptest/cli"
)

func main() { os.Exit(cli.Main()) }
