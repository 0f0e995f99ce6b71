package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var built struct {
	sync.Mutex
	dir  string
	exes map[string]string // by tags
}

// WptestBinary is this checkout's wptest (cmd/wptest, built with tags), as
// users run it and as it is put on hosts as the agent. It is built once per
// test process: the package's tests share it instead of each linking its
// own. The package's TestMain calls RemoveBuilt after m.Run.
func WptestBinary(t testing.TB, tags ...string) string {
	t.Helper()
	NeedBinary(t, "go")
	built.Lock()
	defer built.Unlock()
	key := strings.Join(tags, ",")
	if exe, ok := built.exes[key]; ok {
		return exe
	}
	if built.dir == "" {
		dir, err := os.MkdirTemp("", "wptest-bin-")
		if err != nil {
			t.Fatal(err)
		}
		built.dir, built.exes = dir, map[string]string{}
	}
	exe := filepath.Join(built.dir, fmt.Sprintf("%d", len(built.exes)), "wptest")
	args := []string{"build", "-o", exe}
	env := append(os.Environ(), "GOTOOLCHAIN=local")
	if key != "" {
		args = append(args, "-tags", key)
		env = append(env, "CGO_ENABLED=1") // srvstat's libc clock is cgo
	}
	cmd := exec.Command("go", append(args, "github.com/wptest/wptest/cmd/wptest")...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build wptest (tags %q): %v\n%s", key, err, out)
	}
	built.exes[key] = exe
	return exe
}

// RemoveBuilt removes what WptestBinary built in this process.
func RemoveBuilt() {
	built.Lock()
	defer built.Unlock()
	if built.dir != "" {
		os.RemoveAll(built.dir)
		built.dir, built.exes = "", nil
	}
}
