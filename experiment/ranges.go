package experiment

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// blockRange finds the header of block typ "label" in f, for diagnostics.
func blockRange(f *hcl.File, typ, label string) hcl.Range {
	if b := findBlock(f, typ, label); b != nil {
		return b.DefRange()
	}
	return hcl.Range{Filename: f.Body.MissingItemRange().Filename, Start: hcl.InitialPos, End: hcl.InitialPos}
}

// attrRange points at attr's value inside block typ "label", or at the
// block's header when the attribute is absent.
func attrRange(f *hcl.File, typ, label, attr string) hcl.Range {
	b := findBlock(f, typ, label)
	if b == nil {
		return blockRange(f, typ, label)
	}
	if a, ok := b.Body.Attributes[attr]; ok {
		return a.Expr.Range()
	}
	return b.DefRange()
}

func findBlock(f *hcl.File, typ, label string) *hclsyntax.Block {
	return findBlockN(f, typ, label, 0)
}

// dupRange points at the header of the n-th (from 0) block typ "label": a
// duplicate's error names the duplicate, not the block it repeats.
func dupRange(f *hcl.File, typ, label string, n int) hcl.Range {
	if b := findBlockN(f, typ, label, n); b != nil {
		return b.DefRange()
	}
	return blockRange(f, typ, label)
}

func findBlockN(f *hcl.File, typ, label string, n int) *hclsyntax.Block {
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	for _, b := range body.Blocks {
		if b.Type == typ && len(b.Labels) > 0 && b.Labels[0] == label {
			if n == 0 {
				return b
			}
			n--
		}
	}
	return nil
}

// labelRange points at the first label of the n-th (from 0) block typ
// "label", where a name's error belongs.
func labelRange(f *hcl.File, typ, label string, n int) hcl.Range {
	if b := findBlockN(f, typ, label, n); b != nil && len(b.LabelRanges) > 0 {
		return b.LabelRanges[0]
	}
	return dupRange(f, typ, label, n)
}
