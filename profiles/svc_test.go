package profiles_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/testenv"
)

// TestSvcStalePidfile runs the profiles' service script (wptest-svc, as
// hosts without systemd use it) in a mount namespace of its own with an
// empty /run. A pidfile whose PID now belongs to another program (PIDs
// wrap within minutes on a host forking a CGI per request: php-fpm's stale
// pidfile once named the Apache a run had just started, and stopping
// php-fpm stopped Apache) is neither running nor killed; a pidfile naming
// the service's own binary is running, and stop ends it.
func TestSvcStalePidfile(t *testing.T) {
	testenv.NeedRoot(t)
	testenv.NeedBinary(t, "unshare")
	svc, err := filepath.Abs("_parts/site/templates/shared/wptest-svc")
	if err != nil {
		t.Fatal(err)
	}
	// The service's own binary: sleep under the name of Debian's php-fpm
	// of a PHP version (any: wptest-svc derives it from the service's).
	own := filepath.Join(t.TempDir(), "php-fpm7.9")
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(own, b, 0o755); err != nil {
		t.Fatal(err)
	}
	script := `set -u
mount -t tmpfs tmpfs /run && mkdir -p /run/php
svc() { sh "$SVC" php7.9-fpm "$1"; echo "$1=$?"; }
sleep 600 & other=$!
echo $other > /run/php/php7.9-fpm.pid
svc status
svc stop
kill -0 $other && echo other=alive
[ -e /run/php/php7.9-fpm.pid ] || echo stale=removed
"$OWN" 600 & mine=$!
echo $mine > /run/php/php7.9-fpm.pid
svc status
svc stop
wait $mine; echo mine=$?
kill $other
`
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", script)
	cmd.Env = append(os.Environ(), "SVC="+svc, "OWN="+own)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// status 1 and stop 0 for the stale pidfile, which stop removes
	// without touching the other program; status 0 for the service's own
	// process, which stop ends with TERM (143).
	want := "status=1 stop=0 other=alive stale=removed status=0 stop=0 mine=143"
	if got := strings.Join(strings.Fields(string(out)), " "); got != want {
		t.Errorf("wptest-svc with a pidfile naming another program, then its own:\n got %s\nwant %s", got, want)
	}
}

// TestSvcCaddyLogOpenedAsCaddy starts the real caddy through wptest-svc,
// both ways it can (start-stop-daemon on Debian; setpriv where there is
// none, as on AlmaLinux), in mount and network namespaces of their own
// with an empty /run, /var/log and /var/lib. /var/log/caddy is caddy's: a
// log that caddy replaced with a link to a root-only file must not get
// caddy's output (root opening the log would follow the link and
// append to any file); without the link, caddy writes its own log (beside
// the root-owned caddy.log an earlier wptest-svc left), and a
// caddy that cannot start says why from it. Caddy holds nothing of its
// caller's environment.
func TestSvcCaddyLogOpenedAsCaddy(t *testing.T) {
	testenv.NeedRoot(t)
	testenv.NeedBinary(t, "unshare")
	testenv.NeedBinary(t, "caddy")
	_, err := exec.Command("id", "caddy").Output()
	testenv.Need(t, err == nil, "no caddy user (Debian's caddy package makes it)")
	svc, err := filepath.Abs("_parts/site/templates/shared/wptest-svc")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "etc-caddy")
	if err := os.Mkdir(conf, 0o755); err != nil {
		t.Fatal(err)
	}
	caddyfile := "{\n\tadmin off\n\tauto_https off\n}\nhttp://127.0.0.1:18080 {\n\trespond \"caddy-ok\"\n}\n"
	if err := os.WriteFile(filepath.Join(conf, "Caddyfile"), []byte(caddyfile), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "root-only")
	const rootOnly = "root's file\n"
	if err := os.WriteFile(target, []byte(rootOnly), 0o600); err != nil {
		t.Fatal(err)
	}
	const canary = "hcloud-canary-in-the-callers-env"
	// $1 is "" or "nossd" (a PATH without start-stop-daemon's /usr/sbin).
	script := `set -u
mount -t tmpfs tmpfs /run && mount -t tmpfs tmpfs /var/log && mount -t tmpfs tmpfs /var/lib &&
mount --bind "$CONF" /etc/caddy && ip link set lo up || exit 1
[ "$1" = nossd ] && PATH=/usr/local/bin:/usr/bin:/bin
command -v start-stop-daemon >/dev/null && echo via=ssd || echo via=setpriv
trap 'sh "$SVC" caddy stop' EXIT
install -d -o caddy -g caddy /var/log/caddy
echo old >/var/log/caddy/caddy.log # root's, as an earlier wptest-svc left it
ln -s "$TARGET" /var/log/caddy/caddy-run.log
sh "$SVC" caddy start 2>/run/why; echo planted-start=$?
grep -q 'did not start' /run/why && echo said=did-not-start
rm /var/log/caddy/caddy-run.log
sh "$SVC" caddy start 2>/run/why; echo start=$?
curl -fsS http://127.0.0.1:18080/; echo
if tr '\0' '\n' </proc/"$(cat /run/caddy-wptest.pid)"/environ | grep -q "$CANARY"; then echo env=inherited; else echo env=clean; fi
echo log-owner=$(stat -c %U /var/log/caddy/caddy-run.log)
grep -q 'serving initial configuration' /var/log/caddy/caddy-run.log && echo log=caddy
sh "$SVC" caddy stop; echo stop=$?
# A Caddyfile caddy validates but cannot serve: the port is taken.
python3 -c 'import socket,time; s=socket.socket(); s.bind(("127.0.0.1",18080)); s.listen(); time.sleep(60)' & busy=$!
until python3 -c 'import socket; socket.create_connection(("127.0.0.1",18080))' 2>/dev/null; do sleep 0.05; done
sh "$SVC" caddy start 2>/run/why; echo busy-start=$?
grep -q 'address already in use' /run/why && echo said=address-in-use
kill $busy
`
	for _, variant := range []string{"", "nossd"} {
		cmd := exec.Command("unshare", "--mount", "--net", "--propagation", "private", "sh", "-c", script, "sh", variant)
		// The caller's environment (an operator's token, with --target
		// local) does not reach the daemon.
		cmd.Env = append(os.Environ(), "SVC="+svc, "CONF="+conf, "TARGET="+target, "HCLOUD_TOKEN="+canary, "CANARY="+canary)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", variant, err, out)
		}
		via := "via=ssd"
		if variant == "nossd" {
			via = "via=setpriv"
		}
		want := via + " planted-start=1 said=did-not-start start=0 caddy-ok env=clean log-owner=caddy log=caddy stop=0 busy-start=1 said=address-in-use"
		if got := strings.Join(strings.Fields(string(out)), " "); !strings.Contains(got, want) {
			t.Errorf("%s: wptest-svc caddy with a planted log link, then without, then on a taken port:\n got %s\nwant %s", variant, got, want)
		}
		if b, err := os.ReadFile(target); err != nil || string(b) != rootOnly {
			t.Errorf("%s: the root-only file a planted log named now reads %q (%v), want %q", variant, b, err, rootOnly)
		}
	}
}
