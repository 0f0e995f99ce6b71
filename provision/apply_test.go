package provision

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/testenv"
)

// sshHost starts a real OpenSSH sshd on loopback (its own pinned host key,
// a client key made by the test) and connects to it.
func sshHost(t *testing.T) host.Host {
	t.Helper()
	srv := testenv.SSHD(t)
	tg, err := host.ParseTarget(srv.Target)
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Open(context.Background(), tg, host.Options{KnownHostsFile: srv.KnownHostsFile, IdentityFile: srv.IdentityFile})
	if err != nil {
		t.Fatalf("open %s: %v", srv.Target, err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// demoEnv is one demo installation: its own root dir and port.
type demoEnv struct {
	root string
	port int
}

func newDemoEnv(t *testing.T) demoEnv {
	testenv.NeedBinary(t, "python3")
	testenv.NeedBinary(t, "start-stop-daemon")
	d := demoEnv{root: t.TempDir(), port: freePort(t)}
	t.Cleanup(func() {
		// Stop the demo service the test started (only ours: by its pidfile).
		pid := filepath.Join(d.root, "run", "demo.pid")
		if _, err := os.Stat(pid); err == nil {
			h := host.NewLocal(nil)
			h.Run(context.Background(), host.Cmd{Script: "start-stop-daemon --stop --pidfile " + host.Quote(pid) + " --retry TERM/5/KILL/5 --oknodo"})
		}
	})
	return d
}

func (d demoEnv) vars(extra ...string) Vars {
	return Vars{Args: append([]string{"root=" + d.root, fmt.Sprintf("port=%d", d.port)}, extra...)}
}

func (d demoEnv) render(t *testing.T, extra ...string) *Rendered {
	t.Helper()
	p := loadDemo(t, d.vars(extra...))
	r, diags := p.Render("debian-12")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return r
}

func (d demoEnv) get(t *testing.T, path string) string {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d%s", d.port, path))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return strings.TrimSpace(string(b))
}

func (d demoEnv) starts(t *testing.T) int {
	b, err := os.ReadFile(filepath.Join(d.root, "state", "starts"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

func changedIDs(rep *Report) []string {
	var ids []string
	for _, o := range rep.Ops {
		if o.Change != nil && o.Change.Needed {
			ids = append(ids, o.ID)
		}
	}
	return ids
}

func mustApply(t *testing.T, r *Rendered, h host.Host) *Report {
	t.Helper()
	var events []string
	rep, err := r.Apply(context.Background(), h, func(e Event) { events = append(events, fmt.Sprintf("[%s] %s: %s", e.Host, e.Op, e.Msg)) })
	if err != nil {
		t.Fatalf("apply: %v\nevents:\n%s", err, strings.Join(events, "\n"))
	}
	for _, c := range rep.Checks {
		if !c.Ran || !c.Passed {
			t.Fatalf("check %s did not pass: %s", c.ID, c.Error)
		}
	}
	return rep
}

// TestApplyDemoOverSSH is the provisioner end to end against a real sshd:
// apply, checks pass, a second apply changes nothing, one changed variable
// changes exactly the ops that use it and reloads the service once, and a
// drifted file is put back with a restart (restart wins over reload).
func TestApplyDemoOverSSH(t *testing.T) {
	t.Parallel() // each test has its own sshd, root dir and port
	h := sshHost(t)
	d := newDemoEnv(t)
	ctx := context.Background()

	rep := mustApply(t, d.render(t), h)
	if rep.Changes == 0 || len(rep.Notified) != 0 {
		t.Fatalf("first apply: changes=%d notified=%v", rep.Changes, rep.Notified)
	}
	if slices.Contains(changedIDs(rep), "package.python") {
		t.Errorf("package.python reported a change: python3 is installed")
	}
	if got := d.get(t, "/"); got != "hello" {
		t.Fatalf("GET / = %q", got)
	}
	if fi, err := os.Stat(filepath.Join(d.root, "etc", "demo.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("config mode: %v %v", fi.Mode(), err)
	}
	if len(rep.Facts) != 1 || !strings.HasPrefix(rep.Facts[0].Output, "Python 3") {
		t.Errorf("facts: %+v", rep.Facts)
	}

	// Second apply: nothing to do.
	rep = mustApply(t, d.render(t), h)
	if rep.Changes != 0 || len(rep.Notified) != 0 {
		t.Fatalf("second apply: changes=%d (%v) notified=%v", rep.Changes, changedIDs(rep), rep.Notified)
	}

	// One variable changed: plan shows exactly the ops that use it.
	r := d.render(t, "greeting=bonjour")
	plan, err := r.Plan(ctx, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"file.config", "command.greeting_mark"}
	if got := changedIDs(plan); !slices.Equal(got, want) {
		t.Fatalf("plan after greeting change: %v, want %v", got, want)
	}
	if got := d.get(t, "/"); got != "hello" {
		t.Fatalf("plan changed something: GET / = %q", got)
	}
	rep = mustApply(t, r, h)
	if got := changedIDs(rep); !slices.Equal(got, want) {
		t.Fatalf("apply after greeting change: %v, want %v", got, want)
	}
	if len(rep.Notified) != 1 || rep.Notified[0].Service != "service.demo" || rep.Notified[0].Action != "reload" {
		t.Fatalf("notified: %+v", rep.Notified)
	}
	if got := d.get(t, "/reloads"); got != "1" {
		t.Fatalf("service reloaded %s times, want exactly 1", got)
	}
	if n := d.starts(t); n != 1 {
		t.Fatalf("service started %d times, want 1 (a reload, not a restart)", n)
	}
	if got := d.get(t, "/"); got != "bonjour" {
		t.Fatalf("GET / = %q after reload", got)
	}
	if rep := mustApply(t, r, h); rep.Changes != 0 {
		t.Fatalf("apply after change, again: %d changes", rep.Changes)
	}

	// Drift: the server script is edited on the host and the greeting
	// changes back. file.server restarts, file.config reloads: one restart.
	if err := os.WriteFile(filepath.Join(d.root, "bin", "demo-server.py"), []byte("# edited by hand\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	rep = mustApply(t, d.render(t), h)
	want = []string{"file.server", "file.config", "command.greeting_mark"}
	if got := changedIDs(rep); !slices.Equal(got, want) {
		t.Fatalf("apply after drift: %v, want %v", got, want)
	}
	if len(rep.Notified) != 1 || rep.Notified[0].Action != "restart" || len(rep.Notified[0].By) != 2 {
		t.Fatalf("notified: %+v, want one restart by two ops", rep.Notified)
	}
	if n := d.starts(t); n != 2 {
		t.Fatalf("service started %d times, want 2", n)
	}
	if got := d.get(t, "/reloads"); got != "0" {
		t.Fatalf("reloads after restart = %s, want 0 (fresh process, no extra reload)", got)
	}
}

// TestApplyFailingCommandStopsAndRerunContinues: a failing command names
// host, op, exit code and stderr tail; apply stops there (later ops do not
// run); after the cause is fixed, a rerun continues and finishes.
func TestApplyFailingCommandStopsAndRerunContinues(t *testing.T) {
	t.Parallel()
	h := sshHost(t)
	d := newDemoEnv(t)

	rep, err := d.render(t, "fail=true").Apply(context.Background(), h, nil)
	if err == nil {
		t.Fatal("apply with a failing command succeeded")
	}
	if exitcode.Of(err) != exitcode.Provision {
		t.Errorf("exit code %d, want %d", exitcode.Of(err), exitcode.Provision)
	}
	var ee *host.ExitError
	if !errors.As(err, &ee) || ee.Code != 3 {
		t.Errorf("error is not an exit status 3: %v", err)
	}
	msg := err.Error()
	for _, want := range []string{h.Name(), "command.step", "exit status 3", "step: disk on fire"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not name %q", msg, want)
		}
	}
	var applied []string
	for _, o := range rep.Ops {
		if o.Applied {
			applied = append(applied, o.ID)
		}
		if o.ID == "service.demo" && o.Change != nil {
			t.Errorf("service.demo was checked after the failure")
		}
	}
	if !slices.Contains(applied, "file.config") || slices.Contains(applied, "command.step") {
		t.Fatalf("applied before the failure: %v", applied)
	}
	if _, err := os.Stat(filepath.Join(d.root, "run", "demo.pid")); err == nil {
		t.Fatal("the service was started after the failing command")
	}

	rep = mustApply(t, d.render(t), h)
	want := []string{"command.step", "service.demo"}
	if got := changedIDs(rep); !slices.Equal(got, want) {
		t.Fatalf("rerun changed %v, want only %v (the rest was done)", got, want)
	}
	if got := d.get(t, "/"); got != "hello" {
		t.Fatalf("GET / = %q", got)
	}
}

// TestRetireStopsThePreviousServer: the services another profile left
// running (as a host manifest records them) are stopped before this
// profile's ops, named in the report, and a second apply finds nothing to
// stop. The server's own services are recorded with the commands the host
// runs them with.
func TestRetireStopsThePreviousServer(t *testing.T) {
	t.Parallel()
	h := sshHost(t)
	old, cur := newDemoEnv(t), newDemoEnv(t)
	rep := mustApply(t, old.render(t), h)
	if rep.Server == nil || len(rep.Server.Services) != 1 {
		t.Fatalf("server after apply: %+v", rep.Server)
	}
	svc := rep.Server.Services[0]
	if svc.Name != "wptest-demo" || !strings.Contains(svc.Stop, "--stop --pidfile") || !strings.Contains(svc.Restart, " && ") || !strings.Contains(svc.Status, "--status") {
		t.Fatalf("recorded service: %+v, want its own stop and status, restart = stop && start", svc)
	}
	// The same server under another system name: it is not the new
	// profile's, so it is retired.
	svc.Label, svc.Name = "old_demo", "wptest-old-demo"
	r := cur.render(t)
	r.Retire([]Service{svc, rep.Server.Services[0]})
	rep = mustApply(t, r, h)
	if len(rep.Retired) != 1 || rep.Retired[0].Name != "wptest-old-demo" {
		t.Fatalf("retired: %+v, want only the old demo (the other is this profile's own)", rep.Retired)
	}
	if ids := changedIDs(rep); len(ids) == 0 || ids[0] != "service.retire_old_demo" {
		t.Fatalf("changed: %v, want service.retire_old_demo first", ids)
	}
	if _, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", old.port)); err == nil {
		t.Errorf("the old demo still answers after it was retired")
	}
	if got := cur.get(t, "/"); got != "hello" {
		t.Fatalf("new demo: GET / = %q", got)
	}
	r = cur.render(t)
	r.Retire([]Service{svc})
	if rep := mustApply(t, r, h); rep.Changes != 0 {
		t.Errorf("second apply with the same retired service: %d changes (%v)", rep.Changes, changedIDs(rep))
	}
}

// TestRetireMadeRemovesWhatAnotherProfileMade: the files another profile
// made in the site (its precompressed copies, as its host manifest records
// the set, with the shipped wptest-precompress) are removed before this
// profile's ops when this profile does not make a set of that name, and
// nothing else is touched; a second apply finds nothing to remove; a
// profile that makes the same set keeps them.
func TestRetireMadeRemovesWhatAnotherProfileMade(t *testing.T) {
	t.Parallel()
	h := sshHost(t)
	d := newDemoEnv(t)
	script, err := filepath.Abs("../profiles/_parts/site/templates/shared/wptest-precompress")
	if err != nil {
		t.Fatal(err)
	}
	docroot := filepath.Join(t.TempDir(), "public_html")
	os.MkdirAll(filepath.Join(docroot, "wp-includes", "css"), 0o755)
	css := filepath.Join(docroot, "wp-includes", "css", "a.css")
	os.WriteFile(css, []byte(strings.Repeat("body { color: #123; }\n", 40)), 0o644)
	os.WriteFile(filepath.Join(docroot, "notes.txt.gz.keep"), []byte("x"), 0o644)
	if out, err := exec.Command("sh", script, docroot).CombinedOutput(); err != nil {
		t.Fatalf("precompress: %v\n%s", err, out)
	}
	if _, err := os.Stat(css + ".gz"); err != nil {
		t.Fatal(err)
	}
	q := host.Quote
	prev := []SiteFiles{{Name: "precompressed", List: "sh " + q(script) + " --list " + q(docroot), Remove: "sh " + q(script) + " --remove " + q(docroot)}}

	// A profile that precompresses too keeps the copies.
	r := d.render(t)
	r.Site = &Site{Docroot: docroot, Made: []SiteFiles{{Name: "precompressed", List: "true", Remove: "true"}}}
	r.RetireMade(prev)
	for _, op := range r.Ops {
		if strings.HasPrefix(op.ID(), "command.retire_site_files_") {
			t.Fatalf("%s retires a set it makes itself", op.ID())
		}
	}

	r = d.render(t)
	r.RetireMade(prev)
	rep := mustApply(t, r, h)
	if ids := changedIDs(rep); len(ids) == 0 || ids[0] != "command.retire_site_files_precompressed" {
		t.Fatalf("changed %v, want command.retire_site_files_precompressed first", ids)
	}
	if _, err := os.Stat(css + ".gz"); err == nil {
		t.Errorf("the copy is still there after the retire")
	}
	for _, keep := range []string{css, filepath.Join(docroot, "notes.txt.gz.keep")} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("the retire removed %s: %v", keep, err)
		}
	}
	r = d.render(t)
	r.RetireMade(prev)
	if rep := mustApply(t, r, h); slices.Contains(changedIDs(rep), "command.retire_site_files_precompressed") {
		t.Errorf("a second apply retires the set again: %v", changedIDs(rep))
	}
}
