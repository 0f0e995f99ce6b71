package testenv_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
)

// openBare connects to a bare host as wptest does: its pinned host key and
// the set's identity.
func openBare(t *testing.T, b *testenv.BareHost) host.Host {
	t.Helper()
	tg, err := host.ParseTarget(b.Target)
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Open(context.Background(), tg, host.Options{
		Name: b.Name, KnownHostsFile: b.KnownHosts, IdentityFile: b.Identity, ConnectTimeout: 30 * time.Second,
	})
	if err != nil {
		t.Fatalf("open %s: %v\n%s", b.Target, err, b.Log())
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func run(t *testing.T, h host.Host, script string) string {
	t.Helper()
	res, err := h.Run(context.Background(), host.Cmd{Script: script, Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return strings.TrimSpace(string(res.Stdout))
}

// TestBareHosts makes two bare hosts and shows they behave like two fresh
// VMs on one network, then that nothing of them is left after the test.
func TestBareHosts(t *testing.T) {
	var hosts []*testenv.BareHost
	var live [][]string
	t.Run("two hosts", func(t *testing.T) {
		hosts = testenv.BareHosts(t, "server", "loadgen")
		for _, b := range hosts {
			live = append(live, testenv.BareHostLeftovers(b))
		}
		a, b := hosts[0], hosts[1]
		ha, hb := openBare(t, a), openBare(t, b)
		ctx := context.Background()

		t.Run("a fresh Debian without systemd", func(t *testing.T) {
			for _, x := range []struct {
				bh *testenv.BareHost
				h  host.Host
			}{{a, ha}, {b, hb}} {
				f, err := x.h.Facts(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if f.Platform != x.bh.Platform || f.Platform != testenv.BarePlatform(testenv.BareSuite(t)) || f.Init != "none" || f.PackageManager != "apt" {
					t.Errorf("%s: facts %+v, want %s (%s=%q), init none, apt", x.bh.Name, f, x.bh.Platform, testenv.BareSuiteEnv, os.Getenv(testenv.BareSuiteEnv))
				}
				if got := run(t, x.h, "hostname; test -e /run/systemd/system && echo systemd || echo no-systemd"); got != x.bh.Name+"\nno-systemd" {
					t.Errorf("%s: hostname and systemd: %q", x.bh.Name, got)
				}
				// Uploads (wptest's own binary, the agent) go over SFTP.
				if err := x.h.Put(ctx, "/root/put-test", strings.NewReader(x.bh.Name), host.PutOptions{Mode: 0o640}); err != nil {
					t.Fatalf("%s: put: %v", x.bh.Name, err)
				}
				if got := run(t, x.h, "stat -c %a /root/put-test; cat /root/put-test"); got != "640\n"+x.bh.Name {
					t.Errorf("%s: uploaded file reads %q", x.bh.Name, got)
				}
				// Nothing `make deps` put on this machine is there.
				if got := run(t, x.h, "for c in php mariadb apache2 caddy wp; do command -v $c; done; true"); got != "" {
					t.Errorf("%s: not bare, has %q", x.bh.Name, got)
				}
			}
		})

		t.Run("ps sees only the host's own processes", func(t *testing.T) {
			marker := "wptest-marker-" + strconv.Itoa(os.Getpid())
			run(t, hb, "nohup sh -c 'sleep 600; : "+marker+"' >/dev/null 2>&1 &")
			ps := run(t, ha, "ps -e -o pid=,comm=,args=")
			// sshd-session: OpenSSH 10 (Debian 13) runs each session apart.
			allowed := map[string]bool{"sshd": true, "sshd-session": true, "sftp-server": true, "sh": true, "bash": true, "timeout": true, "ps": true}
			for _, l := range strings.Split(ps, "\n") {
				f := strings.Fields(l)
				if len(f) < 2 {
					t.Fatalf("ps line %q", l)
				}
				if f[0] == "1" && f[1] != "sshd" {
					t.Errorf("PID 1 on %s is %q, want sshd", a.Name, f[1])
				}
				if !allowed[f[1]] || strings.Contains(l, marker) {
					t.Errorf("%s sees a process that is not its own: %q\n%s", a.Name, l, ps)
				}
			}
			if got := run(t, hb, "ps -e -o args= | grep -c '[w]ptest-marker-'"); got != "1" {
				t.Errorf("%s does not see its own process (count %q)", b.Name, got)
			}
			run(t, hb, "pkill -f '[w]ptest-marker-'")
		})

		t.Run("the hosts reach each other over their own link", func(t *testing.T) {
			for _, x := range []struct {
				from  host.Host
				to    *testenv.BareHost
				other *testenv.BareHost
			}{{ha, b, a}, {hb, a, b}} {
				if got := run(t, x.from, "getent hosts "+x.to.Name); strings.Fields(got)[0] != x.to.IP {
					t.Errorf("%s resolves %s to %q, want %s", x.other.Name, x.to.Name, got, x.to.IP)
				}
				if got := run(t, x.from, "ip route get "+x.to.IP); !strings.Contains(got, "dev eth1") || strings.Contains(got, " via ") {
					t.Errorf("%s routes to %s as %q, want directly over eth1", x.other.Name, x.to.Name, got)
				}
				banner := run(t, x.from, "timeout 20 bash -c 'exec 3<>/dev/tcp/"+x.to.Name+"/22; head -c 4 <&3'")
				if banner != "SSH-" {
					t.Errorf("%s -> %s:22 said %q, want the SSH banner", x.other.Name, x.to.Name, banner)
				}
				// No default route: no way out but the apt proxy.
				if got := run(t, x.from, "ip route show default"); got != "" {
					t.Errorf("%s has a default route %q", x.other.Name, got)
				}
			}
		})

		t.Run("apt installs through the machine's apt-cacher-ng", func(t *testing.T) {
			start := time.Now()
			run(t, hb, "apt-get -q update >/dev/null")
			updated := time.Now()
			out := run(t, hb, "DEBIAN_FRONTEND=noninteractive apt-get -q install -y hello >/dev/null && hello")
			t.Logf("on a bare host through the proxy: apt-get update %s, apt-get install hello %s",
				updated.Sub(start).Round(10*time.Millisecond), time.Since(updated).Round(10*time.Millisecond))
			if out != "Hello, world!" {
				t.Fatalf("hello printed %q", out)
			}
			// Nothing open to strangers: it listens at its one private address.
			testenv.CheckAptCacherPrivate(t, b.Gateway, func(script string) string { return run(t, hb, script) })
			testenv.CheckAptProxyMirrorOnly(t, b.Suite, func(script string) string { return run(t, hb, script) })
			log, err := os.ReadFile(testenv.AptCacherLog())
			if err != nil {
				t.Fatal(err)
			}
			// Lines are time|I or O|bytes|client|path: hello went out to this host.
			if !strings.Contains(string(log), "|O|") || !strings.Contains(string(log), "|"+b.IP+"|debrep/pool/main/h/hello/hello_") {
				t.Errorf("%s does not show hello sent to %s: it did not come through the proxy", testenv.AptCacherLog(), b.IP)
			}
		})

		t.Run("CPUUsage counts all the host's processes and nothing else", func(t *testing.T) {
			a0, err := a.CPUUsage()
			if err != nil {
				t.Fatal(err)
			}
			b0, err := b.CPUUsage()
			if err != nil {
				t.Fatal(err)
			}
			// A busy loop in the shell itself, which then prints its own
			// user and system ticks; by the time Run returns it has exited.
			out := run(t, ha, `i=0; while [ $i -lt 2000000 ]; do i=$((i+1)); done; cut -d' ' -f14,15 /proc/$$/stat; getconf CLK_TCK`)
			a1, err := a.CPUUsage()
			if err != nil {
				t.Fatal(err)
			}
			b1, err := b.CPUUsage()
			if err != nil {
				t.Fatal(err)
			}
			f := strings.Fields(out)
			if len(f) != 3 {
				t.Fatalf("burner printed %q", out)
			}
			var n [3]int64
			for i := range f {
				if n[i], err = strconv.ParseInt(f[i], 10, 64); err != nil || n[i] < 0 {
					t.Fatalf("burner printed %q", out)
				}
			}
			ticks, hz := n[0]+n[1], n[2]
			burnt := time.Duration(ticks) * time.Second / time.Duration(hz)
			if ticks == 0 {
				t.Fatalf("the burner used no CPU tick: %q", out)
			}
			grew, other := a1-a0, b1-b0
			t.Logf("burner %d ticks = %s; %s's CPU grew %s (the SSH session's own %s); idle %s's %s",
				ticks, burnt, a.Name, grew, grew-burnt, b.Name, other)
			// Its own ticks are its runtime rounded down: the cgroup holds at
			// least that, exited as the burner is.
			if grew < burnt {
				t.Errorf("%s's CPU grew %s, less than the %s its exited burner used", a.Name, grew, burnt)
			}
			// The other host idled meanwhile: none of the burner is its.
			if other >= burnt {
				t.Errorf("idle %s's CPU grew %s while %s burnt %s", b.Name, other, a.Name, burnt)
			}
		})
	})

	for i, b := range hosts {
		if len(live[i]) < 6 { // process, namespace, link, mount, cgroup, directory
			t.Errorf("%s while it ran: %v; the leftover check misses something", b.Name, live[i])
		}
		if left := testenv.BareHostLeftovers(b); len(left) > 0 {
			t.Errorf("%s after its test: left %v", b.Name, left)
		}
	}
}
