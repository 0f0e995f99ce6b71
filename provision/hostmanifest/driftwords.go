package hostmanifest

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// Since is how a drift names the last apply.
const since = "since up"

// name is a path as a drift names it: with its watch block's name when a
// watch block names the path itself ("/etc/php/8.4/cgi/php.ini (php-cgi)").
func name(e *Entry) string {
	if e.Watch != "" && e.In == "" {
		return e.Path + " (" + e.Watch + ")"
	}
	return e.Path
}

// what is an entry's kind in words ("a file", "a link to /x").
func what(e *Entry) string {
	switch e.Kind {
	case KindFile:
		return "a file"
	case KindDir:
		return "a directory"
	case KindLink:
		return "a link to " + e.Target
	case KindOther:
		return "a " + e.Detail
	case KindUnsafe:
		return "not read (" + e.Detail + ")"
	}
	return "nothing"
}

// compareOne names how one path changed, if it did. An entry of a watched
// directory (was or now nil) is added or removed; a path the record and
// the scan both list changed kind, content or target.
func compareOne(was, now *Entry) (Drift, bool) {
	switch {
	case was == nil && now == nil:
		return Drift{}, false
	case was == nil || was.Kind == KindAbsent && now.Kind != KindAbsent:
		if was == nil {
			return Drift{Path: now.Path, What: fmt.Sprintf("%s was added to %s: %s", what(now), dirName(now), path.Base(now.Path))}, true
		}
		return Drift{Path: now.Path, What: fmt.Sprintf("%s was made %s: %s", name(now), since, what(now))}, true
	case now == nil || now.Kind == KindAbsent && was.Kind != KindAbsent:
		if now == nil {
			return Drift{Path: was.Path, What: fmt.Sprintf("%s was removed from %s: %s", kindWord(was), dirName(was), path.Base(was.Path))}, true
		}
		return Drift{Path: was.Path, What: fmt.Sprintf("%s was removed %s (it was %s)", name(was), since, what(was))}, true
	}
	n := name(now)
	switch {
	case was.Kind != now.Kind:
		return Drift{Path: now.Path, What: fmt.Sprintf("%s changed %s: it was %s, now %s", n, since, what(was), what(now))}, true
	case now.Kind == KindLink && was.Target != now.Target:
		return Drift{Path: now.Path, What: fmt.Sprintf("%s changed %s: a link to %s, now to %s", n, since, was.Target, now.Target)}, true
	case (now.Kind == KindOther || now.Kind == KindUnsafe) && was.Detail != now.Detail:
		return Drift{Path: now.Path, What: fmt.Sprintf("%s changed %s: it was %s, now %s", n, since, what(was), what(now))}, true
	case now.Kind == KindFile && (was.SHA256 != now.SHA256 || was.SHA256 == "-" && was.Size != now.Size):
		d := Drift{Path: now.Path, What: fmt.Sprintf("%s changed %s", n, since), diff: true}
		if now.Sensitive {
			d.diff = false
		} else if !was.Copied || now.Size > MaxCopy {
			d.What += fmt.Sprintf(" (%d bytes → %d bytes)", was.Size, now.Size)
		}
		return d, true
	}
	return Drift{}, false
}

// dirName names the watched directory an entry was added to or removed
// from.
func dirName(e *Entry) string {
	if e.Watch != "" {
		return e.In + " (" + e.Watch + ")"
	}
	return e.In
}

// kindWord is an entry's kind in one word with its article ("a file").
func kindWord(e *Entry) string {
	if e.Kind == KindLink {
		return "a link"
	}
	return what(e)
}

// maxLines is how many changed lines a drift shows.
const maxLines = 8

// LineDiff names the lines that changed between two texts: a line whose
// first word (a directive, an ini key) is on both sides as "OLD → NEW"
// (the new line from where it differs: "MaxRequestWorkers 150 → 400",
// "memory_limit = 128M → 256M"), others as "removed: LINE" or "added:
// LINE"; blank lines are left out. nil when either is not text (not UTF-8,
// a NUL byte).
func LineDiff(old, cur []byte) []string {
	if !isText(old) || !isText(cur) {
		return nil
	}
	removed, added := diffLines(splitLines(old), splitLines(cur))
	removed, added = hideSecrets(removed), hideSecrets(added)
	var out []string
	used := make([]bool, len(added))
	for _, r := range removed {
		j := -1
		for k, a := range added {
			if !used[k] && key(a) == key(r) {
				j = k
				break
			}
		}
		if j < 0 {
			out = append(out, "removed: "+r)
			continue
		}
		used[j] = true
		if r == added[j] { // both hidden
			out = append(out, key(r)+" changed (value not shown)")
			continue
		}
		out = append(out, arrow(r, added[j]))
	}
	for k, a := range added {
		if !used[k] {
			out = append(out, "added: "+a)
		}
	}
	if len(out) > maxLines {
		more := len(out) - maxLines
		out = append(out[:maxLines], fmt.Sprintf("and %d more changed line%s", more, plural(more)))
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// secretWords mark a line whose value may be a secret (a MariaDB
// password in its config directory): its key is shown, never its value.
var secretWords = []string{"pass", "secret", "token", "key", "auth"}

// hideSecrets replaces the value of each line whose key names a secret.
func hideSecrets(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		k := strings.ToLower(key(l))
		out[i] = l
		for _, w := range secretWords {
			if strings.Contains(k, w) {
				out[i] = key(l) + " (value not shown)"
				break
			}
		}
	}
	return out
}

func isText(b []byte) bool { return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 }

// splitLines: the text's lines, trimmed, blank ones left out.
func splitLines(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// key is a line's first word: up to a space, tab, '=' or ':'.
func key(l string) string {
	if i := strings.IndexAny(l, " \t=:"); i >= 0 {
		return l[:i]
	}
	return l
}

// arrow shows old → new with the new line from the word where they differ.
func arrow(old, cur string) string {
	n := 0
	for n < len(old) && n < len(cur) && old[n] == cur[n] {
		n++
	}
	for n > 0 && !strings.ContainsRune(" \t=:", rune(cur[n-1])) {
		n--
	}
	return old + " → " + strings.TrimLeft(cur[n:], " \t")
}

// maxCells bounds the diff's table (lines between the common head and
// tail): beyond it the middle is all removed and all added.
const maxCells = 4 << 20

// diffLines are the lines only a has and only b has, in order: the common
// head and tail cut, then a longest common subsequence of the rest.
func diffLines(a, b []string) (removed, added []string) {
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	if len(a)*len(b) > maxCells || len(a) == 0 || len(b) == 0 {
		return a, b
	}
	// lcs[i][j]: the longest common subsequence of a[i:] and b[j:].
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			i, j = i+1, j+1
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			removed = append(removed, a[i])
			i++
		default:
			added = append(added, b[j])
			j++
		}
	}
	return append(removed, a[i:]...), append(added, b[j:]...)
}
