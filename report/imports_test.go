package report

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// runner are the packages that make a run: the report reads what a run
// wrote (package results) and needs none of them, so a report can be made
// from a run directory with the load generator, the sampler or a cloud
// driver changed or gone.
var runner = []string{
	"github.com/wptest/wptest/experiment",
	"github.com/wptest/wptest/bench/benchgen",
	"github.com/wptest/wptest/bench/srvstat",
	"github.com/wptest/wptest/provision/cloud",
}

// floorOnly: nor do they stand on what runs commands or reads profiles (a
// host manifest is read as hostrecord's data): a command that reads JSON
// lines needs no HCL, cty, SSH or SFTP.
var floorOnly = []string{
	"github.com/wptest/wptest/provision",
	"github.com/wptest/wptest/host",
	"github.com/hashicorp/hcl",
	"github.com/zclconf/go-cty",
	"golang.org/x/crypto/ssh",
	"github.com/pkg/sftp",
}

// report, results and compare import nothing of the runner nor of
// provision, host, HCL or SSH, directly or through another package (go list -deps, the tests' imports left out);
// compare, which the report calls, does not import the report.
func TestImportsNothingOfTheRunner(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	for _, pkg := range []string{".", "../results", "../compare"} {
		out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 2 || !strings.Contains(string(out), "github.com/wptest/wptest/results") {
			t.Fatalf("go list -deps %s listed %d packages, without results: %s", pkg, len(deps), out)
		}
		for _, d := range deps {
			if pkg == "../compare" && d == "github.com/wptest/wptest/report" {
				t.Errorf("compare imports the report")
			}
			for _, r := range append(runner, floorOnly...) {
				if d == r || strings.HasPrefix(d, r+"/") {
					t.Errorf("%s imports %s (go list -deps %s)", pkg, d, pkg)
				}
			}
		}
	}
}
