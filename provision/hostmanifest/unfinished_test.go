package hostmanifest

import (
	"strings"
	"testing"
)

// A mark is data from the host: only a profile's name and one clean line
// of the tool's are said; anything else is "unknown" and none, a mark that
// does not parse is still a mark (an apply began), and only wptest apply's
// own word makes it one of wptest apply.
func TestParseUnfinishedKeepsOnlyWhatMaySay(t *testing.T) {
	for _, c := range []struct {
		in            string
		profile, tool string
		via, says     string
	}{
		{`{"profile":"caddy","tool":"wptest 0.1.0"}`, "caddy", "wptest 0.1.0", "", "the last apply (profile caddy, by wptest 0.1.0) did not finish"},
		{`{"profile":"caddy; rm -rf /","tool":"wptest"}`, "unknown", "wptest", "", "the last apply (profile unknown, by wptest) did not finish"},
		{`{"profile":"--target=ssh://evil","tool":"x"}`, "unknown", "x", "", "(profile unknown, by x)"},
		{`{"profile":"tuned-apache","tool":"wptest\u001b]0;owned\u0007"}`, "tuned-apache", "", "", "(profile tuned-apache) did not finish"},
		{`{"profile":"nginx","tool":"two\nlines"}`, "nginx", "", "", "(profile nginx) did not finish"},
		{`{"profile":"nginx","via":"apply"}`, "nginx", "", "apply", "the last change was wptest apply (profile nginx), which keeps no host manifest"},
		{`{"profile":"nginx","via":"rm -rf /"}`, "nginx", "", "", "the last apply (profile nginx) did not finish"},
		{`not json`, "unknown", "", "", "(profile unknown; its mark " + UnfinishedPath + " could not be read: not JSON) did not finish"},
	} {
		u := parseUnfinished([]byte(c.in))
		if u.Profile != c.profile || u.Tool != c.tool || u.Via != c.via || !strings.Contains(u.String(), c.says) {
			t.Errorf("%q: profile %q tool %q via %q says %q; want %q %q %q saying %q", c.in, u.Profile, u.Tool, u.Via, u, c.profile, c.tool, c.via, c.says)
		}
	}
}
