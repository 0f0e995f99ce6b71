package cli

import (
	"bytes"
	"context"
	"database/sql"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/testenv"
)

func runFixtureCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), &App{Args: args, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, WorkDir: t.TempDir()})
	return code, out.String(), errb.String()
}

func TestFixtureBuildHash(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, out, errs := runFixtureCLI(t, "", "fixture", "build", "--fixture", "minimal", "--seed", "1", "--out", dir)
	if code != 0 || !strings.HasPrefix(out, "root ") {
		t.Fatalf("build: code %d\n%s%s", code, out, errs)
	}
	root := strings.Fields(out)[1]
	code, out, errs = runFixtureCLI(t, "", "fixture", "hash", dir)
	if code != 0 || !strings.Contains(out, "root "+root) {
		t.Fatalf("hash: code %d\n%s%s", code, out, errs)
	}
	// A built directory is refused as an output (no overwrite of a done build).
	if code, _, errs := runFixtureCLI(t, "", "fixture", "build", "--fixture", "minimal", "--out", dir); code == 0 || !strings.Contains(errs, "not empty") {
		t.Errorf("build over a full dir: code %d %s", code, errs)
	}
	// One byte of one file changed: hash exits 5 and says files.
	p := filepath.Join(dir, "files", "wp-config.php")
	b, _ := os.ReadFile(p)
	b[20] ^= 1
	os.WriteFile(p, b, 0o644)
	code, _, errs = runFixtureCLI(t, "", "fixture", "hash", dir)
	if code != 5 || !strings.Contains(errs, "files") {
		t.Fatalf("hash after tamper: code %d, want 5: %s", code, errs)
	}
}

func TestFixtureBadInput(t *testing.T) {
	code, _, errs := runFixtureCLI(t, "", "fixture", "build", "--fixture", "nosuch", "--out", t.TempDir()+"/x")
	if code != 2 || !strings.Contains(errs, `unknown fixture "nosuch" (known: agency, blog, minimal)`) {
		t.Errorf("unknown fixture: code %d %s", code, errs)
	}
	notOurs := filepath.Join(t.TempDir(), "m.json")
	os.WriteFile(notOurs, []byte(`{"format":"something-else/1","tables":[]}`), 0o644)
	code, _, errs = runFixtureCLI(t, "", "verify", "--manifest", notOurs, "--target", "local", "--db-password-stdin")
	if code != 2 || !strings.Contains(errs, "not a wptest fixture manifest") {
		t.Errorf("foreign manifest: code %d %s", code, errs)
	}
	// Our manifest with one edited count: the root no longer matches its fields.
	code, out, _ := runFixtureCLI(t, "", "fixture", "manifest", "--fixture", "minimal")
	if code != 0 {
		t.Fatal("manifest failed")
	}
	edited := strings.Replace(out, `"rows": 2,`, `"rows": 3,`, 1)
	os.WriteFile(notOurs, []byte(edited), 0o644)
	code, _, errs = runFixtureCLI(t, "", "verify", "--manifest", notOurs, "--target", "local", "--db-password-stdin")
	if code != 2 || !strings.Contains(errs, "manifest is corrupt") {
		t.Errorf("edited manifest: code %d %s", code, errs)
	}
	// Seeding takes the password from a file or stdin, never a flag, and a
	// bad password source fails before anything connects. (Seed with no
	// source on a host without a profile: TestBareHostUpSeedSwap, since
	// this machine may carry a profile another test put on it.)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--db-password", "x"}, "unknown flag --db-password; see 'wptest seed --help'"},
		{[]string{"--db-password-file", filepath.Join(t.TempDir(), "nosuch")}, "--db-password-file: open "},
		{[]string{"--db-password-file", notOurs, "--db-password-stdin"}, "not both"},
	} {
		args := append([]string{"seed", "--fixture", "minimal", "--target", "ssh://nobody@192.0.2.1:1"}, c.args...)
		code, _, errs = runFixtureCLI(t, "", args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("seed %v: code %d, want 2 with %q: %s", c.args, code, c.want, errs)
		}
	}
}

// TestSeedVerifyOverSSH seeds through a real sshd: rows through the SSH
// connection's DialContext into MariaDB, files over SFTP, the installer by
// php-cli on the "remote" host; then verify passes, and a changed row fails
// with exit 5 naming that row.
func TestSeedVerifyOverSSH(t *testing.T) {
	testenv.NeedBinary(t, "php")
	_, err := os.Stat("/usr/share/wordpress/wp-includes/version.php")
	testenv.Need(t, err == nil, "Debian's wordpress package")
	db := testenv.MariaDB(t)
	sshd := testenv.SSHD(t)
	docroot := filepath.Join(t.TempDir(), "site")
	t.Cleanup(func() { os.Remove(fixture.RecordPath("", docroot)) })
	manifest := filepath.Join(t.TempDir(), "manifest.json")
	common := []string{"--target", sshd.Target, "--known-hosts", sshd.KnownHostsFile, "--identity", sshd.IdentityFile,
		"--docroot", docroot, "--db-addr", db.Addr, "--db-name", db.Name, "--db-user", db.User, "--db-password-stdin"}
	code, out, errs := runFixtureCLI(t, db.Password+"\n", append([]string{"seed", "--fixture", "minimal", "--seed", "3", "--manifest-out", manifest}, common...)...)
	if code != 0 {
		t.Fatalf("seed over ssh: code %d\n%s%s", code, out, errs)
	}
	if strings.Contains(out+errs, db.Password) {
		t.Fatal("the database password appeared in the output")
	}
	code, out, errs = runFixtureCLI(t, db.Password+"\n", append([]string{"verify"}, common...)...) // the site's own marker
	if code != 0 || !strings.HasPrefix(out, "OK minimal seed 3") {
		t.Fatalf("verify over ssh: code %d\n%s%s", code, out, errs)
	}
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = db.User, db.Password, "tcp", db.Addr, db.Name
	conn, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Exec("UPDATE wp_comments SET comment_content = 'spam' WHERE comment_ID = 2"); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runFixtureCLI(t, db.Password+"\n", append([]string{"verify", "--manifest", manifest}, common...)...)
	if code != 5 || !strings.Contains(out, "MISMATCH row wp_comments comment_ID=2 .comment_content") || strings.Count(out, "MISMATCH") != 1 {
		t.Fatalf("verify after tamper: code %d, want 5 naming the comment\n%s%s", code, out, errs)
	}
}

// TestVerifyExitsOnWhatVisitorsGet: after `seed --owner`, verify passes and
// lists the profile's own top-level file apart; then a mode change (a 0600
// image answers 403), an added plugin file and an edited core file, each
// alone, make verify exit 5 with one MISMATCH line naming the file.
func TestVerifyExitsOnWhatVisitorsGet(t *testing.T) {
	testenv.NeedRoot(t)
	testenv.NeedBinary(t, "php")
	_, err := os.Stat("/usr/share/wordpress/wp-includes/version.php")
	testenv.Need(t, err == nil, "Debian's wordpress package")
	db := testenv.MariaDB(t)
	// The site user's docroot, as a profile makes it (seeding writes as them).
	docroot := filepath.Join(testenv.PassableTempDir(t), "public_html")
	t.Cleanup(func() { os.Remove(fixture.RecordPath("", docroot)) })
	os.MkdirAll(docroot, 0o755)
	uid, gid := testenv.UserIDs(t, "www-data")
	os.Chown(docroot, uid, gid)
	probe := filepath.Join(docroot, "wptest-info.php")
	os.WriteFile(probe, []byte("<?php echo PHP_SAPI;"), 0o644)
	common := []string{"--target", "local", "--docroot", docroot, "--owner", "www-data:www-data",
		"--db-addr", db.Addr, "--db-name", db.Name, "--db-user", db.User, "--db-password-stdin"}
	code, out, errs := runFixtureCLI(t, db.Password+"\n", append([]string{"seed", "--fixture", "minimal"}, common...)...)
	if code != 0 {
		t.Fatalf("seed: code %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(probe); err != nil {
		t.Fatalf("seed removed the profile's %s: %v", probe, err)
	}
	verify := func() (int, string, string) {
		return runFixtureCLI(t, db.Password+"\n", append([]string{"verify"}, common...)...)
	}
	code, out, errs = verify()
	if code != 0 || !strings.HasPrefix(out, "OK minimal seed 1") || !strings.Contains(errs, "info (not failed): foreign wptest-info.php") {
		t.Fatalf("verify after seed: code %d\n%s%s", code, out, errs)
	}
	img := filepath.Join(docroot, "wp-content/uploads/2025/01/fx-img-001.png")
	plugin := filepath.Join(docroot, "wp-content/plugins/hello-extra.php")
	core := filepath.Join(docroot, "wp-includes/version.php")
	coreBytes, _ := os.ReadFile(core)
	for _, c := range []struct {
		name         string
		change, undo func()
		want         string
	}{
		{"chmod 0600", func() { os.Chmod(img, 0o600) }, func() { os.Chmod(img, 0o644) },
			"MISMATCH mode wp-content/uploads/2025/01/fx-img-001.png: 0600, want 0644"},
		{"added plugin file", func() { os.WriteFile(plugin, []byte("<?php"), 0o644) }, func() { os.Remove(plugin) },
			"MISMATCH extra-file wp-content/plugins/hello-extra.php: not written by the seeder"},
		{"edited core file", func() { os.WriteFile(core, append(append([]byte{}, coreBytes...), []byte("// edited\n")...), 0o644) },
			func() { os.WriteFile(core, coreBytes, 0o644) }, "MISMATCH core-file wp-includes/version.php: sha256 "},
	} {
		c.change()
		code, out, errs = verify()
		if code != int(exitcode.Mismatch) || strings.Count(out, "MISMATCH") != 1 || !strings.Contains(out, c.want) {
			t.Errorf("%s: code %d (want %d), want one line %q:\n%s%s", c.name, code, exitcode.Mismatch, c.want, out, errs)
		}
		c.undo()
		if code, out, errs = verify(); code != 0 {
			t.Fatalf("%s undone: code %d\n%s%s", c.name, code, out, errs)
		}
	}
}

func TestSeedRefusedDBExitCode(t *testing.T) {
	testenv.NeedRoot(t) // seeds this host, whose site credentials (/etc/wptest) are root's
	docroot := filepath.Join(t.TempDir(), "site")
	code, _, errs := runFixtureCLI(t, "hunter2-secret\n", "seed", "--fixture", "minimal", "--target", "local",
		"--docroot", docroot, "--db-addr", "127.0.0.1:1", "--db-password-stdin")
	if code != 4 || !strings.Contains(errs, "127.0.0.1:1") || strings.Contains(errs, "hunter2-secret") {
		t.Fatalf("refused db: code %d (want 4) %s", code, errs)
	}
	if _, err := os.Stat(docroot); !os.IsNotExist(err) {
		t.Errorf("refused db left %s behind", docroot)
	}
}

// TestSeedCreateDB: --create-db makes the database and user on the host
// (mariadb as root, SQL on stdin), then seeds; the password never shows.
func TestSeedCreateDB(t *testing.T) {
	testenv.NeedBinary(t, "php")
	_, err := os.Stat("/usr/share/wordpress/wp-includes/version.php")
	testenv.Need(t, err == nil, "Debian's wordpress package")
	probe := testenv.MariaDB(t) // starts the server; its port is ours too
	name := probe.Name + "_c"
	t.Cleanup(func() {
		testenv.RootSQL("DROP DATABASE IF EXISTS `" + name + "`; DROP USER IF EXISTS '" + name + "'@'localhost'; DROP USER IF EXISTS '" + name + "'@'127.0.0.1';")
	})
	pw := "pw'with\\quote-" + probe.Password[:8]
	docroot := filepath.Join(t.TempDir(), "site")
	t.Cleanup(func() { os.Remove(fixture.RecordPath("", docroot)) })
	code, out, errs := runFixtureCLI(t, pw+"\n", "seed", "--fixture", "minimal", "--target", "local", "--create-db",
		"--docroot", docroot, "--db-addr", probe.Addr, "--db-name", name, "--db-user", name, "--db-password-stdin")
	if code != 0 {
		t.Fatalf("seed --create-db: code %d\n%s%s", code, out, errs)
	}
	if strings.Contains(out+errs, pw) {
		t.Fatal("password in output")
	}
	base := phpServe(t, docroot)
	code, out, errs = runFixtureCLI(t, pw+"\n", "verify", "--target", "local", "--docroot", docroot, "--db-addr", probe.Addr, "--db-name", name, "--db-user", name, "--db-password-stdin", "--http", base, "-o", "json")
	if code != 0 || !strings.Contains(out, `"http_pages": 7`) {
		t.Fatalf("verify --http: code %d\n%s%s", code, out, errs)
	}
}

// phpServe serves docroot with php -S on a free loopback port (pretty
// permalinks routed to index.php) until the test ends.
func phpServe(t *testing.T, docroot string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	router := filepath.Join(t.TempDir(), "router.php")
	os.WriteFile(router, []byte(`<?php
$root = '`+docroot+`';
$p = parse_url( $_SERVER['REQUEST_URI'], PHP_URL_PATH );
if ( '/' !== $p && is_file( $root . $p ) && '.php' !== substr( $p, -4 ) ) { return false; }
$_SERVER['SCRIPT_NAME'] = '/index.php';
$_SERVER['SCRIPT_FILENAME'] = $root . '/index.php';
chdir( $root );
require $root . '/index.php';
`), 0o644)
	cmd := exec.Command("php", "-d", "opcache.enable_cli=1", "-S", addr, "-t", docroot, router)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("php -S did not listen on %s", addr)
	return ""
}
