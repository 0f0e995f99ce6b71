package hostmanifest

import (
	"strings"
	"testing"
)

// A mark is data from the host: only a profile's name and one clean line
// of the tool's are said; anything else is "unknown" and none, a mark that
// does not parse is still a mark (an apply began), and a read error is
// ours to say, never the mark's.
func TestParseUnfinishedKeepsOnlyWhatMaySay(t *testing.T) {
	for _, c := range []struct {
		in            string
		profile, tool string
		readErr, says string
	}{
		{`{"profile":"caddy","tool":"wptest 0.1.0"}`, "caddy", "wptest 0.1.0", "", "the last apply (profile caddy, by wptest 0.1.0) did not finish"},
		{`{"profile":"caddy; rm -rf /","tool":"wptest"}`, "unknown", "wptest", "", "the last apply (profile unknown, by wptest) did not finish"},
		{`{"profile":"--target=ssh://evil","tool":"x"}`, "unknown", "x", "", "(profile unknown, by x)"},
		{`{"profile":"tuned-apache","tool":"wptest\u001b]0;owned\u0007"}`, "tuned-apache", "", "", "(profile tuned-apache) did not finish"},
		{`{"profile":"nginx","tool":"two\nlines"}`, "nginx", "", "", "(profile nginx) did not finish"},
		{`{"profile":"nginx","read_error":"forged"}`, "nginx", "", "", "the last apply (profile nginx) did not finish"},
		{`not json`, "unknown", "", "not JSON", "(profile unknown; its mark " + UnfinishedPath + " could not be read: not JSON) did not finish"},
	} {
		u := parseUnfinished([]byte(c.in))
		if u.Profile != c.profile || u.Tool != c.tool || u.ReadErr != c.readErr || !strings.Contains(u.String(), c.says) {
			t.Errorf("%q: profile %q tool %q read error %q says %q; want %q %q %q saying %q", c.in, u.Profile, u.Tool, u.ReadErr, u, c.profile, c.tool, c.readErr, c.says)
		}
	}
}

// A read error is one clean line, however the host's command failed.
func TestOneLine(t *testing.T) {
	got := oneLine("exit status 1:\n  head: cannot open\x1b[31m\n" + strings.Repeat("x", 300))
	if strings.ContainsAny(got, "\n\x1b") || len(got) > 200+len("…") || !strings.HasPrefix(got, "exit status 1: head: cannot open") {
		t.Errorf("oneLine = %q", got)
	}
	if u := (&Unfinished{Profile: "unknown"}); u.Finish() != "apply its profile there with wptest up" {
		t.Errorf("Finish() = %q", u.Finish())
	}
}
