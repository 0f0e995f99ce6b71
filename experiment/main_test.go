package experiment

import (
	"os"
	"testing"

	"github.com/wptest/wptest/internal/testenv"
)

// TestMain removes the wptest binary the package's tests share
// (testenv.WptestBinary) once they are done.
func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveBuilt()
	os.Exit(code)
}
