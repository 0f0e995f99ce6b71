package profiles_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/testenv"
)

// TestWPSiteScriptPasswordInNoArgv runs the site part's wptest-wp-site
// (the docroot's first core and credentials file) with every program it
// starts logging its argv: the database password reaches the credentials
// file and is compared with it, yet is in no argv (ps shows argv to every
// user, the site user whose PHP runs on the host too). A link the site user
// planted at the credentials file (to /dev/zero: a read through it never
// ends) reads as "not current" and is replaced, never followed.
func TestWPSiteScriptPasswordInNoArgv(t *testing.T) {
	testenv.NeedRoot(t)
	uid, gid := testenv.UserIDs(t, "www-data")
	script, err := filepath.Abs("_parts/site/templates/shared/wptest-wp-site")
	if err != nil {
		t.Fatal(err)
	}
	dir := testenv.PassableTempDir(t)
	core := filepath.Join(dir, "core")
	docroot := filepath.Join(dir, "public_html")
	for _, d := range []string{core + "/wp-includes", core + "/wp-content", docroot} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(core+"/wp-includes/version.php", []byte("<?php $wp_version = '6.8';\n"), 0o644)
	os.WriteFile(core+"/wp-load.php", []byte("<?php\n"), 0o644)
	if err := os.Chown(docroot, uid, gid); err != nil {
		t.Fatal(err)
	}
	env := filepath.Join(dir, "site-db.env")
	// shims: each program the script may start logs its argv, then runs.
	shims := filepath.Join(dir, "shims")
	os.Mkdir(shims, 0o755)
	argv := filepath.Join(dir, "argv.log")
	os.WriteFile(argv, nil, 0o666) // the site user's programs log too
	for _, p := range []string{"setpriv", "grep", "dd", "head", "cat", "sh", "tar", "mktemp", "chmod", "mv", "rm", "id", "dirname", "basename", "test", "env", "printf", "echo"} {
		real, err := exec.LookPath(p)
		if err != nil {
			continue
		}
		shim := "#!/bin/sh\nprintf '%s\\n' \"$0 $*\" >>" + argv + "\nexec " + real + " \"$@\"\n"
		os.WriteFile(filepath.Join(shims, p), []byte(shim), 0o755)
	}
	run := func(pw string, args ...string) (int, string) {
		t.Helper()
		os.WriteFile(env, []byte("DB_NAME=wptest_site\nDB_USER=wptest_site\nDB_PASSWORD="+pw+"\nDB_HOST=127.0.0.1:3306\n"), 0o600)
		cmd := exec.Command("/bin/sh", append([]string{script}, args...)...)
		cmd.Env = []string{"PATH=" + shims + ":" + os.Getenv("PATH"), "LC_ALL=C"}
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, string(out)
	}
	cfg := filepath.Join(docroot, "wp-config-db.php")
	const pw1, pw2 = "S3cretPW-one-0a1b2c", "S3cretPW-two-3d4e5f"
	if code, out := run(pw1, core, docroot, "www-data", env); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(cfg); !strings.Contains(string(b), "define( 'DB_PASSWORD', '"+pw1+"' );") {
		t.Fatalf("wp-config-db.php:\n%s", b)
	}
	if code, out := run(pw1, "--check", core, docroot, "www-data", env); code != 0 {
		t.Errorf("--check with the same credentials: exit %d, want 0\n%s", code, out)
	}
	if code, _ := run(pw2, "--check", core, docroot, "www-data", env); code == 0 {
		t.Error("--check with a new password: exit 0, want 1")
	}
	if code, out := run(pw2, core, docroot, "www-data", env); code != 0 {
		t.Fatalf("run with a new password: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(cfg); !strings.Contains(string(b), pw2) {
		t.Errorf("wp-config-db.php not rewritten for the new password:\n%s", b)
	}
	// The site user's link to /dev/zero: --check says not current at
	// once; the run replaces it with a file.
	os.Remove(cfg)
	if err := os.Symlink("/dev/zero", cfg); err != nil {
		t.Fatal(err)
	}
	if code, _ := run(pw2, "--check", core, docroot, "www-data", env); code == 0 {
		t.Error("--check with wp-config-db.php a link to /dev/zero: exit 0, want 1")
	}
	if code, out := run(pw2, core, docroot, "www-data", env); code != 0 {
		t.Fatalf("run over a link: exit %d\n%s", code, out)
	}
	if fi, err := os.Lstat(cfg); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("wp-config-db.php after the run over a link: %v %v", fi, err)
	}
	log, _ := os.ReadFile(argv)
	if !strings.Contains(string(log), "setpriv") {
		t.Fatalf("the shims logged no setpriv: the test does not see the script's programs:\n%s", log)
	}
	for _, pw := range []string{pw1, pw2} {
		if strings.Contains(string(log), pw) {
			t.Errorf("the password %s was in an argv:\n%s", pw, log)
		}
	}
}
