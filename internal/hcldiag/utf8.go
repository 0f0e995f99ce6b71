package hcldiag

import (
	"fmt"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
)

// UTF8 is an error at the first byte of src that is not UTF-8, or nil.
// Call it before parsing: HCL's scanner takes an invalid byte and what
// follows it (a newline included) for one character, so every position
// after it, and its own, would be on the wrong line.
func UTF8(filename string, src []byte) hcl.Diagnostics {
	if utf8.Valid(src) {
		return nil
	}
	pos := hcl.InitialPos
	for pos.Byte < len(src) {
		r, n := utf8.DecodeRune(src[pos.Byte:])
		if r == utf8.RuneError && n <= 1 {
			end := hcl.Pos{Line: pos.Line, Column: pos.Column + 1, Byte: pos.Byte + 1}
			return hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Invalid character encoding",
				Detail:   fmt.Sprintf("Byte 0x%02x is not UTF-8: the file must be UTF-8 text.", src[pos.Byte]),
				Subject:  &hcl.Range{Filename: filename, Start: pos, End: end},
			}}
		}
		pos.Byte += n
		pos.Column++
		if r == '\n' {
			pos.Line, pos.Column = pos.Line+1, 1
		}
	}
	return nil
}
