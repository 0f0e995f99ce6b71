package hostmanifest

import "testing"

// A mark is data from the host: only a profile's name and one clean line
// of the tool's are said; anything else is "unknown" and none, and a mark
// that does not parse still says an apply began.
func TestParseUnfinishedKeepsOnlyWhatMaySay(t *testing.T) {
	for _, c := range []struct {
		in            string
		profile, tool string
		up            string
	}{
		{`{"profile":"caddy","tool":"wptest 0.1.0"}`, "caddy", "wptest 0.1.0", "wptest up --profile caddy"},
		{`{"profile":"caddy; rm -rf /","tool":"wptest"}`, "unknown", "wptest", "wptest up --profile <the profile>"},
		{`{"profile":"--target=ssh://evil","tool":"x"}`, "unknown", "x", "wptest up --profile <the profile>"},
		{`{"profile":"tuned-apache","tool":"wptest\u001b]0;owned\u0007"}`, "tuned-apache", "", "wptest up --profile tuned-apache"},
		{`{"profile":"nginx","tool":"two\nlines"}`, "nginx", "", "wptest up --profile nginx"},
		{`not json`, "unknown", "", "wptest up --profile <the profile>"},
		{``, "unknown", "", "wptest up --profile <the profile>"},
	} {
		u := parseUnfinished([]byte(c.in))
		if u.Profile != c.profile || u.Tool != c.tool || u.UpCommand() != c.up {
			t.Errorf("%q: profile %q tool %q up %q; want %q %q %q", c.in, u.Profile, u.Tool, u.UpCommand(), c.profile, c.tool, c.up)
		}
	}
	if got := (&Unfinished{Profile: "caddy"}).String(); got != "the last apply (profile caddy) did not finish: it failed or was cut off, and left the server part-applied" {
		t.Errorf("String() = %q", got)
	}
}
