package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"target", "target", 0},
		{"targt", "target", 1},   // a letter left out
		{"cpanle", "cpanel", 1},  // two letters swapped: one slip
		{"Caddy", "caddy", 0},    // case does not count
		{"nginx", "nignx", 1},    // swapped in the middle
		{"page", "pages", 1},     // one added
		{"kitten", "sitting", 3}, // the textbook pair
		{"agncy", "agency", 1},   // fixture name
		{"crowd", "browse", 3},   // other words
		{"héllo", "hello", 1},    // letters, not bytes
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	profiles := []string{"caddy", "corehttpd", "cpanel-apache", "nginx", "tuned-apache", "core", "cpanel", "tuned"}
	flags := []string{"target", "var", "resume", "runs", "known-hosts", "identity", "keep", "plan", "verbose"}
	for _, c := range []struct {
		word       string
		candidates []string
		want       string // "": none near enough
	}{
		{"cpanle", profiles, "cpanel"},
		{"ngnix", profiles, "nginx"},
		{"tuned-apach", profiles, "tuned-apache"},
		{"apache", profiles, ""}, // no slip of any name
		{"targt", flags, "target"},
		{"trget", flags, "target"},
		{"pla", flags, "plan"},
		{"json", flags, ""},
		{"x", flags, ""}, // one letter: any one-letter edit is too far a guess
		{"keepp", flags, "keep"},
		{"pages", []string{"page", "static", "compression"}, "page"},
		{"anything", nil, ""},
	} {
		got, ok := Closest(c.word, c.candidates)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("Closest(%q) = %q, %v; want %q", c.word, got, ok, c.want)
		}
	}
	if h := Hint("targt", flags); h != "; did you mean target?" {
		t.Errorf("Hint = %q", h)
	}
	if h := Hint("json", flags); h != "" {
		t.Errorf("Hint of nothing near = %q, want empty", h)
	}
}

// Of equally near candidates the first wins, so a hint does not change from
// one run to the next.
func TestClosestTie(t *testing.T) {
	if got, _ := Closest("cat", []string{"bat", "cap", "car"}); got != "bat" {
		t.Errorf("tie: %q, want the first, bat", got)
	}
}
