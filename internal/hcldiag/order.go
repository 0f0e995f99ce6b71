package hcldiag

import (
	"cmp"
	"slices"

	"github.com/hashicorp/hcl/v2"
)

// Sorted is diags in file order: by file, then position, then summary
// (a diagnostic without a place first). gohcl.DecodeBody reports missing
// blocks in map order; sorted, the same file gives the same error, byte
// for byte, every time.
func Sorted(diags hcl.Diagnostics) hcl.Diagnostics {
	out := slices.Clone(diags)
	slices.SortStableFunc(out, func(a, b *hcl.Diagnostic) int {
		if (a.Subject == nil) != (b.Subject == nil) {
			if a.Subject == nil {
				return -1
			}
			return 1
		}
		if a.Subject != nil {
			if c := cmp.Or(cmp.Compare(a.Subject.Filename, b.Subject.Filename),
				cmp.Compare(a.Subject.Start.Byte, b.Subject.Start.Byte),
				cmp.Compare(a.Subject.End.Byte, b.Subject.End.Byte)); c != 0 {
				return c
			}
		}
		return cmp.Or(cmp.Compare(a.Summary, b.Summary), cmp.Compare(a.Detail, b.Detail))
	})
	return out
}
