// Package funclen measures the length of every function declared in a Go
// source tree, so a test can hold the rule that a function fits on one
// screen.
package funclen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// Func is one function or method declaration.
type Func struct {
	// Name is "dir.Name" or "dir.Recv.Name", dir relative to the root with
	// slashes ("host.SSH.Run"): stable when a function moves between files of
	// its package, which the allowlist relies on.
	Name  string
	File  string // relative to the root, slashes
	Line  int    // line of the func keyword
	Lines int    // from the func keyword to the closing brace, both counted
}

func (f Func) String() string {
	return fmt.Sprintf("%4d  %s  (%s:%d)", f.Lines, f.Name, f.File, f.Line)
}

// Scan parses every non-test .go file under root (skipping testdata, vendor
// and dot or underscore directories, as the go tool does) and returns its
// functions, longest first; ties by name so the order is stable.
func Scan(root string) ([]Func, error) {
	var funcs []Func
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		fs, err := scanFile(fset, path, filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		funcs = append(funcs, fs...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(funcs, func(i, j int) bool {
		if funcs[i].Lines != funcs[j].Lines {
			return funcs[i].Lines > funcs[j].Lines
		}
		return funcs[i].Name < funcs[j].Name
	})
	return funcs, nil
}

func skipDir(name string) bool {
	return name == "testdata" || name == "vendor" ||
		strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

func scanFile(fset *token.FileSet, path, rel string) ([]Func, error) {
	file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", rel, err)
	}
	dir := filepath.ToSlash(filepath.Dir(rel))
	var funcs []Func
	for _, decl := range file.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		start := fset.Position(fd.Type.Func)
		end := fset.Position(fd.Body.Rbrace)
		funcs = append(funcs, Func{
			Name:  dir + "." + funcName(fd),
			File:  rel,
			Line:  start.Line,
			Lines: end.Line - start.Line + 1,
		})
	}
	return funcs, nil
}

// funcName is "Name" or "Recv.Name" with the receiver's pointer and type
// parameters dropped.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}
