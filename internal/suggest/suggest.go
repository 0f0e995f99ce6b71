// Package suggest finds the name someone probably meant when they typed one
// that does not exist ("did you mean cpanel?"): the nearest candidate by
// edit distance, if it is near enough to be a slip rather than another word.
package suggest

import "strings"

// Distance is the number of edits that turn a into b: a letter inserted,
// deleted or replaced, or two neighbours swapped (optimal string alignment,
// so "cpanle" is one edit from "cpanel", as a typist's slip is). Letters are
// compared without case.
func Distance(a, b string) int {
	x, y := []rune(strings.ToLower(a)), []rune(strings.ToLower(b))
	// d[i][j] is the distance between x[:i] and y[:j].
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// Closest is the candidate nearest to word, and whether one is near enough:
// at most a third of word's letters away (at least one edit), so that a
// short word does not "mean" every other short word. Of equally near
// candidates the first wins.
func Closest(word string, candidates []string) (string, bool) {
	limit := max(1, len([]rune(word))/3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if d := Distance(word, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best, best != ""
}

// Hint is "; did you mean NAME?" for the candidate nearest to word, or ""
// when none is near enough: the tail of an error that names word.
func Hint(word string, candidates []string) string {
	if c, ok := Closest(word, candidates); ok {
		return "; did you mean " + c + "?"
	}
	return ""
}
