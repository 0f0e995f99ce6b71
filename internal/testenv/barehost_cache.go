package testenv

import (
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wptest/wptest/provision/cloud/netns/machine"
)

// AptCacherAddr is where this machine's one apt-cacher-ng for bare hosts
// (and every netns machine) listens, on machine.AptCacherPort: that
// address alone, which each host routes via its gateway.
const AptCacherAddr = machine.AptCacherAddr

// CacheEnv and CachePortEnv move the bare hosts' cache (rootfs, images,
// apt-cacher-ng) to another directory, with its own apt-cacher-ng on
// another port (machine.UseCache): a run from an empty cache, as on a
// fresh machine, beside this machine's usual one.
const (
	CacheEnv     = "WPTEST_NETNS_CACHE"
	CachePortEnv = "WPTEST_NETNS_APT_PORT"
)

func init() {
	dir := os.Getenv(CacheEnv)
	if dir == "" {
		return
	}
	port, err := strconv.Atoi(os.Getenv(CachePortEnv))
	if err != nil || port <= 1024 || port > 65535 || port == machine.DefaultAptCacherPort {
		panic(fmt.Sprintf("%s=%s needs %s: a free port above 1024 other than %d", CacheEnv, dir, CachePortEnv, machine.DefaultAptCacherPort))
	}
	machine.UseCache(dir, port)
}

// CheckAptCacherPrivate fails t unless the apt-cacher-ng listens at
// AptCacherAddr alone, as ss sees this machine's sockets (nothing on
// 0.0.0.0, ::, or any address a stranger reaches), and a host, through
// run (a shell on it), gets its report page there but finds nothing
// listening at its gateway, this machine's side of its link.
func CheckAptCacherPrivate(t testing.TB, gateway string, run func(script string) string) {
	t.Helper()
	port := strconv.Itoa(machine.AptCacherPort)
	out, err := exec.Command("ss", "-ltnH", "sport = :"+port).CombinedOutput()
	if err != nil {
		t.Fatalf("ss: %v\n%s", err, out)
	}
	var listens []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(l); len(f) >= 4 {
			listens = append(listens, f[3])
		}
	}
	if want := net.JoinHostPort(AptCacherAddr, port); len(listens) != 1 || listens[0] != want {
		t.Errorf("on port %s this machine listens at %v, want %s alone (ss:\n%s)", port, listens, want, out)
	}
	got := run("timeout 30 bash -c 'exec 3<>/dev/tcp/" + AptCacherAddr + "/" + port + " && " +
		`printf "GET /acng-report.html HTTP/1.0\r\n\r\n" >&3 && cat <&3' | grep -c "Apt-Cacher NG" || true`)
	if got == "0" || got == "" {
		t.Errorf("the host got no apt-cacher-ng report page from %s:%s", AptCacherAddr, port)
	}
	if got := run("timeout 10 bash -c 'exec 3<>/dev/tcp/" + gateway + "/" + port + "' 2>/dev/null && echo open || echo closed"); got != "closed" {
		t.Errorf("from the host, %s:%s (its gateway) is %s, want closed", gateway, port, got)
	}
}

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
		t.Fatalf("%s=%q: bare hosts are made from %s", BareSuiteEnv, s, strings.Join(slices.Sorted(maps.Keys(machine.Suites)), " or "))
	}
	return s
}

// BarePlatform is the platform (host facts, profiles) of a suite.
func BarePlatform(suite string) string { return machine.Platform(suite) }
