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
