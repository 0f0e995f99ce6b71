package hcldiag

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// MaxNesting is how deep an HCL file, template or expression may nest.
// Real files nest less than 20 deep; HCL's parser and evaluator recurse
// once per level, so a file nested 100,000 deep (a 200 KB file of
// parentheses) overflows the stack, which no recover catches, and a chain
// of 100,000 indexes takes minutes to evaluate.
const MaxNesting = 256

// Kind is what a source is: a file (an experiment, a profile, a
// -var-file), a template file, or one expression (a -var value).
type Kind int

const (
	File Kind = iota
	Template
	Expression
)

// Nesting is an error at the first place src (of kind) nests deeper than
// MaxNesting, or nil. It reads HCL's tokens (the lexer keeps its own
// stack, so it never recurses), not the syntax tree: call it before
// parsing. Its depth counts what the parser and the evaluator recurse
// on: brackets, braces, parentheses, quotes, heredocs, interpolations and
// template directives each open a level; within one, each operator,
// conditional and index adds one (a chain "a+a+a…" or "x[x][x]…" is as
// deep as it is long), until a comma, an "=" or the end of an attribute
// starts the next item.
func Nesting(filename string, src []byte, kind Kind) hcl.Diagnostics {
	var toks hclsyntax.Tokens
	switch kind {
	case Template:
		toks, _ = hclsyntax.LexTemplate(src, filename, hcl.InitialPos)
	case Expression:
		toks, _ = hclsyntax.LexExpression(src, filename, hcl.InitialPos)
	default:
		toks, _ = hclsyntax.LexConfig(src, filename, hcl.InitialPos)
	}
	d := depth{chain: []int{0}, opener: []hclsyntax.TokenType{hclsyntax.TokenNil}}
	for i, t := range toks {
		var next hclsyntax.Token
		if i+1 < len(toks) {
			next = toks[i+1]
		}
		if d.step(t, next) > MaxNesting {
			return hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Nested too deep",
				Detail:   fmt.Sprintf("This nests more than %d levels deep (brackets, braces, parentheses, quotes, interpolations, template directives, or a chain of operators or indexes); no real file does, and wptest reads no further.", MaxNesting),
				Subject:  t.Range.Ptr(),
			}}
		}
	}
	return nil
}

// depth is Nesting's count: the levels open (each its opening token and
// the length of the chain within it) and the template directives open.
type depth struct {
	opener     []hclsyntax.TokenType
	chain      []int
	directives int
	total      int // len(opener) - 1 + sum(chain) + directives
	prev       hclsyntax.Token
}

// step counts token t (next is the one after it) and returns the depth.
func (d *depth) step(t, next hclsyntax.Token) int {
	top := len(d.chain) - 1
	prev := d.prev
	d.prev = t
	switch t.Type {
	case hclsyntax.TokenOBrace, hclsyntax.TokenOParen, hclsyntax.TokenOQuote, hclsyntax.TokenOHeredoc,
		hclsyntax.TokenTemplateInterp, hclsyntax.TokenTemplateControl:
		if t.Type == hclsyntax.TokenTemplateControl && next.Type == hclsyntax.TokenIdent {
			switch string(next.Bytes) {
			case "if", "for":
				d.directives++
				d.total++
			case "endif", "endfor":
				if d.directives > 0 {
					d.directives--
					d.total--
				}
			}
		}
		d.push(t.Type)
	case hclsyntax.TokenOBrack:
		// An index (a bracket after a value) is a link of a chain as
		// well as a level.
		switch prev.Type {
		case hclsyntax.TokenIdent:
			if k := string(prev.Bytes); k == "in" || k == "if" || k == "for" {
				break // a keyword: "for x in [", not an index
			}
			fallthrough
		case hclsyntax.TokenCBrack, hclsyntax.TokenCParen, hclsyntax.TokenCBrace,
			hclsyntax.TokenCQuote, hclsyntax.TokenCHeredoc, hclsyntax.TokenNumberLit:
			d.chain[top]++
			d.total++
		}
		d.push(t.Type)
	case hclsyntax.TokenCBrace, hclsyntax.TokenCParen, hclsyntax.TokenCBrack, hclsyntax.TokenCQuote,
		hclsyntax.TokenCHeredoc, hclsyntax.TokenTemplateSeqEnd:
		d.pop()
	case hclsyntax.TokenPlus, hclsyntax.TokenMinus, hclsyntax.TokenStar, hclsyntax.TokenSlash, hclsyntax.TokenPercent,
		hclsyntax.TokenAnd, hclsyntax.TokenOr, hclsyntax.TokenBang, hclsyntax.TokenEqualOp, hclsyntax.TokenNotEqual,
		hclsyntax.TokenLessThan, hclsyntax.TokenLessThanEq, hclsyntax.TokenGreaterThan, hclsyntax.TokenGreaterThanEq,
		hclsyntax.TokenQuestion:
		d.chain[top]++
		d.total++
	case hclsyntax.TokenComma, hclsyntax.TokenEqual:
		d.total -= d.chain[top]
		d.chain[top] = 0
	case hclsyntax.TokenNewline:
		// A newline ends an attribute in a body or an object, not a
		// line of an expression inside parentheses or brackets.
		if o := d.opener[top]; o == hclsyntax.TokenNil || o == hclsyntax.TokenOBrace {
			d.total -= d.chain[top]
			d.chain[top] = 0
		}
	}
	return d.total
}

func (d *depth) push(t hclsyntax.TokenType) {
	d.opener = append(d.opener, t)
	d.chain = append(d.chain, 0)
	d.total++
}

// pop closes the innermost level (a close without an open is the
// parser's to report).
func (d *depth) pop() {
	top := len(d.chain) - 1
	if top == 0 {
		return
	}
	d.total -= 1 + d.chain[top]
	d.opener, d.chain = d.opener[:top], d.chain[:top]
}

// Check is UTF8, then Nesting: what every loader asks of a source before
// HCL parses it.
func Check(filename string, src []byte, kind Kind) hcl.Diagnostics {
	if d := UTF8(filename, src); d != nil {
		return d
	}
	return Nesting(filename, src, kind)
}

// ParseHCL is p.ParseHCL for every HCL loader (experiment files,
// profiles, -var-files, fixture profiles, lock files, machines blocks):
// a file that is not UTF-8 or nests too deep (Check) is one error at its
// first such place, and is not parsed (the parser would misplace a bad
// byte and all after it, or overflow the stack), only registered with p
// so the error shows its line.
func ParseHCL(p *hclparse.Parser, src []byte, filename string) (*hcl.File, hcl.Diagnostics) {
	if d := Check(filename, src, File); d != nil {
		f := &hcl.File{Body: hcl.EmptyBody(), Bytes: clip(src, d[0].Subject)}
		p.AddFile(filename, f)
		return f, d
	}
	return p.ParseHCL(src, filename)
}

// clip is src up to a little past the end of at, within its line: the
// snippet of an error at a place 200 KB into one line prints that much,
// not the rest of it.
func clip(src []byte, at *hcl.Range) []byte {
	end := min(at.End.Byte, len(src))
	for n := 0; end < len(src) && src[end] != '\n' && n < 40; n++ {
		end++
	}
	return src[:end]
}
