// Package shellword checks, with a real shell parser (mvdan.cc/sh), that
// a value pasted into a shell script stayed one word: the tests of the
// profile language and of the commands wptest builds use it with hostile
// values (quotes, "$(", ";", newlines) to prove none of them becomes code.
package shellword

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Check parses script (lang) and checks that value, which holds marker (a
// string of letters no script says by itself), stayed one shell word
// wherever it went: every place the marker appears in the script's text is
// inside a word whose literal text holds the whole value, with each of the
// value's special characters quoted, and no such word is run as a script
// itself (eval, sh -c). A value that is not in the script passes; a script
// that no longer parses fails. The value must appear verbatim: one passed
// through a function first (upper, replace) is not recognised.
func Check(script string, lang syntax.LangVariant, value, marker string) error {
	if marker == "" || !strings.Contains(value, marker) {
		return fmt.Errorf("the value %q does not hold the marker %q", value, marker)
	}
	if !strings.Contains(script, marker) {
		return nil
	}
	f, err := syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(true)).Parse(strings.NewReader(script), "")
	if err != nil {
		return fmt.Errorf("the script no longer parses: %v", err)
	}
	var words []*syntax.Word
	evalArgs := map[*syntax.Word]string{}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Word:
			words = append(words, x)
		case *syntax.CallExpr:
			for w, why := range runsAsScript(x) {
				evalArgs[w] = why
			}
		}
		return true
	})
	heredoc := map[*syntax.Word]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if r, ok := n.(*syntax.Redirect); ok && r.Hdoc != nil {
			heredoc[r.Hdoc] = true
		}
		return true
	})
	for off := 0; ; {
		i := strings.Index(script[off:], marker)
		if i < 0 {
			return nil
		}
		at := uint(off + i)
		off += i + len(marker)
		w := innermost(words, at, uint(len(marker)))
		if w == nil {
			return fmt.Errorf("at byte %d the value is outside any word (an operator, a name or a comment): %q", at, around(script, int(at), len(marker)))
		}
		if why, ok := evalArgs[w]; ok {
			return fmt.Errorf("the word holding the value is run as a script (%s): %q", why, around(script, int(at), len(marker)))
		}
		if err := holds(w, heredoc[w], value); err != nil {
			return fmt.Errorf("%v: %q", err, around(script, int(at), len(marker)))
		}
	}
}

// innermost is the smallest word whose text covers [at, at+n).
func innermost(words []*syntax.Word, at, n uint) *syntax.Word {
	var best *syntax.Word
	for _, w := range words {
		if w.Pos().Offset() <= at && at+n <= w.End().Offset() {
			if best == nil || w.End().Offset()-w.Pos().Offset() < best.End().Offset()-best.Pos().Offset() {
				best = w
			}
		}
	}
	return best
}

// holds checks that w's literal text (expansions opaque) contains value
// with every character a shell treats specially quoted.
func holds(w *syntax.Word, inHeredoc bool, value string) error {
	var lit literal
	for _, p := range w.Parts {
		lit.part(p, inHeredoc)
	}
	text := string(lit.text)
	found := false
	for off := 0; ; {
		i := strings.Index(text[off:], value)
		if i < 0 {
			break
		}
		found = true
		for k := off + i; k < off+i+len(value); k++ {
			if !lit.quoted[k] && !inert(text[k]) {
				return fmt.Errorf("%q of the value is unquoted (the shell splits, expands or globs it)", text[k])
			}
		}
		off += i + len(value)
	}
	if !found {
		return errors.New("the value is split over words, substitutions or operators (no single word holds all of it)")
	}
	return nil
}

// inert are the bytes host.Quote and the profiles' shellquote leave bare.
func inert(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_./=:@,+%", c) >= 0
}

// literal is a word's text as the shell sees it after quote removal, with
// whether each byte was quoted; expansions are an opaque NUL.
type literal struct {
	text   []byte
	quoted []bool
}

func (l *literal) add(c byte, q bool) { l.text = append(l.text, c); l.quoted = append(l.quoted, q) }

func (l *literal) part(p syntax.WordPart, inHeredoc bool) {
	switch x := p.(type) {
	case *syntax.Lit:
		if inHeredoc {
			l.unescape(x.Value, "$`\\\n", true)
		} else {
			l.unescape(x.Value, "", false)
		}
	case *syntax.SglQuoted:
		for i := 0; i < len(x.Value); i++ {
			l.add(x.Value[i], true)
		}
	case *syntax.DblQuoted:
		for _, q := range x.Parts {
			if lt, ok := q.(*syntax.Lit); ok {
				l.unescape(lt.Value, "$`\"\\\n", true)
			} else {
				l.add(0, true)
			}
		}
	default: // $x, $(...), `...`, $((...)), <(...), extglobs
		l.add(0, true)
	}
}

// unescape removes backslashes as the shell does: before any byte when
// escapable is "" (unquoted), else only before those in escapable; the
// byte after a removed backslash is quoted, the others are quoted as q.
func (l *literal) unescape(s, escapable string, q bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) && (escapable == "" || strings.IndexByte(escapable, s[i+1]) >= 0) {
			i++
			if s[i] != '\n' {
				l.add(s[i], true)
			}
			continue
		}
		l.add(c, q)
	}
}

// runsAsScript: the arguments of call that a shell runs as code.
func runsAsScript(call *syntax.CallExpr) map[*syntax.Word]string {
	out := map[*syntax.Word]string{}
	if len(call.Args) == 0 {
		return out
	}
	name := call.Args[0].Lit()
	switch name {
	case "eval":
		for _, a := range call.Args[1:] {
			out[a] = "eval"
		}
	case "sh", "bash", "dash", "su", "runuser":
		for i, a := range call.Args[1:] {
			if a.Lit() == "-c" && i+2 < len(call.Args) {
				out[call.Args[i+2]] = name + " -c"
			}
		}
	}
	return out
}

func around(s string, at, n int) string {
	lo, hi := max(0, at-40), min(len(s), at+n+40)
	return s[lo:hi]
}
