// Package hcldiag turns HCL diagnostics into what users read: every HCL
// loader (profiles, machines, experiments, fixtures) reports bad input the
// same way, file:line:col and the snippet. It stands on hcl alone, so any
// package may use it without importing another loader.
package hcldiag

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/wptest/wptest/internal/redact"
	"github.com/zclconf/go-cty/cty"
)

// width is where HCL's text writer wraps a diagnostic's detail.
const width = 100

// Compact is one diagnostic on one line, for CI logs, editors and errors
// nested in other errors: "file:line:col: error: summary; detail".
func Compact(d *hcl.Diagnostic) string {
	sev := "error"
	if d.Severity == hcl.DiagWarning {
		sev = "warning"
	}
	s := sev + ": " + d.Summary
	if d.Subject != nil {
		s = Pos(d.Subject) + ": " + s
	}
	if d.Detail != "" {
		s += "; " + strings.ReplaceAll(d.Detail, "\n", " ")
	}
	return s
}

// Pos is where a range starts, "file:line:col".
func Pos(r *hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

// Write writes diags either one per line (compact) or in HCL's text form
// with the source snippet, taken from files (file name -> parsed file; nil:
// no snippets).
func Write(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics, compact bool) error {
	if compact {
		for _, d := range diags {
			if _, err := fmt.Fprintln(w, Compact(d)); err != nil {
				return err
			}
		}
		return nil
	}
	return hcl.NewDiagnosticTextWriter(w, files, width, false).WriteDiagnostics(diags)
}

// Error is the error diagnostics of diags as one error: for each, a
// "file:line:col: summary" line (what a user greps for) and HCL's text form
// with the snippet from files and the detail.
func Error(files map[string]*hcl.File, diags hcl.Diagnostics) error {
	var b bytes.Buffer
	w := hcl.NewDiagnosticTextWriter(&b, files, width, false)
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		if d.Subject != nil {
			fmt.Fprintf(&b, "%s: %s\n", Pos(d.Subject), d.Summary)
		}
		_ = w.WriteDiagnostic(d)
	}
	return errors.New(strings.TrimRight(b.String(), "\n"))
}

// Line is the error diagnostics of diags as a one-line error (Compact,
// joined by "; "), for an error that HCL itself will report again inside
// another diagnostic (a template read by a function, say).
func Line(diags hcl.Diagnostics) error {
	var parts []string
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			parts = append(parts, Compact(d))
		}
	}
	return errors.New(strings.Join(parts, "; "))
}

// Redacted is what a redacted secret reads as.
const Redacted = redact.Redacted

// Redact returns diags with every secret replaced in summaries and details.
// A diagnostic whose evaluation context holds a secret unmarked loses its
// expression and context: HCL's text writer would print the values it
// refers to ("var.pw is "…""), and it only leaves out marked ones.
func Redact(diags hcl.Diagnostics, secrets []string) hcl.Diagnostics {
	if len(secrets) == 0 || len(diags) == 0 {
		return diags
	}
	out := make(hcl.Diagnostics, len(diags))
	for i, d := range diags {
		c := *d
		c.Summary, c.Detail = redactString(c.Summary, secrets), redactString(c.Detail, secrets)
		if c.EvalContext != nil && ctxHolds(c.EvalContext, secrets) {
			c.Expression, c.EvalContext = nil, nil
		}
		out[i] = &c
	}
	return out
}

// WriteRedacted is Write with the secrets replaced: in the diagnostics
// first (Redact), then in the text itself, which also covers a snippet
// quoting a secret from the source.
func WriteRedacted(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics, compact bool, secrets []string) error {
	var b bytes.Buffer
	if err := Write(&b, files, Redact(diags, secrets), compact); err != nil {
		return err
	}
	_, err := io.WriteString(w, redactString(b.String(), secrets))
	return err
}

// redactString hides secrets in s in one pass (redact.Replace): the
// marker it writes is never redacted again.
func redactString(s string, secrets []string) string { return redact.Strings(s, secrets) }

// ctxHolds reports whether a string in ctx (or its parents), unmarked,
// contains one of secrets.
func ctxHolds(ctx *hcl.EvalContext, secrets []string) bool {
	for ; ctx != nil; ctx = ctx.Parent() {
		for _, v := range ctx.Variables {
			if valueHolds(v, secrets) {
				return true
			}
		}
	}
	return false
}

func valueHolds(v cty.Value, secrets []string) bool {
	if v.IsMarked() || !v.IsKnown() || v.IsNull() {
		return false // HCL's writer does not print marked values
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		s := v.AsString()
		for _, sec := range secrets {
			if sec != "" && strings.Contains(s, sec) {
				return true
			}
		}
	case ty.IsListType() || ty.IsSetType() || ty.IsMapType() || ty.IsTupleType() || ty.IsObjectType():
		for it := v.ElementIterator(); it.Next(); {
			_, ev := it.Element()
			if valueHolds(ev, secrets) {
				return true
			}
		}
	}
	return false
}
