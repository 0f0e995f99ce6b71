// Package fuzzcheck holds the properties the HCL loaders' fuzz targets
// assert of an error: it names a place inside the input (file:line:col on a
// line the file has, a column that line has), and loading again gives the
// same answer. Test code only, like internal/golden.
package fuzzcheck

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// TB is the part of testing.TB the checks use.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// InRange reports why file:line:col is not a place in src ("" if it is).
// Columns are HCL's (characters), so a column past the line's byte length
// plus one is outside it.
func InRange(src []byte, line, col int) string {
	lines := bytes.Split(src, []byte("\n"))
	switch {
	case line < 1 || line > len(lines):
		return fmt.Sprintf("line %d: the input has %d lines", line, len(lines))
	case col < 1 || col > len(lines[line-1])+1:
		return fmt.Sprintf("column %d: line %d has %d bytes", col, line, len(lines[line-1]))
	}
	return ""
}

// Diags checks every error diagnostic of diags has a subject inside the
// file it names (files: name -> source).
func Diags(t TB, files map[string][]byte, diags hcl.Diagnostics) {
	t.Helper()
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		if d.Subject == nil {
			t.Errorf("diagnostic %q (%s) has no location", d.Summary, d.Detail)
			continue
		}
		Range(t, files, d.Summary, *d.Subject)
	}
}

// Range checks r lies inside the file it names.
func Range(t TB, files map[string][]byte, what string, r hcl.Range) {
	t.Helper()
	src, ok := files[r.Filename]
	if !ok {
		t.Errorf("%q at %s: no such input file", what, r)
		return
	}
	for _, p := range []hcl.Pos{r.Start, r.End} {
		if why := InRange(src, p.Line, p.Column); why != "" {
			t.Errorf("%q at %s: %s", what, r, why)
		}
		if p.Byte < 0 || p.Byte > len(src) {
			t.Errorf("%q at %s: byte %d outside the %d-byte input", what, r, p.Byte, len(src))
		} else if pre := src[:p.Byte]; bytes.Count(pre, []byte("\n"))+1 != p.Line {
			t.Errorf("%q at %s: byte %d is on line %d, not %d", what, r, p.Byte, bytes.Count(pre, []byte("\n"))+1, p.Line)
		}
	}
	if r.End.Byte < r.Start.Byte {
		t.Errorf("%q at %s: ends before it starts", what, r)
	}
}

var posRE = regexp.MustCompile(`^(.+?):(\d+):(\d+): `)

// Error checks err, a loader's error for the file filename (source src),
// starts with "filename:line:col: " naming a place in src: what a user
// greps for and an editor jumps to.
func Error(t TB, filename string, src []byte, err error) {
	t.Helper()
	first, _, _ := strings.Cut(err.Error(), "\n")
	m := posRE.FindStringSubmatch(first)
	if m == nil || m[1] != filename {
		t.Errorf("error does not start with %s:line:col: %q", filename, first)
		return
	}
	line, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	if why := InRange(src, line, col); why != "" {
		t.Errorf("%s: %s", first, why)
	}
}
