package experiment

import (
	"fmt"
	"regexp"
)

// A name the file gives the experiment, a profile column or a scenario
// becomes part of the report's anchors and chart ids, the records' keys and
// the machines' labels, so it has the shape of a name, not free text (a
// profile's label and the description are the free text, and are escaped
// where they are shown).
var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// ValidName says whether s has the shape of a name: 1 to 63 lowercase
// letters, digits, '.', '_' or '-', starting with a letter or digit.
func ValidName(s string) bool { return namePattern.MatchString(s) }

// name checks the label of the n-th (from 0) block typ "name".
func (l *loader) name(typ, name string, n int) {
	if ValidName(name) {
		return
	}
	l.bad(labelRange(l.f, typ, name, n), "Invalid "+typ+" name",
		fmt.Sprintf("%s name %q: a name is 1 to 63 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit (it names the %s in the results and the report's links; a label or description is the place for free text).", typ, name, typ))
}
