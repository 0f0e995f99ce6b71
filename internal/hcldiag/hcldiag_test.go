package hcldiag

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// A file with one bad line, parsed for real: the diagnostics and files every
// loader passes in.
func parse(t *testing.T) (map[string]*hcl.File, hcl.Diagnostics) {
	t.Helper()
	p := hclparse.NewParser()
	_, diags := p.ParseHCL([]byte("a = 1\nb = = 2\n"), "dir/x.hcl")
	if !diags.HasErrors() {
		t.Fatal("want a parse error")
	}
	diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Just a warning", Detail: "two\nlines"})
	return p.Files(), diags
}

func TestError(t *testing.T) {
	files, diags := parse(t)
	got := Error(files, diags).Error()
	for _, want := range []string{
		"dir/x.hcl:2:5: Invalid expression\n", // grep-able position first
		"on dir/x.hcl line 2:\n   2: b = = 2", // the snippet
		"Expected the start of an expression", // the detail
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Error lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Just a warning") || strings.HasSuffix(got, "\n") {
		t.Errorf("Error shows warnings or ends in a newline:\n%q", got)
	}
	// Without the files: the position and detail still, no snippet.
	if got := Error(nil, diags).Error(); !strings.HasPrefix(got, "dir/x.hcl:2:5: Invalid expression\n") || strings.Contains(got, "b = = 2") {
		t.Errorf("Error without files:\n%s", got)
	}
}

func TestCompactAndLine(t *testing.T) {
	files, diags := parse(t)
	if got, want := Compact(diags[0]), "dir/x.hcl:2:5: error: Invalid expression; Expected the start of an expression, but found an invalid expression token."; got != want {
		t.Errorf("Compact = %q, want %q", got, want)
	}
	if got, want := Compact(diags[1]), "warning: Just a warning; two lines"; got != want {
		t.Errorf("Compact(no subject) = %q, want %q", got, want)
	}
	if got := Line(diags).Error(); got != Compact(diags[0]) {
		t.Errorf("Line = %q: want the error alone, on one line", got)
	}
	var b bytes.Buffer
	if err := Write(&b, files, diags, true); err != nil || b.String() != Compact(diags[0])+"\n"+Compact(diags[1])+"\n" {
		t.Errorf("Write compact = %q, %v", b.String(), err)
	}
	b.Reset()
	if err := Write(&b, files, diags, false); err != nil || !strings.Contains(b.String(), "   2: b = = 2") || !strings.Contains(b.String(), "Warning: Just a warning") {
		t.Errorf("Write with snippets = %q, %v", b.String(), err)
	}
}

// TestWriteRedacted: an evaluation error on a secret, its value unmarked in
// the context, is written without it: HCL's writer would print
// `var.pw as "…"` and the function's own message quotes the value.
func TestWriteRedacted(t *testing.T) {
	const secret = "s3cret-Value"
	p := hclparse.NewParser()
	f, diags := p.ParseHCL([]byte("a = tonumber(var.pw)\n"), "dir/x.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	attrs, _ := f.Body.JustAttributes()
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{"pw": cty.StringVal(secret)})},
		Functions: map[string]function.Function{"tonumber": stdlib.MakeToFunc(cty.Number)},
	}
	_, diags = attrs["a"].Expr.Value(ctx)
	if !diags.HasErrors() {
		t.Fatal("want an error")
	}
	var plain bytes.Buffer
	_ = Write(&plain, p.Files(), diags, false)
	if !strings.Contains(plain.String(), secret) {
		t.Fatalf("the unredacted text should show the secret (else this test proves nothing):\n%s", plain.String())
	}
	for _, compact := range []bool{false, true} {
		var b bytes.Buffer
		if err := WriteRedacted(&b, p.Files(), diags, compact, []string{secret}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), secret) || !strings.Contains(b.String(), "dir/x.hcl") {
			t.Errorf("compact=%v:\n%s", compact, b.String())
		}
	}
	if red := Redact(diags, []string{secret}); red[0].EvalContext != nil || diags[0].EvalContext == nil {
		t.Error("Redact keeps a context holding the secret, or changed the original")
	}
}
