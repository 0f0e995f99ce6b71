package profiles_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/profiles"
	"github.com/wptest/wptest/provision"
)

// TestSourceURLCredentialsInNoArgv runs the profiles' download commands
// (cpanel-apache's mod_ruid2.c, corehttpd's package) as rendered, with a
// URL that holds a user and password, against a server on this machine
// that asks for them, every program the script starts logging its argv:
// curl gets the credentials (the server saw them), yet no argv and no
// message holds the password. A wrong SHA-256 stops each script before it
// builds or installs anything.
func TestSourceURLCredentialsInNoArgv(t *testing.T) {
	testenv.NeedRoot(t)
	testenv.NeedBinary(t, "curl")
	const user, pw = "alice", "S3cretPW-in-a-url"
	body := []byte("/* not mod_ruid2 */\n")
	var mu sync.Mutex
	var authed int
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != user || p != pw {
			w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		mu.Lock()
		authed++
		mu.Unlock()
		w.Write(body)
	})
	plain := httptest.NewServer(handler)
	defer plain.Close()
	tls := httptest.NewTLSServer(handler)
	defer tls.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tls.Certificate().Raw}), 0o644)
	wrong := strings.Repeat("0", 64)
	sum := sha256.Sum256(body)
	cred := func(base, p string) string { return strings.Replace(base, "://", "://"+user+":"+pw+"@", 1) + p }
	for _, c := range []struct {
		profile, op string
		vars        []string
	}{
		{"cpanel-apache", "build_ruid2", []string{"ruid2_source_url=" + cred(plain.URL, "/mod_ruid2.c"), "ruid2_source_sha256=" + wrong}},
		{"corehttpd", "install_corehttpd", []string{"package_source=" + cred(tls.URL, "/corehttpd.deb"), "package_sha256=" + wrong}},
	} {
		t.Run(c.profile, func(t *testing.T) {
			script := renderedCommand(t, c.profile, c.op, c.vars)
			argv := filepath.Join(t.TempDir(), "argv.log")
			shims := argvShims(t, argv, "curl", "sed", "sha256sum", "cut", "mktemp", "rm", "cp", "cat", "chmod", "install", "printf", "echo")
			cmd := exec.Command("/bin/sh", "-c", script)
			cmd.Env = []string{"PATH=" + shims + ":/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", "CURL_CA_BUNDLE=" + ca}
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), "sha256 "+hex.EncodeToString(sum[:])+", want "+wrong) {
				t.Fatalf("%s: %v, want the SHA-256 refused:\n%s", c.op, err, out)
			}
			mu.Lock()
			n := authed
			authed = 0
			mu.Unlock()
			if n != 1 {
				t.Errorf("%s: the server answered %d request(s) with the credentials, want 1 (curl did not get them):\n%s", c.op, n, out)
			}
			log, _ := os.ReadFile(argv)
			if !strings.Contains(string(log), "curl ") {
				t.Fatalf("no curl in the argv log: the shims saw nothing:\n%s", log)
			}
			if strings.Contains(string(log), pw) {
				t.Errorf("%s: the password was in an argv:\n%s", c.op, log)
			}
			if strings.Contains(string(out), pw) {
				t.Errorf("%s: the password was in the command's output:\n%s", c.op, out)
			}
		})
	}
}

// renderedCommand is the run script of command op id of profile name on
// debian-12 with vars given as -var.
func renderedCommand(t *testing.T, name, id string, vars []string) string {
	t.Helper()
	p, diags := provision.Load(profiles.FS, name, provision.Vars{Args: vars})
	if diags.HasErrors() {
		t.Fatalf("load %s: %v", name, diags)
	}
	r, diags := p.Render("debian-12")
	if diags.HasErrors() {
		t.Fatalf("render %s: %v", name, diags)
	}
	for _, op := range r.Ops {
		if o, ok := op.(*provision.CommandOp); ok && o.ID() == "command."+id {
			return o.Run
		}
	}
	t.Fatalf("%s: no command.%s", name, id)
	return ""
}

// argvShims makes a directory of programs, one per name, that append their
// argv to log and run the real program of that name.
func argvShims(t *testing.T, log string, names ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shims")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		real, err := exec.LookPath(n)
		if err != nil {
			continue
		}
		shim := "#!/bin/sh\nprintf '%s\\n' \"$0 $*\" >>" + log + "\nexec " + real + " \"$@\"\n"
		if err := os.WriteFile(filepath.Join(dir, n), []byte(shim), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
