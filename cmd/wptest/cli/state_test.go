package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/internal/hcloudfake"
	"github.com/wptest/wptest/provision/cloud"
)

// The process's hostname, executable and clock come from App, as its stdio
// and environment do: a whole command run in-process shows the injected ones.
func TestInjectedHostnameAndClock(t *testing.T) {
	at := time.Date(2031, 4, 5, 6, 7, 8, 0, time.UTC)
	run := func(env []string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(context.Background(), &App{Args: args, Env: env, Stdout: &out, Stderr: &errb, WorkDir: t.TempDir(),
			Hostname: "bench-box.example", Executable: "/opt/wptest-under-test", Now: func() time.Time { return at }})
		return code, out.String(), errb.String()
	}

	// machines plan: the run id and its creation time are the clock's, the
	// owner label names the injected host.
	fake := hcloudfake.New(t)
	code, stdout, stderr := run([]string{"HCLOUD_TOKEN=" + cliToken, "HCLOUD_ENDPOINT=" + fake.URL, "USER=alice"}, "machines", "plan", "-o", "json")
	if code != 0 {
		t.Fatalf("machines plan: code=%d\n%s", code, stderr)
	}
	var p cloud.Plan
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatalf("plan JSON: %v\n%s", err, stdout)
	}
	r := p.Spec.Run
	if !strings.HasPrefix(r.ID, "20310405-060708-") || !r.Created.Equal(at) || r.Owner != "alice@bench-box.example" {
		t.Errorf("run: id %q created %v owner %q; want the injected clock and hostname", r.ID, r.Created, r.Owner)
	}

	// bench: the report names the injected host.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("hello")) }))
	defer srv.Close()
	code, stdout, stderr = run(nil, "bench", "--scenario", "ab", "-c", "1", "-n", "5", "-o", "json", "--url", srv.URL+"/")
	if code != 0 {
		t.Fatalf("bench: code=%d\n%s", code, stderr)
	}
	var rep result.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("bench JSON: %v\n%s", err, stdout)
	}
	if rep.Host != "bench-box.example" {
		t.Errorf("bench report host %q, want the injected bench-box.example", rep.Host)
	}
}

// Only Main and Run read the process's executable, hostname and clock
// (cli.go); every command takes them from App, so a test can set them.
func TestNoCommandReadsProcessState(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	banned := map[string]bool{"os.Executable": true, "os.Hostname": true, "time.Now": true, "time.Since": true, "time.Until": true}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") || file == "cli.go" {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok && banned[pkg.Name+"."+sel.Sel.Name] {
					t.Errorf("%s: %s.%s: use App.Executable, App.Hostname or App.Now", fset.Position(sel.Pos()), pkg.Name, sel.Sel.Name)
				}
			}
			return true
		})
	}
}
