package experiment

import (
	"github.com/wptest/wptest/results"
	"strings"
	"testing"
)

// TestWithSources: the run's web sources are added to a column's
// allow_from (its own kept, each address once, sorted), only for a profile
// that has the variable; a malformed given value is a config error naming it.
func TestWithSources(t *testing.T) {
	src := []string{"203.0.113.9", "198.51.100.7"}
	for _, c := range []struct {
		name     string
		vars     map[string]string
		sources  []string
		declared bool
		want     string // the allow_from given to the profile ("" none)
		err      string
	}{
		{"none given", nil, src, true, `["198.51.100.7", "203.0.113.9"]`, ""},
		{"the column's kept", map[string]string{"allow_from": `["192.0.2.0/24", "203.0.113.9"]`, "x": "1"}, src, true, `["192.0.2.0/24", "198.51.100.7", "203.0.113.9"]`, ""},
		{"no sources", map[string]string{"allow_from": `["192.0.2.1"]`}, nil, true, `["192.0.2.1"]`, ""},
		{"profile without it", nil, src, false, "", ""},
		{"not a list", map[string]string{"allow_from": `"192.0.2.1"`}, src, true, "", "want a list of addresses"},
		{"not strings", map[string]string{"allow_from": `[1, 2]`}, src, true, "", "want a list of addresses"},
	} {
		ps, err := withSources(results.Column{ID: "p", Profile: "p", Vars: c.vars}, c.sources, c.declared)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "allow_from") {
				t.Errorf("%s: %v, want an error naming allow_from: %s", c.name, err, c.err)
			}
			continue
		}
		if err != nil || ps.Vars["allow_from"] != c.want {
			t.Errorf("%s: allow_from %q (%v), want %q", c.name, ps.Vars["allow_from"], err, c.want)
		}
		if c.vars != nil && c.vars["x"] != "" && ps.Vars["x"] != "1" {
			t.Errorf("%s: the column's other variables lost", c.name)
		}
	}
}
