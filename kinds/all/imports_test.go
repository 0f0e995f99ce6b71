package all

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const module = "github.com/wptest/wptest/"

// TestKindsFloor: the kinds stand between the CLI and the floors they
// register with. Only the CLI imports kinds/all, only kinds/all imports a
// kind, and a kind imports no other kind (go list, the tests' imports
// left out): a floor that named a kind could not do without it.
func TestKindsFloor(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goTool, "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../../...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	kinds := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], module)
		if strings.HasPrefix(pkg, "kinds/") && pkg != "kinds/all" {
			kinds++
		}
		for _, imp := range f[1:] {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok || !strings.HasPrefix(dep, "kinds/") {
				continue
			}
			switch {
			case dep == "kinds/all" && pkg == "cmd/wptest/cli":
			case pkg == "kinds/all":
			default:
				t.Errorf("%s imports %s: only the CLI imports kinds/all, and only kinds/all a kind", pkg, dep)
			}
		}
	}
	if kinds == 0 {
		t.Errorf("go list found no kind under kinds/:\n%s", out)
	}
}
