package testenv

import (
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/wptest/wptest/provision/cloud/netns/machine"
)

// AptCacherPort is where this machine's one apt-cacher-ng for bare hosts
// (and every netns machine) listens; each host reaches it at its gateway.
const AptCacherPort = machine.AptCacherPort

// BareSuiteEnv names the Debian release bare hosts are made from when a
// test does not choose one (BareHostsOn): "bookworm" (Debian 12, the
// default) or "trixie" (Debian 13; CI runs the bare-host tests on it).
// Each release's rootfs is cached on its own.
const BareSuiteEnv = "WPTEST_BARE_SUITE"

// BareSuite is the release bare hosts are made from by default
// ($WPTEST_BARE_SUITE, else bookworm); an unknown one fails the test.
func BareSuite(t testing.TB) string {
	t.Helper()
	s := os.Getenv(BareSuiteEnv)
	if s == "" {
		s = "bookworm"
	}
	if machine.Platform(s) == "" {
		t.Fatalf("%s=%q: bare hosts are made from %s", BareSuiteEnv, s, strings.Join(sortedKeys(machine.Suites), " or "))
	}
	return s
}

// BarePlatform is the platform (host facts, profiles) of a suite.
func BarePlatform(suite string) string { return machine.Platform(suite) }

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
