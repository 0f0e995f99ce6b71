package cloud_test

import (
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/cloud"
)

// TestMachinesDeepNesting: a file with a machines block nested too deep
// (200 KB of parentheses, which crashed HCL's parser) is a config error
// at file:line:col.
func TestMachinesDeepNesting(t *testing.T) {
	src := []byte("machines \"static\" {\n  hosts = " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + "\n}\n")
	_, err := cloud.LoadMachines("deep.hcl", src, nil)
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "deep.hcl:2:266: Nested too deep") {
		t.Errorf("exit %d: %v", exitcode.Of(err), err)
	}
}
