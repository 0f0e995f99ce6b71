package provision

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
)

// bakeProfile has one op of each kind a bake must tell apart: a package op
// (dpkg, installed wherever dpkg-query runs), a command marked bake, one
// not marked, a file and a service.
func bakeProfile(dir, pkgs, build, other, body string) string {
	return `
profile {
  description = "bake"
  platforms   = ["debian-12"]
}
platform "debian-12" {
  package_manager = "apt"
}
package "server" {
  names = [` + pkgs + `]
}
command "build" {
  bake    = true
  creates = "` + dir + `/built"
  run     = "` + build + `"
}
command "configure" {
  creates = "` + dir + `/configured"
  run     = "` + other + `"
}
file "conf" {
  path    = "` + dir + `/conf"
  content = "` + body + `\n"
}
service "svc" {
  name   = "svc"
  start  = "touch ` + dir + `/running"
  stop   = "rm -f ` + dir + `/running"
  status = "test -e ` + dir + `/running"
}
`
}

func renderSrc(t *testing.T, src string) *Rendered {
	t.Helper()
	p, diags := Load(fstest.MapFS{"b/main.hcl": {Data: []byte(src)}}, "b", Vars{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	r, diags := p.Render("debian-12")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return r
}

// Bake applies the package ops and the commands marked bake, nothing else;
// its key follows what it would install and nothing else.
func TestBakeAppliesPackagesAndBakeCommandsOnly(t *testing.T) {
	testenv.NeedBinary(t, "dpkg-query")
	dir := t.TempDir()
	build, other := "touch "+dir+"/built", "touch "+dir+"/configured"
	r := renderSrc(t, bakeProfile(dir, `"dpkg"`, build, other, "a"))
	var events []string
	err := r.Bake(context.Background(), host.NewLocal(nil), func(e Event) { events = append(events, e.Op+": "+e.Msg) })
	if err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]bool{"built": true, "configured": false, "conf": false, "running": false} {
		if _, err := os.Stat(filepath.Join(dir, f)); (err == nil) != want {
			t.Errorf("after bake, %s exists: %v, want %v", f, err == nil, want)
		}
	}
	if got := strings.Join(events, "\n"); got != "package.server: ok\ncommand.build: run (guard says not done)" {
		t.Errorf("bake's events:\n%s", got)
	}

	key := r.BakeKey()
	for _, c := range []struct {
		name       string
		src        string
		sameAsBake bool
	}{
		{"another file body", bakeProfile(dir, `"dpkg"`, build, other, "b"), true},
		{"another unbaked command", bakeProfile(dir, `"dpkg"`, build, other+" && true", "a"), true},
		{"another package", bakeProfile(dir, `"dpkg", "tar"`, build, other, "a"), false},
		{"another bake command", bakeProfile(dir, `"dpkg"`, build+" && true", other, "a"), false},
	} {
		if got := renderSrc(t, c.src).BakeKey() == key; got != c.sameAsBake {
			t.Errorf("%s: same bake key %v, want %v", c.name, got, c.sameAsBake)
		}
	}
}
