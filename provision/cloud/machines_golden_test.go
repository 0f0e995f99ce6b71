package cloud_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/golden"
	"github.com/wptest/wptest/provision/cloud"
	_ "github.com/wptest/wptest/provision/cloud/drivers"
)

// Each testdata/machines/*.txtar holds input.hcl, optionally vars (one
// name=value a line), and want: the decoded block as JSON or the error.
func TestLoadMachinesGolden(t *testing.T) {
	golden.Archives(t, "testdata/machines/*.txtar", func(t *testing.T, ar *txtar.Archive) map[string]string {
		src, _ := golden.Section(ar, "input.hcl")
		v, _ := golden.Section(ar, "vars")
		vm, err := cloud.ParseVars(strings.Fields(string(v)))
		var got string
		if err == nil {
			var m cloud.Machines
			m, err = cloud.LoadMachines("input.hcl", src, vm)
			if err == nil {
				b, _ := json.MarshalIndent(m, "", "  ")
				got = string(b) + "\n"
			}
		}
		if err != nil {
			if exitcode.Of(err) != exitcode.Config {
				t.Errorf("error code %d, want 2: %v", exitcode.Of(err), err)
			}
			got = "error: " + err.Error() + "\n"
		}
		return map[string]string{"want": got}
	})
}
