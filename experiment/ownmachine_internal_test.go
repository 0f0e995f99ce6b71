package experiment

import "testing"

func TestCPUsOverlap(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"1", "0", false}, {"2-3", "0-1", false}, {"0-3", "3", true}, {"0,4-7", "1-3", false}, {"0,4-7", "5", true},
		{"", "0", true}, {"x", "0", true}, {"3-1", "0", true},
	} {
		if got := cpusOverlap(c.a, c.b); got != c.want {
			t.Errorf("cpusOverlap(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
