package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/internal/testenv/baked"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// firewalldPackages are what the firewalld test's host needs beyond the
// bare rootfs: installing them is no part of what it proves, so they come
// baked in an image of their own (made once per machine, keyed by this
// list), not from apt in every run.
const firewalldPackages = "firewalld netbase python3"

var firewalldImage = &testenv.BareImage{Name: "firewalld", Key: "apt --no-install-recommends " + firewalldPackages,
	Bake: func(ctx context.Context, bh *testenv.BareHost, log io.Writer) error {
		h, err := baked.Open(ctx, bh)
		if err != nil {
			return err
		}
		defer h.Close()
		_, err = h.Run(ctx, host.Cmd{Timeout: 15 * time.Minute, Stderr: log, Script: `set -e
apt-get -q update >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends ` + firewalldPackages + ` >/dev/null
apt-get clean`})
		return err
	}}

// TestBareHostFirewalldScopedAndTornDown: the site part's wptest-firewall
// against real firewalld (Debian's package, on a fresh bare host: its own
// network namespace, so its rules filter only it; installed in the
// host's image, firewalldImage). A web port is closed to
// this machine until its address is a source; another source's rule does
// not let it in, and the next apply removes what it no longer wants;
// SSH stays open throughout; `wptest down` of a run whose server stays (a
// static machine) runs the profile's teardown from the host manifest and
// the port is closed again, with no rule of wptest's left.
func TestBareHostFirewalldScopedAndTornDown(t *testing.T) {
	t.Parallel() // a host of its own: beside the image's tests, after the install path (TestBareHostUpSeedSwap) and the package's other tests
	bh := testenv.BareHostsFrom(t, firewalldImage, "fw")[0]
	ctx := context.Background()
	tg, err := host.ParseTarget(bh.Target)
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Open(ctx, tg, host.Options{KnownHostsFile: bh.KnownHosts, IdentityFile: bh.Identity})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	sh := func(script string) string {
		t.Helper()
		res, err := h.Run(ctx, host.Cmd{Script: script, Timeout: 15 * time.Minute})
		if err != nil {
			t.Fatalf("on the host: %s: %v", script, err)
		}
		return strings.TrimSpace(string(res.Stdout))
	}
	sh(`set -e
mkdir -p /run/dbus
dbus-daemon --system --fork
firewalld
for i in $(seq 150); do firewall-cmd --state >/dev/null 2>&1 && break; sleep 0.2; done
firewall-cmd --state || { tail -30 /var/log/firewalld >&2; exit 1; }
cd / && nohup python3 -m http.server 8080 >/dev/null 2>&1 &`)
	script, err := os.ReadFile(filepath.Join("..", "..", "..", "profiles", "_parts", "site", "templates", "shared", "wptest-firewall"))
	if err != nil {
		t.Fatal(err)
	}
	const fw = "/usr/local/lib/wptest/wptest-firewall"
	sh("mkdir -p /usr/local/lib/wptest")
	if err := h.Put(ctx, fw, bytes.NewReader(script), host.PutOptions{Mode: 0o755}); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, time.Minute, "the web server on the host", func() bool {
		return sh("ss -Hltn 'sport = :8080' | wc -l") != "0"
	})
	// open: whether this machine reaches the port (a refused or dropped
	// connection is closed; firewalld rejects, so it is quick).
	open := func(port string) bool {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(bh.IP, port), 5*time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	}
	check := func(sources string) int {
		res, err := h.Run(ctx, host.Cmd{Script: fw + " --check '8080/tcp 8443/tcp 8443/udp' '" + sources + "'"})
		var ee *host.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return res.Exit
	}
	if open("8080") {
		t.Fatal("the port is open before any rule: firewalld does not filter here, the test would show nothing")
	}
	me := bh.Gateway // this machine, as the host sees it
	for _, c := range []struct {
		sources string
		want    bool
	}{
		{me, true},
		{"203.0.113.9 2001:db8::/64", false}, // someone else: this machine's rule goes
		{"198.51.100.0/24 " + me, true},
		{"", false},
	} {
		if check(c.sources) == 0 && c.sources != "" {
			t.Errorf("--check %q before apply: nothing to do", c.sources)
		}
		sh(fw + " apply '8080/tcp 8443/tcp 8443/udp' '" + c.sources + "'")
		if check(c.sources) != 0 {
			t.Errorf("--check %q after apply: something to do", c.sources)
		}
		if got := open("8080"); got != c.want {
			t.Errorf("sources %q: port open from this machine %v, want %v", c.sources, got, c.want)
		}
		if !open("22") {
			t.Errorf("sources %q: SSH closed", c.sources)
		}
		n := strings.Count(sh("firewall-cmd --list-rich-rules"), "rule ")
		if pn := strings.Count(sh("firewall-cmd --permanent --list-rich-rules"), "rule "); n != pn || n != 3*len(strings.Fields(c.sources)) {
			t.Errorf("sources %q: %d rich rules now, %d permanent, want %d each", c.sources, n, pn, 3*len(strings.Fields(c.sources)))
		}
	}
	if got := sh("firewall-cmd --list-ports"); got != "" {
		t.Errorf("ports open to everyone: %q", got)
	}

	// down of a static run whose server stays: the profile's teardown
	// (from the host manifest) removes what wptest added.
	sh(fw + " apply '8080/tcp' '" + me + "'")
	if !open("8080") {
		t.Fatal("the port did not open for this machine")
	}
	// A bad source or port fails the apply before anything changes: the
	// rules and the state stay the last apply's (a bad source after a good
	// one once left the good one's rules as the whole set, exit 0).
	state := func() string {
		return sh("cat /var/lib/wptest/firewalld-rules; firewall-cmd --list-rich-rules; firewall-cmd --permanent --list-rich-rules")
	}
	before := state()
	for _, bad := range [][2]string{{"8080/tcp", "192.0.2.7 bad! " + me}, {"80x/tcp", me}, {"8080/sctp", me}, {"/tcp", me}} {
		_, err := h.Run(ctx, host.Cmd{Script: fw + " apply " + host.Quote(bad[0]) + " " + host.Quote(bad[1])})
		var ee *host.ExitError
		if !errors.As(err, &ee) {
			t.Errorf("apply %q %q: %v, want it to fail", bad[0], bad[1], err)
		}
		if after := state(); after != before {
			t.Errorf("apply %q %q changed the rules or the state:\n%s\nwas:\n%s", bad[0], bad[1], after, before)
		}
	}
	sh("mkdir -p /var/lib/wptest")
	man := &hostmanifest.Manifest{Schema: hostmanifest.Schema, Profile: "test", Teardown: []string{fw + " clear"}}
	if err := hostmanifest.Write(ctx, h, man); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	dir := filepath.Join(work, "runs", "t1fw")
	os.MkdirAll(dir, 0o700)
	kh, _ := os.ReadFile(bh.KnownHosts)
	id, _ := os.ReadFile(bh.Identity)
	os.WriteFile(filepath.Join(dir, cloud.KnownHostsFile), kh, 0o600)
	os.WriteFile(filepath.Join(dir, cloud.ClientKeyFile), id, 0o600)
	ms := fmt.Sprintf(`[{"name":"server","role":"server","driver":"static","address":%q,"port":22,"user":"root"}]`, bh.IP)
	os.WriteFile(filepath.Join(dir, cloud.MachinesFile), []byte(ms), 0o644)
	os.WriteFile(filepath.Join(dir, "run.json"), []byte(`{"driver":"static"}`), 0o644)
	var stdout, stderr bytes.Buffer
	code := Run(ctx, &App{Args: []string{"down", "--run", "t1fw"}, Stdout: &stdout, Stderr: &stderr, WorkDir: work})
	if code != 0 {
		t.Fatalf("down: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if open("8080") {
		t.Errorf("after down, the port is still open to this machine:\n%s", stderr.String())
	}
	if got := sh("firewall-cmd --list-rich-rules; firewall-cmd --permanent --list-rich-rules; ls /var/lib/wptest/firewalld-rules 2>&1 || true"); strings.Contains(got, "rule ") {
		t.Errorf("after down, rules left: %s", got)
	}
}
