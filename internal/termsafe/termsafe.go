// Package termsafe makes a string from a file someone else wrote (a run
// directory's manifest, a journal) safe to print on a terminal: no escape
// sequence, cursor movement or other control character reaches it, so a
// name cannot clear the screen, rewrite a line already shown, set the
// window title or hide text. JSON escapes C0 controls but writes C1
// controls (U+009B is CSI), DEL and direction overrides as they are: JSON
// for a terminal passes JSON.
package termsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Line is s on one line: a newline, carriage return or tab becomes a
// space, and every other control character, Unicode direction override
// and invalid byte becomes U+FFFD.
func Line(s string) string { return clean(s, false) }

// Text is s as lines: newlines and tabs stay (a "\r\n" is a newline),
// everything else Line replaces is replaced.
func Text(s string) string { return clean(s, true) }

// JSON is b, JSON as encoding/json writes it, with every character Line
// would replace, other than the whitespace between tokens, written as a
// \uXXXX escape: the same JSON values, nothing a terminal acts on. (Such
// a character can only be inside a string: outside strings JSON is
// ASCII.)
func JSON(b []byte) []byte {
	s := string(b)
	if !strings.ContainsFunc(s, func(c rune) bool { return bad(c) && !space(c) }) {
		return b
	}
	var out strings.Builder
	for _, c := range s {
		if bad(c) && !space(c) {
			fmt.Fprintf(&out, `\u%04x`, c)
		} else {
			out.WriteRune(c)
		}
	}
	return []byte(out.String())
}

func space(c rune) bool { return c == '\n' || c == '\t' || c == '\r' }

func clean(s string, lines bool) string {
	if !strings.ContainsFunc(s, func(c rune) bool { return c == utf8.RuneError || bad(c) }) {
		return s
	}
	var b strings.Builder
	for i, c := range s { // ranging over a string gives U+FFFD for invalid UTF-8
		switch {
		case lines && (c == '\n' || c == '\t'):
			b.WriteRune(c)
		case lines && c == '\r' && strings.HasPrefix(s[i+1:], "\n"):
		case c == '\n' || c == '\r' || c == '\t':
			b.WriteByte(' ')
		case bad(c):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// bad: C0 and C1 controls (ESC, CSI, OSC, BEL, backspace, ...), DEL, and
// the bidirectional overrides and isolates that reorder what a terminal
// shows (U+202A–U+202E, U+2066–U+2069).
func bad(c rune) bool {
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)
}
