package experiment

import (
	"flag"
	"os"
	"testing"

	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/internal/testenv/baked"
)

// TestMain starts baking the servers' image the bare-host tests start
// from (baked.Warm) while the others run, and removes the wptest binary the
// package's tests share (testenv.WptestBinary) once they are done.
func TestMain(m *testing.M) {
	flag.Parse()
	baked.Warm(baked.Servers...)
	code := m.Run()
	testenv.RemoveBuilt()
	os.Exit(code)
}
