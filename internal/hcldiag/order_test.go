package hcldiag

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// Sorted puts diagnostics in file order whatever order they came in, and
// leaves its argument alone.
func TestSorted(t *testing.T) {
	at := func(file string, b int) *hcl.Range {
		return &hcl.Range{Filename: file, Start: hcl.Pos{Byte: b, Line: 1, Column: b + 1}, End: hcl.Pos{Byte: b + 1, Line: 1, Column: b + 2}}
	}
	in := hcl.Diagnostics{
		{Summary: "b2", Subject: at("b.hcl", 2)},
		{Summary: "a5", Subject: at("a.hcl", 5)},
		{Summary: "none"},
		{Summary: "a1y", Subject: at("a.hcl", 1)},
		{Summary: "a1x", Subject: at("a.hcl", 1)},
	}
	want := []string{"none", "a1x", "a1y", "a5", "b2"}
	got := Sorted(in)
	for i, d := range got {
		if d.Summary != want[i] {
			t.Fatalf("order %d: %s, want %s", i, d.Summary, want[i])
		}
	}
	if in[0].Summary != "b2" {
		t.Error("Sorted reordered its argument")
	}
}

// UTF8 names the first byte that is not UTF-8 at its own line and column
// (HCL's scanner would put it, and all after it, on the wrong line).
func TestUTF8(t *testing.T) {
	for _, c := range []struct {
		src             string
		line, col, byte int
	}{
		{"profile\xedz\n\" descript", 1, 8, 7},
		{"a = 1\nb = \"é\xff\"\n", 2, 7, 13},
		{"a = 1\r\n# \xc3\n", 2, 3, 9},
	} {
		d := UTF8("f.hcl", []byte(c.src))
		if len(d) != 1 || d[0].Subject.Start != (hcl.Pos{Line: c.line, Column: c.col, Byte: c.byte}) {
			t.Errorf("%q: %v, want %d:%d (byte %d)", c.src, d, c.line, c.col, c.byte)
		}
	}
	if d := UTF8("f.hcl", []byte("a = \"é\"\n")); d != nil {
		t.Errorf("valid UTF-8: %v", d)
	}
}
