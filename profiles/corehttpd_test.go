package profiles_test

import (
	"strings"
	"testing"

	"github.com/wptest/wptest/profiles"
	"github.com/wptest/wptest/provision"
)

// corehttpd is not public: without a package source its profile is blocked
// on every platform (apply refuses before any op runs), and the message
// says what to provide and names caddy as the open peer. With a source and
// its checksum it is not blocked.
func TestCorehttpdNeedsPackageSource(t *testing.T) {
	for _, tc := range []struct {
		args        []string
		wantBlocked bool
	}{
		{nil, true},
		{[]string{"package_source=https://packages.example.invalid/corehttpd_1.3.1_amd64.deb"}, true}, // no checksum
		{[]string{"package_source=/root/corehttpd_1.3.1_amd64.deb", "package_sha256=" + strings.Repeat("ab", 32)}, false},
		{[]string{"package_source=file:///var/lib/wptest/uploads/" + strings.Repeat("ab", 32) + "-corehttpd_1.3.1_amd64.deb", "package_sha256=" + strings.Repeat("ab", 32)}, false},
	} {
		p, diags := provision.Load(profiles.FS, "corehttpd", provision.Vars{Args: tc.args})
		if diags.HasErrors() {
			t.Fatalf("%v: %v", tc.args, diags)
		}
		for _, platform := range p.Platforms {
			r, diags := p.Render(platform)
			if diags.HasErrors() {
				t.Fatalf("%v %s: %v", tc.args, platform, diags)
			}
			msg := strings.Join(r.Blocked, "\n")
			if !tc.wantBlocked {
				if msg != "" {
					t.Errorf("%v on %s: blocked: %s", tc.args, platform, msg)
				}
				continue
			}
			if msg == "" {
				t.Errorf("%v on %s: not blocked", tc.args, platform)
				continue
			}
			if tc.args == nil {
				for _, want := range []string{"not publicly available", "-var package_source=", "package_sha256", "--profile caddy"} {
					if !strings.Contains(msg, want) {
						t.Errorf("%s: message lacks %q:\n%s", platform, want, msg)
					}
				}
			}
		}
	}
}
