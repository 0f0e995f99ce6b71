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

// A service this apply starts is not restarted for what changed before it
// started (already in effect), but is for a change after it: the PHP
// extension a later package brings is loaded only by a restarted php-fpm.
func TestRestartForChangeAfterStart(t *testing.T) {
	testenv.NeedRoot(t) // applies root-owned files on this host
	dir := t.TempDir()
	src := `
profile {
  description = "notify order"
  platforms   = ["debian-12"]
}
platform "debian-12" {
  package_manager = "apt"
}
file "before" {
  path    = "` + dir + `/before.conf"
  content = "x\n"
}
service "svc" {
  name       = "svc"
  state      = "running"
  on_notify  = "restart"
  restart_on = ["file.before", "file.after"]
  start      = "echo start >> ` + dir + `/log && touch ` + dir + `/running"
  stop       = "echo stop >> ` + dir + `/log && rm -f ` + dir + `/running"
  status     = "test -e ` + dir + `/running"
}
file "after" {
  path    = "` + dir + `/after.conf"
  content = "y\n"
}
`
	p, diags := Load(fstest.MapFS{"n/main.hcl": {Data: []byte(src)}}, "n", Vars{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	r, diags := p.Render("debian-12")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	rep, err := r.Apply(context.Background(), host.NewLocal(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "log"))
	if string(log) != "start\nstop\nstart\n" || len(rep.Notified) != 1 || strings.Join(rep.Notified[0].By, ",") != "file.after" {
		t.Fatalf("service log %q, notified %+v; want started, then restarted for file.after only", log, rep.Notified)
	}
	// Nothing changed: no start, no restart.
	rep, err = r.Apply(context.Background(), host.NewLocal(nil), nil)
	if err != nil || rep.Changes != 0 || len(rep.Notified) != 0 {
		t.Fatalf("second apply: %d changes, notified %+v, %v", rep.Changes, rep.Notified, err)
	}
}
