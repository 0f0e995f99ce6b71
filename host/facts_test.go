package host

import "testing"

// parseFacts reads what factsScript prints on each platform we target.
func TestParseFacts(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      Facts
	}{
		{"debian-12", `PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
ID=debian

WPTEST_ARCH=x86_64
WPTEST_INIT=none
WPTEST_PM=apt
WPTEST_SELINUX=absent
WPTEST_FIREWALLD=absent
`, Facts{OSID: "debian", OSVersion: "12", Platform: "debian-12", Arch: "x86_64", Init: "none", PackageManager: "apt", SELinux: "absent", Firewalld: "absent"}},
		{"debian-13", `PRETTY_NAME="Debian GNU/Linux 13 (trixie)"
NAME="Debian GNU/Linux"
VERSION_ID="13"
VERSION="13 (trixie)"
VERSION_CODENAME=trixie
DEBIAN_VERSION_FULL=13.8
ID=debian
HOME_URL="https://www.debian.org/"
WPTEST_ARCH=x86_64
WPTEST_INIT=none
WPTEST_PM=apt
WPTEST_SELINUX=absent
WPTEST_FIREWALLD=absent
`, Facts{OSID: "debian", OSVersion: "13", Platform: "debian-13", Arch: "x86_64", Init: "none", PackageManager: "apt", SELinux: "absent", Firewalld: "absent"}},
		{"almalinux-9", `NAME="AlmaLinux"
VERSION="9.4 (Seafoam Ocelot)"
ID="almalinux"
ID_LIKE="rhel centos fedora"
VERSION_ID="9.4"
# a comment=with equals
WPTEST_ARCH=aarch64
WPTEST_INIT=systemd
WPTEST_PM=dnf
WPTEST_SELINUX=enforcing
WPTEST_FIREWALLD=not running
`, Facts{OSID: "almalinux", OSVersion: "9.4", Platform: "almalinux-9", Arch: "aarch64", Init: "systemd", PackageManager: "dnf", SELinux: "enforcing", Firewalld: "not running"}},
		{"single quotes, no version", `ID='arch'
WPTEST_ARCH=x86_64
WPTEST_INIT=systemd
WPTEST_PM=none
`, Facts{OSID: "arch", Platform: "arch", Arch: "x86_64", Init: "systemd", PackageManager: "none"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseFacts([]byte(tc.out))
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v\nwant %+v", got, err, tc.want)
			}
		})
	}
	if _, err := parseFacts([]byte("WPTEST_ARCH=x86_64\n")); err == nil {
		t.Error("no os-release ID: want an error")
	}
}

func TestFactsGoArch(t *testing.T) {
	for arch, want := range map[string]string{"x86_64": "amd64", "aarch64": "arm64", "arm64": "arm64", "riscv64": "", "": ""} {
		if got := (Facts{Arch: arch}).GoArch(); got != want {
			t.Errorf("Facts{Arch: %q}.GoArch() = %q, want %q", arch, got, want)
		}
	}
}
