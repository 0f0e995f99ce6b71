package hetzner

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/hcloudfake"
	"github.com/wptest/wptest/provision/cloud"
)

// These tests run against hcloudfake, a stateful fake of the API: it keeps
// the project's resources, so it can lose an answer (the server exists, the
// client never learns its ID) and say afterwards what is left. mockutil
// answers a fixed script and can do neither.

// vclock is the driver's backoff on a virtual clock: it adds up the waits
// the production backoff (1 s doubling to 10 s) would make and makes none,
// so a test of retries takes milliseconds and can still say how long the
// real thing would wait. Every wait the driver makes goes through Backoff:
// hcloud-go's retries and action polls and the teardown's own retries.
type vclock struct {
	mu    sync.Mutex
	total time.Duration
}

func (v *vclock) backoff(retries int) time.Duration {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.total += defaultBackoff(retries)
	return 0
}

func (v *vclock) waited() time.Duration {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.total
}

type fakeEnv struct {
	fake  *hcloudfake.Fake
	d     *Driver
	clock *vclock
	spec  cloud.Spec
	log   *syncBuf
}

func newFakeEnv(t *testing.T, loadgens int) *fakeEnv {
	t.Helper()
	e := &fakeEnv{fake: hcloudfake.New(t), clock: &vclock{}, log: &syncBuf{}}
	d, err := New(Options{Credentials: Credentials{Token: testToken, Endpoint: e.fake.URL}, Log: e.log,
		Backoff: e.clock.backoff, CleanupTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	e.d = d
	m := cloud.DefaultMachines("hetzner")
	m.LoadGenerators = &loadgens
	e.spec = cloud.Spec{Machines: m, Run: cloud.Run{ID: runID, Dir: t.TempDir(), Profile: "cpanel-apache", Owner: "root@ci",
		Created: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), TTL: 6 * time.Hour}}
	return e
}

func (e *fakeEnv) create(t *testing.T) ([]cloud.Machine, error, string) {
	t.Helper()
	ctx := context.Background()
	p, err := e.d.Plan(ctx, e.spec)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	jpath := filepath.Join(e.spec.Run.Dir, cloud.JournalFile)
	j, err := cloud.OpenJournal(jpath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	ms, err := e.d.Create(ctx, p, j)
	return ms, err, jpath
}

// The answer to a server create is lost: the server exists and holds the
// firewall, and wptest never learned its ID. The cleanup finds it by label
// and deletes it before the firewall, so the firewall goes at the first
// try, nothing is left, the exit code is the create's (4), not 7, and with
// the production backoff the whole cleanup would wait about a second (the
// poll of the server's delete action). Deleting the known firewall first,
// as before, met resource_in_use 11 times: 1+2+4+8+10·6 = 75 s of backoff.
func TestLostServerCreateAnswer(t *testing.T) {
	e := newFakeEnv(t, 1)
	e.fake.Hook = func(c hcloudfake.Call) hcloudfake.Fault {
		if c.Pattern() == "POST /servers" && c.N == 1 {
			return hcloudfake.Fault{Drop: true}
		}
		return hcloudfake.Fault{}
	}
	ms, err, jpath := e.create(t)
	if err == nil || ms != nil {
		t.Fatalf("create with a lost answer succeeded: %v", ms)
	}
	if code := exitcode.Of(err); code != exitcode.Provision {
		t.Errorf("exit code %d, want %d (the create failed; the cleanup did not): %v", code, exitcode.Provision, err)
	}
	if left := e.fake.Left(); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	if n := e.fake.Count("POST /servers"); n != 1 {
		t.Errorf("%d server creates, want 1 (the second is never sent after a failure)", n)
	}
	if n := e.fake.Count("DELETE /servers/{id}"); n != 1 {
		t.Errorf("%d server deletes, want 1: the server found by label", n)
	}
	if n := e.fake.Count("DELETE /firewalls/{id}"); n != 1 {
		t.Errorf("%d firewall deletes, want 1 (none refused as in use)", n)
	}
	if w := e.clock.waited(); w > 5*time.Second {
		t.Errorf("the cleanup would wait %s with the production backoff; want seconds", w)
	}
	t.Logf("production backoff would wait %s", e.clock.waited())
	if u := cloud.Unfinished(mustRead(t, jpath)); len(u) != 0 {
		t.Errorf("journal still reports %+v after a confirmed cleanup", u)
	}
}

// A one-off failure of a firewall delete, which the next attempt removes:
// the label lists nothing at the end, so the teardown succeeded (no exit 7).
func TestSweptFailureIsNotTeardownError(t *testing.T) {
	e := newFakeEnv(t, 1)
	if _, err, _ := e.create(t); err != nil {
		t.Fatal(err)
	}
	e.fake.Hook = func(c hcloudfake.Call) hcloudfake.Fault {
		if c.Pattern() == "DELETE /firewalls/{id}" && c.N == 1 {
			return hcloudfake.Fault{Status: 500, Code: "service_error"}
		}
		return hcloudfake.Fault{}
	}
	if err := e.d.Destroy(context.Background(), cloud.Selector{Run: runID}); err != nil {
		t.Fatalf("destroy: %v (code %d)", err, exitcode.Of(err))
	}
	if left := e.fake.Left(); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	if n := e.fake.Count("DELETE /firewalls/{id}"); n != 2 {
		t.Errorf("%d firewall deletes, want 2 (the failure, then the retry)", n)
	}
	if !strings.Contains(e.log.String(), "resolved") {
		t.Errorf("the resolved failure is not logged:\n%s", e.log.String())
	}
}

// A server that cannot be deleted: exit 7 after the last attempt, naming
// it and what it holds, with the command to finish.
func TestTeardownNamesWhatIsLeft(t *testing.T) {
	e := newFakeEnv(t, 0)
	if _, err, _ := e.create(t); err != nil {
		t.Fatal(err)
	}
	e.fake.Hook = func(c hcloudfake.Call) hcloudfake.Fault {
		if c.Pattern() == "DELETE /servers/{id}" {
			return hcloudfake.Fault{Status: 423, Code: "locked"}
		}
		return hcloudfake.Fault{}
	}
	err := e.d.Destroy(context.Background(), cloud.Selector{Run: runID})
	if exitcode.Of(err) != exitcode.Teardown {
		t.Fatalf("err = %v (code %d), want 7", err, exitcode.Of(err))
	}
	msg := err.Error()
	for _, want := range []string{"still there: server wptest-t1-server (id ", "firewall wptest-t1 (id ", "placement group wptest-t1 (id ", "wptest down --run t1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not name %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "ssh key") {
		t.Errorf("the SSH key was deleted, yet it is named as left:\n%s", msg)
	}
	if n := e.fake.Count("DELETE /servers/{id}"); n != teardownAttempts {
		t.Errorf("%d server deletes, want %d attempts", n, teardownAttempts)
	}
	if left := e.fake.Left(); len(left) != 3 {
		t.Errorf("left: %v", left)
	}
}

// The firewall lets the web ports in only from the run's load generators
// and allow_from, SSH only from allow_ssh_from. It is created before the
// load generators have addresses (SSH and allow_from only, so nothing is
// open wider in between), attached to every server at its create, and
// set_rules adds the load generators once their addresses are known. The
// run records the final rules.
func TestFirewallLetsInOnlyTheRun(t *testing.T) {
	e := newFakeEnv(t, 2)
	e.spec.Machines.AllowFrom = []string{"198.51.100.7", "2001:db8:beef::/48"}
	e.spec.Machines.AllowSSHFrom = []string{"192.0.2.0/24"}
	ms, err, _ := e.create(t)
	if err != nil {
		t.Fatal(err)
	}
	var fwID int64
	for _, c := range e.fake.ServerCreates() {
		if len(c.Firewalls) != 1 {
			t.Fatalf("server %s created with firewalls %v", c.Name, c.Firewalls)
		}
		fwID = c.Firewalls[0].Firewall
	}
	sets := e.fake.RuleSets("wptest-t1")
	if len(sets) != 2 {
		t.Fatalf("firewall had %d rule sets, want 2 (create, set_rules)", len(sets))
	}
	str := func(rs int) []string {
		var out []string
		for _, r := range sets[rs] {
			out = append(out, fmt.Sprintf("%s %s/%s %v", r.Direction, *r.Port, r.Protocol, r.SourceIPs))
		}
		return out
	}
	web := "[198.51.100.7/32 2001:db8:beef::/48]"
	wantLines(t, "rules at create", str(0), []string{
		"in 22/tcp [192.0.2.0/24]", "in 80/tcp " + web, "in 443/tcp " + web, "in 443/udp " + web})
	var lg []string
	for _, m := range ms {
		if m.Role == cloud.RoleLoadGen {
			lg = append(lg, m.Address+"/32")
		}
	}
	if len(lg) != 2 {
		t.Fatalf("machines: %+v", ms)
	}
	web = fmt.Sprintf("[198.51.100.7/32 %s %s 2001:db8:beef::/48]", lg[0], lg[1])
	wantLines(t, "rules after set_rules", str(1), []string{
		"in 22/tcp [192.0.2.0/24]", "in 80/tcp " + web, "in 443/tcp " + web, "in 443/udp " + web})
	for _, s := range str(1) {
		if strings.Contains(s, "0.0.0.0/0") || strings.Contains(s, "::/0") || strings.Contains(s, ms[0].Address) {
			t.Errorf("rule lets in more than the run: %s", s)
		}
	}
	recorded, err := cloud.ReadFirewall(e.spec.Run.Dir)
	if err != nil || len(recorded) != 4 || strings.Join(recorded[1].Sources, " ") != strings.Trim(web, "[]") {
		t.Errorf("firewall.json: %v (%v)", recorded, err)
	}
	if fwID == 0 {
		t.Fatal("no firewall on the servers")
	}
	if err := e.d.Destroy(context.Background(), cloud.Selector{Run: runID}); err != nil || len(e.fake.Left()) != 0 {
		t.Fatalf("destroy: %v, left %v", err, e.fake.Left())
	}
}

// Without load generators and allow_from, the web ports are open to nobody
// (no rule at all; Hetzner refuses a rule without sources), no set_rules is
// needed, and the plan says so.
func TestFirewallNoLoadGenerators(t *testing.T) {
	e := newFakeEnv(t, 0)
	p, err := e.d.Plan(context.Background(), e.spec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(p.Notes, "\n"), "80/tcp, 443/tcp, 443/udp open to nobody") {
		t.Errorf("plan notes: %q", p.Notes)
	}
	if _, err, _ := e.create(t); err != nil {
		t.Fatal(err)
	}
	sets := e.fake.RuleSets("wptest-t1")
	if len(sets) != 1 || len(sets[0]) != 1 || *sets[0][0].Port != "22" {
		t.Errorf("rule sets: %+v", sets)
	}
	if n := e.fake.Count("POST /firewalls/{id}/actions/set_rules"); n != 0 {
		t.Errorf("%d set_rules calls, want 0", n)
	}
}
