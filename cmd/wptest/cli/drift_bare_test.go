package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/internal/testenv/baked"
	"github.com/wptest/wptest/results"
)

// TestBareHostDriftNamed: hand edits after `up` on a Debian host (from the
// shipped servers' image: nothing installed) — httpd.conf's
// MaxRequestWorkers, php-cgi's php.ini memory_limit, an OPcache ini added
// to cPanel's CGI ini directory, the site's database password changed in
// MariaDB — are each named by `status`; `run` refuses to measure the
// server (exit 4, naming them, nothing changed); `up` says what it reset
// and what it kept. Then PHP-FPM's pm.max_children under tuned-apache.
func TestBareHostDriftNamed(t *testing.T) {
	t.Parallel() // hosts from the servers' image: runs after the package's other tests, which run while it bakes
	testenv.NeedBinary(t, "go")
	hs := baked.Hosts(t, baked.Servers, "drift")
	ctx := context.Background()
	h, conn, sh := bareHost(t, hs[0])
	src, err := os.Open(testenv.Ruid2Source(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if err := h.Put(ctx, "/root/mod_ruid2.c", src, host.PutOptions{Mode: 0o644}); err != nil {
		t.Fatal(err)
	}
	agent := buildAgent(t)
	wptest := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := Run(ctx, &App{Args: append(args, conn...), Stdout: &stdout, Stderr: &stderr})
		return code, stdout.String(), stderr.String()
	}
	ruid2 := []string{"-var", "ruid2_source_url=file:///root/mod_ruid2.c"}
	up := func(profile string, extra ...string) string {
		t.Helper()
		args := append([]string{"up", "--profile", profile, "--agent", agent}, extra...)
		code, out, errOut := wptest(args...)
		if code != 0 {
			t.Fatalf("wptest %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
		}
		return out
	}
	status := func() string {
		t.Helper()
		code, out, errOut := wptest("status")
		if code != 0 {
			t.Fatalf("wptest status: exit %d\n%s\n%s", code, out, errOut)
		}
		return out
	}
	has := func(what, out string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s lacks %q:\n%s", what, w, out)
			}
		}
	}

	up("cpanel-apache", ruid2...)
	has("status right after up", status(), "drift:    none since up")
	php := sh(`php -r 'echo PHP_MAJOR_VERSION, ".", PHP_MINOR_VERSION;'`)
	ini := "/etc/php/" + php + "/cgi/php.ini"
	sh(`set -e
sed -i 's/^\(\s*MaxRequestWorkers\) 150$/\1 400/' /etc/apache2/apache2.conf
grep -q '^\s*MaxRequestWorkers 400$' /etc/apache2/apache2.conf
sed -i 's/^memory_limit = 128M$/memory_limit = 256M/' ` + ini + `
grep -q '^memory_limit = 256M$' ` + ini + `
printf 'zend_extension=opcache.so\nopcache.enable=1\n' >/usr/local/lib/wptest/php-cgi.d/10-opcache.ini
. /etc/wptest/site-db.env
mariadb -N -e "SELECT CONCAT('ALTER USER ', QUOTE(User), '@', QUOTE(Host), ' IDENTIFIED BY ''changed-by-hand'';') FROM mysql.user WHERE User='$DB_USER'" | mariadb`)
	edits := []string{
		"/etc/apache2/apache2.conf changed since up: MaxRequestWorkers 150 → 400",
		ini + " (php-cgi) changed since up: memory_limit = 128M → 256M",
		"a file was added to /usr/local/lib/wptest/php-cgi.d (php-cgi): 10-opcache.ini",
		"database login for the site fails",
	}
	has("status after the hand edits", status(), append([]string{"drift:    4 changes since up"}, edits...)...)

	// A run does not measure that server: it stops before its first
	// apply, naming each edit, and changes nothing.
	file, _ := filepath.Abs("../../../experiments/ab-1k.hcl")
	runs := t.TempDir()
	code, out, errOut := wptest(append([]string{"run", file, "--runs", runs, "--agent", agent}, ruid2...)...)
	if code != exitcode.Provision {
		t.Errorf("run on the edited server: exit %d, want %d\n%s\n%s", code, exitcode.Provision, out, errOut)
	}
	has("run's refusal", out+errOut, append([]string{"--accept-drift"}, edits...)...)
	if got := sh(`grep -c '^\s*MaxRequestWorkers 400$' /etc/apache2/apache2.conf`); got != "1" {
		t.Errorf("the refused run changed apache2.conf (MaxRequestWorkers 400 lines: %s)", got)
	}

	// up puts back what it writes and says so, one line each; php.ini it
	// only watches: kept, and from now on the record's.
	out = up("cpanel-apache", ruid2...)
	has("up over the edits", out,
		"reset: "+edits[0],
		"kept (the apply did not put it back; now in the drift record): "+edits[1],
		"reset: "+edits[2],
		"reset: "+edits[3])
	has("status after up", status(), "drift:    none since up")

	// PHP-FPM's pool under an FPM profile.
	up("tuned-apache")
	pool := "/etc/php/" + php + "/fpm/pool.d/wpsite.conf"
	sh(`sed -i 's/^pm.max_children = 8$/pm.max_children = 50/' ` + pool + ` && grep -q '^pm.max_children = 50$' ` + pool)
	poolEdit := pool + " changed since up: pm.max_children = 8 → 50"
	has("status after the pool edit", status(), "drift:    1 change since up", poolEdit)

	// --accept-drift measures it and says so: in the run's manifest (the
	// column measured first, whose apply found it), its report's setup.
	// And an edit made while the run measures (when it names its first
	// point, before measuring it) is caught after that point.
	runs = t.TempDir()
	var editErr error
	edited := false
	trigger := &onLine{match: "[1/4]", do: func() {
		edited = true
		_, editErr = h.Run(ctx, host.Cmd{Script: "printf '[mysqld]\\nmax_connections = 5\\n' >/etc/mysql/mariadb.conf.d/60-hand.cnf"})
	}}
	code = Run(ctx, &App{Args: append(append([]string{"run", file, "--runs", runs, "--agent", agent, "--accept-drift", "-var", "requests=20", "-var", "php_requests=20"}, ruid2...), conn...), Stdout: trigger, Stderr: trigger})
	out, errOut = trigger.String(), ""
	if !edited || editErr != nil {
		t.Fatalf("the edit during the run: made %v, %v\n%s", edited, editErr, out)
	}
	if code != 0 && code != exitcode.Load { // 6: a point that measured the bench, on a busy machine
		t.Fatalf("run --accept-drift: exit %d\n%s\n%s", code, out, errOut)
	}
	dirs, _ := filepath.Glob(filepath.Join(runs, "*", "manifest.json"))
	if len(dirs) != 1 {
		t.Fatalf("run directories with a manifest: %v", dirs)
	}
	man, err := results.ReadManifest(filepath.Dir(dirs[0]))
	if err != nil {
		t.Fatal(err)
	}
	first := man.Columns[0].ID
	during := "while the points ran: a file was added to /etc/mysql/mariadb.conf.d (MariaDB): 60-hand.cnf"
	if d := man.Drift[first]; len(d) != 2 || !strings.Contains(d[0], poolEdit) || d[1] != during {
		t.Errorf("manifest drift for %s: %q, want the pool edit, then %q", first, d, during)
	}
	// The next column's apply finds the MariaDB edit still there (it
	// watches that directory), and nothing else: no false drift.
	second := man.Columns[1].ID
	kept := "kept (the apply did not put it back; now in the drift record): a file was added to /etc/mysql/mariadb.conf.d (MariaDB): 60-hand.cnf"
	if d := man.Drift[second]; len(d) != 1 || d[0] != kept {
		t.Errorf("manifest drift for %s: %q, want %q", second, d, kept)
	}
	md, _ := os.ReadFile(filepath.Join(filepath.Dir(dirs[0]), "report.md"))
	has("report.md", string(md), "was measured on a server changed by hand since its apply (run --accept-drift): ", poolEdit)
}

// onLine is a writer that runs do, once, when a line it is given holds
// match (written from the command's own goroutine: do runs before the
// command goes on), and keeps everything.
type onLine struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	match string
	do    func()
	done  bool
}

func (w *onLine) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.done && strings.Contains(w.buf.String(), w.match) {
		w.done = true
		w.do()
	}
	return len(p), nil
}

func (w *onLine) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
