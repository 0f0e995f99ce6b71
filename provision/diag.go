package provision

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/wptest/wptest/internal/hcldiag"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// WriteDiagnostics writes diags either one per line (compact) or in HCL's
// text form with the source snippet. files maps file names to parsed files
// (Profile.Files); templates are in it too, so their snippets show.
func WriteDiagnostics(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics, compact bool) error {
	return hcldiag.Write(w, files, diags, compact)
}

// dedupe drops repeated diagnostics: the same error found while rendering
// for each platform is reported once.
//
// It also drops HCL's follow-on "value must be known" errors (an attribute
// whose expression already failed), and sorts by file and position (errors
// without a position last) so the output is stable.
func dedupe(diags hcl.Diagnostics) hcl.Diagnostics {
	seen := map[string]bool{}
	var out hcl.Diagnostics
	for _, d := range diags {
		if strings.Contains(d.Detail, "value must be known") && diags.HasErrors() && len(diags) > 1 {
			continue
		}
		k := hcldiag.Compact(d)
		if d.Subject != nil {
			k += fmt.Sprintf("@%d-%d", d.Subject.Start.Byte, d.Subject.End.Byte)
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Subject, out[j].Subject
		switch {
		case a == nil || b == nil:
			return a != nil && b == nil
		case a.Filename != b.Filename:
			return a.Filename < b.Filename
		}
		return a.Start.Byte < b.Start.Byte
	})
	return out
}

func errDiag(summary, detail string, rng *hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng}
}

func rangePtr(r hcl.Range) *hcl.Range {
	if r.Filename == "" {
		return nil
	}
	return &r
}

// toString converts a template or attribute result to a Go string.
func toString(v cty.Value) (cty.Value, error) {
	if v.IsNull() {
		return cty.UnknownVal(cty.String), fmt.Errorf("result is null")
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil {
		return cty.UnknownVal(cty.String), fmt.Errorf("result must be a string: %v", err)
	}
	return s, nil
}

// decodeBody is gohcl.DecodeBody with its diagnostics in file order
// (gohcl reports missing blocks in map order).
func decodeBody(body hcl.Body, ctx *hcl.EvalContext, val any) hcl.Diagnostics {
	return hcldiag.Sorted(gohcl.DecodeBody(body, ctx, val))
}

// parseHCL is hcldiag.ParseHCL: a file that is not UTF-8 or nests too
// deep is one error at its first such place.
func parseHCL(p *hclparse.Parser, src []byte, name string) (*hcl.File, hcl.Diagnostics) {
	return hcldiag.ParseHCL(p, src, name)
}
