package profiles_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/profiles"
	"github.com/wptest/wptest/provision"
)

// TestSiteDatabaseCheckPasswordInNoArgvOrEnviron runs the site part's
// check of the site database's credentials (command.site_database's
// unless, as rendered) against a real MariaDB, with the mariadb it starts
// logging its argv and its environment: with the credentials file's
// password it logs in (the check holds), with another it does not (the
// check fails), and the password is in neither log. The environment is
// what the client's children and anyone who may read /proc/PID/environ
// see (MYSQL_PWD); the argv is what ps shows every user.
func TestSiteDatabaseCheckPasswordInNoArgvOrEnviron(t *testing.T) {
	db := testenv.MariaDB(t)
	unless := siteDatabaseUnless(t, db.Name)
	// The check connects to 127.0.0.1's default port, as on a server; the
	// test's MariaDB may listen on another.
	_, port, _ := strings.Cut(db.Addr, ":")
	if !strings.Contains(unless, " -h 127.0.0.1 ") || port == "" {
		t.Fatalf("the check does not connect to 127.0.0.1 (MariaDB at %s):\n%s", db.Addr, unless)
	}
	unless = strings.Replace(unless, " -h 127.0.0.1 ", " -h 127.0.0.1 -P "+port+" ", 1)
	dir := t.TempDir()
	// The credentials file the check reads (root's /etc/wptest/site-db.env
	// on a server) is this test's.
	const envPath = "/etc/wptest/site-db.env"
	if !strings.Contains(unless, envPath) {
		t.Fatalf("the check does not read %s:\n%s", envPath, unless)
	}
	env := filepath.Join(dir, "site-db.env")
	unless = strings.ReplaceAll(unless, envPath, env)
	log := filepath.Join(dir, "mariadb.log")
	real, err := exec.LookPath("mariadb")
	if err != nil {
		t.Fatal(err)
	}
	shims := filepath.Join(dir, "shims")
	os.Mkdir(shims, 0o755)
	shim := "#!/bin/sh\n{ printf 'argv: %s\\n' \"$0 $*\"; env | sed 's/^/env: /'; } >>" + log + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(shims, "mariadb"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	check := func(pw string) error {
		t.Helper()
		creds := "DB_NAME=" + db.Name + "\nDB_USER=" + db.User + "\nDB_PASSWORD=" + pw + "\nDB_HOST=127.0.0.1:" + port + "\n"
		if err := os.WriteFile(env, []byte(creds), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("/bin/sh", "-c", unless)
		cmd.Env = []string{"PATH=" + shims + ":/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"}
		return cmd.Run()
	}
	if err := check(db.Password); err != nil {
		t.Errorf("the check with the site user's password: %v, want it to hold", err)
	}
	const wrong = "S3cretPW-not-the-site-s-0f9e"
	if err := check(wrong); err == nil {
		t.Errorf("the check with a wrong password holds: it cannot fail")
	}
	b, _ := os.ReadFile(log)
	if strings.Count(string(b), "argv: ") != 2 {
		t.Fatalf("the shim saw %d mariadb run(s), want 2:\n%s", strings.Count(string(b), "argv: "), b)
	}
	if strings.Contains(string(b), db.Password) || strings.Contains(string(b), wrong) {
		t.Errorf("a password was in mariadb's argv or environment:\n%s", b)
	}
}

// siteDatabaseUnless is command.site_database's unless in nginx's profile
// (the site part) on debian-13, for database name.
func siteDatabaseUnless(t *testing.T, name string) string {
	t.Helper()
	p, diags := provision.Load(profiles.FS, "nginx", provision.Vars{Args: []string{"db_name=" + name}})
	if diags.HasErrors() {
		t.Fatalf("load nginx: %v", diags)
	}
	r, diags := p.Render("debian-13")
	if diags.HasErrors() {
		t.Fatalf("render nginx: %v", diags)
	}
	for _, op := range r.Ops {
		if o, ok := op.(*provision.CommandOp); ok && o.ID() == "command.site_database" {
			return o.Unless
		}
	}
	t.Fatal("nginx: no command.site_database")
	return ""
}
