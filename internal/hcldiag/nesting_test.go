package hcldiag

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclparse"
)

// TestNesting: each way HCL nests, once past MaxNesting, is one error at
// the token where the bound is passed (HCL's parser would overflow the
// stack on it, or its evaluator take minutes); what real files hold,
// however long, is not.
func TestNesting(t *testing.T) {
	n := MaxNesting + 1
	rep := strings.Repeat
	for _, tc := range []struct {
		name string
		kind Kind
		src  string
		col  int // where the error is: 0 none
	}{
		{"parentheses", File, "a = " + rep("(", n) + "1" + rep(")", n) + "\n", 4 + n},
		{"brackets", File, "a = " + rep("[", n) + rep("]", n) + "\n", 4 + n},
		{"objects", File, "a = " + rep("{a=", n) + "1" + rep("}", n) + "\n", 4 + 3*(n-1) + 1},
		{"interpolations", File, "a = " + rep(`"${`, n/2+1) + "1" + rep(`}"`, n/2+1) + "\n", 4 + 3*(n/2) + 1},
		{"for expressions", File, "a = " + rep("[for x in ", n) + "[]" + rep(": x]", n) + "\n", 4 + 10*(n-1) + 1},
		{"blocks", File, rep("b {\n", n) + rep("}\n", n), 3},
		{"operators", File, "a = 1" + rep("+1", n) + "\n", 4 + 2*n},
		{"unary", File, "a = " + rep("!", n) + "true\n", 4 + n},
		{"conditionals", File, "a = " + rep("x ? 1 : ", n) + "1\n", 4 + 8*(n-1) + 3},
		// The 256th index is 256 links and its bracket.
		{"indexes", File, "a = x" + rep("[x]", n) + "\n", 5 + 3*(MaxNesting-1) + 1},
		{"chain over lines", File, "a = (1" + rep("\n+1", n) + ")\n", 1},
		{"template directives", Template, rep("%{ if true }", n) + rep("%{ endif }", n), 1 + 12*(n-2)},
		{"expression", Expression, rep("[", n) + rep("]", n), n},
		// What real files hold.
		{"flat list", File, "a = [" + rep("1, ", 2000) + "1]\n", 0},
		{"many attributes", File, rep("a = b && c || !d == e + 1 - 2\n", 2000), 0},
		{"brackets in strings", File, rep(`a = "((([[[{{{ $${x} %%{y}"`+"\n", 1000) + "# (((((\n", 0},
		{"heredoc", File, "a = <<EOT\n" + rep("{ ( [ ${x} %{ if y }z%{ endif }\n", 1000) + "EOT\n", 0},
		{"template", Template, rep("${a + b} { ( [ %{ for x in y }${x}%{ endfor }\n", 1000), 0},
		{"deep enough", File, "a = " + rep("(", MaxNesting-1) + "1" + rep(")", MaxNesting-1) + "\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Nesting("x.hcl", []byte(tc.src), tc.kind)
			switch {
			case tc.col == 0 && d != nil:
				t.Errorf("refused: %v", d)
			case tc.col != 0 && d == nil:
				t.Errorf("not refused")
			case tc.col != 0 && tc.name != "blocks" && tc.name != "chain over lines" && (d[0].Subject.Start.Line != 1 || d[0].Subject.Start.Column != tc.col):
				t.Errorf("at %s, want 1:%d", Pos(d[0].Subject), tc.col)
			case tc.col != 0 && (tc.name == "blocks" || tc.name == "chain over lines") && d[0].Subject.Start.Line < MaxNesting-1:
				t.Errorf("at %s, want past line %d", Pos(d[0].Subject), MaxNesting-1)
			}
		})
	}
}

// TestParseHCLDeep: a 200 KB file of parentheses (which crashed the
// parser with a stack dump) is one error with file:line:col, and the file
// is registered for its snippet; a file that is not UTF-8 still reads as
// before.
func TestParseHCLDeep(t *testing.T) {
	src := "x = 1\nb = " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + "\n"
	p := hclparse.NewParser()
	_, d := ParseHCL(p, []byte(src), "deep.hcl")
	if len(d) != 1 || Pos(d[0].Subject) != "deep.hcl:2:261" {
		t.Fatalf("%v", d)
	}
	if err := Error(p.Files(), d); !strings.Contains(err.Error(), "deep.hcl:2:261: Nested too deep") || !strings.Contains(err.Error(), "b = (((") {
		t.Errorf("%v", err)
	}
	if _, d := ParseHCL(p, []byte("a = 1\nb = \"\xff\"\n"), "bad.hcl"); len(d) != 1 || Pos(d[0].Subject) != "bad.hcl:2:6" {
		t.Errorf("not UTF-8: %v", d)
	}
}
