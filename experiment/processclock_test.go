package experiment

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// A run reads the clock through Options.Now (the CLI passes App.Now), as
// the CLI's commands read it through App: the manifest's and the records'
// times, machines' expiry labels, the log's durations and the ETA are the
// injected clock's. Only these functions read the process's clock, each
// for its reason; a deadline is a timer.
var processClock = map[string]string{
	"now":   "Options.Now's default",
	"agree": "the start the load generators agree on: their real clocks act on it",
}

func TestNoFunctionReadsTheProcessClock(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	banned := map[string]bool{"time.Now": true, "time.Since": true, "time.Until": true}
	fset := token.NewFileSet()
	seen := map[string]bool{}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok {
				ast.Inspect(d, func(n ast.Node) bool {
					if sel, ok := n.(*ast.SelectorExpr); ok && isBanned(banned, sel) {
						t.Errorf("%s: %s outside a function: use Options.Now", fset.Position(sel.Pos()), selName(sel))
					}
					return true
				})
				continue
			}
			ast.Inspect(fn, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok || !isBanned(banned, sel) {
					return true
				}
				if _, ok := processClock[fn.Name.Name]; ok {
					seen[fn.Name.Name] = true
					return true
				}
				t.Errorf("%s: %s in %s: use the run's clock (r.opt.now(), r.since) or a timer", fset.Position(sel.Pos()), selName(sel), fn.Name.Name)
				return true
			})
		}
	}
	for name := range processClock {
		if !seen[name] {
			t.Errorf("%s no longer reads the process clock: take it off processClock", name)
		}
	}
}

func isBanned(banned map[string]bool, sel *ast.SelectorExpr) bool { return banned[selName(sel)] }

func selName(sel *ast.SelectorExpr) string {
	if pkg, ok := sel.X.(*ast.Ident); ok {
		return pkg.Name + "." + sel.Sel.Name
	}
	return ""
}
