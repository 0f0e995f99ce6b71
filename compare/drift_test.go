package compare

import (
	"strings"
	"testing"

	"github.com/wptest/wptest/results"
)

// A run measured on a hand-edited server (--accept-drift) differs from one
// that was not, column by column, in the drift's own words.
func TestDifferencesDrift(t *testing.T) {
	edit := "kept (the apply did not put it back; now in the drift record): /etc/php/8.4/cgi/php.ini (php-cgi) changed since up: memory_limit = 128M → 256M"
	reset := "reset: /etc/apache2/apache2.conf changed since up: MaxRequestWorkers 150 → 400"
	a := &results.Manifest{Drift: map[string][]string{"cpanel": {edit}}}
	b := &results.Manifest{Drift: map[string][]string{"cpanel": {edit}, "tuned": {reset}}}
	got := Differences(a, b)
	want := []string{"column tuned drift (changed by hand since its apply, measured with --accept-drift) in B only: " + reset}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := Differences(b, b); len(got) != 0 {
		t.Errorf("same drift: %q, want none", got)
	}
}
