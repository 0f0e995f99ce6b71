package hetzner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/exp/mockutil"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/cloud"
)

const (
	testToken = "tok-3f9c2a7e1b5d4c8a9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d"
	runID     = "t1"
	sel       = "wptest%3D1%2Cwptest%2Frun%3Dt1"
)

// env is one test's mock API, driver and captured output.
type env struct {
	t       *testing.T
	srv     *mockutil.Server
	d       *Driver
	red     *cloud.Redactor
	log     *syncBuf
	debug   *syncBuf
	spec    cloud.Spec
	userDat []string // user_data of every server create, as the API received it
	mu      sync.Mutex
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func newEnv(t *testing.T, reqs []mockutil.Request) *env {
	t.Helper()
	e := &env{t: t, red: &cloud.Redactor{}, log: &syncBuf{}, debug: &syncBuf{}}
	e.srv = mockutil.NewServer(t, nil)
	e.srv.Expect(reqs)
	d, err := New(Options{
		Credentials: Credentials{Token: testToken, Endpoint: e.srv.URL},
		Redactor:    e.red, Log: e.log, Debug: e.debug,
		Backoff: hcloud.ConstantBackoff(time.Millisecond), CleanupTimeout: 30 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.d = d
	e.spec = cloud.Spec{
		Machines: cloud.DefaultMachines("hetzner"),
		Run: cloud.Run{ID: runID, Dir: t.TempDir(), Profile: "cpanel-apache", Owner: "root@ci",
			Created: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), TTL: 6 * time.Hour},
	}
	return e
}

// The API as hcloud-go calls it, request by request.

func planRequests() []mockutil.Request {
	return []mockutil.Request{
		{Method: "GET", Path: "/locations?name=fsn1", Status: 200, JSON: map[string]any{
			"locations": []any{map[string]any{"id": 1, "name": "fsn1", "network_zone": "eu-central"}}}},
		{Method: "GET", Path: "/server_types?name=ccx23", Status: 200, JSON: map[string]any{
			"server_types": []any{serverType(true)}}},
		{Method: "GET", Path: "/images?architecture=x86&include_deprecated=true&name=alma-9", Status: 200, JSON: map[string]any{
			"images": []any{map[string]any{"id": 114690387, "name": "alma-9", "type": "system", "architecture": "x86", "os_flavor": "alma", "os_version": "9"}}}},
		// /server_types states no currency; /pricing does.
		{Method: "GET", Path: "/pricing", Status: 200, JSON: map[string]any{"pricing": map[string]any{"currency": "EUR", "vat_rate": "19.00"}}},
	}
}

func serverType(availableInFsn1 bool) map[string]any {
	return map[string]any{
		"id": 98, "name": "ccx23", "cores": 4, "memory": 16, "disk": 160, "cpu_type": "dedicated", "architecture": "x86",
		"prices": []any{
			map[string]any{"location": "fsn1", "price_hourly": map[string]any{"net": "0.0400", "gross": "0.0476"}, "price_monthly": map[string]any{"net": "24.49", "gross": "29.14"}},
			map[string]any{"location": "nbg1", "price_hourly": map[string]any{"net": "0.0400", "gross": "0.0476"}, "price_monthly": map[string]any{"net": "24.49", "gross": "29.14"}},
		},
		"locations": []any{
			map[string]any{"id": 1, "name": "fsn1", "available": availableInFsn1},
			map[string]any{"id": 2, "name": "nbg1", "available": true},
		},
	}
}

func (e *env) createPrefix() []mockutil.Request {
	return []mockutil.Request{
		{Method: "POST", Path: "/ssh_keys", Status: 201, Want: e.wantLabels, JSON: map[string]any{
			"ssh_key": map[string]any{"id": 10, "name": "wptest-t1", "fingerprint": "aa", "public_key": "ssh-ed25519 AAAA"}}},
		{Method: "POST", Path: "/placement_groups", Status: 201, Want: e.wantLabels, JSON: map[string]any{
			"placement_group": map[string]any{"id": 20, "name": "wptest-t1", "type": "spread", "servers": []any{}}}},
		{Method: "POST", Path: "/firewalls", Status: 201, Want: e.wantFirewall, JSON: map[string]any{
			"firewall": map[string]any{"id": 30, "name": "wptest-t1"}, "actions": []any{}}},
	}
}

func (e *env) serverCreate(name string, id, action int64, want func(*testing.T, *http.Request)) mockutil.Request {
	return mockutil.Request{Method: "POST", Path: "/servers", Status: 201,
		Want: func(t *testing.T, r *http.Request) {
			e.wantServer(t, r, name)
			if want != nil {
				want(t, r)
			}
		},
		JSON: map[string]any{
			"server": serverJSON(name, id),
			"action": map[string]any{"id": action, "command": "create_server", "status": "running"},
			"next_actions": []any{
				map[string]any{"id": action + 1, "command": "start_server", "status": "running"}},
		}}
}

func serverJSON(name string, id int64) map[string]any {
	return map[string]any{"id": id, "name": name, "status": "initializing",
		"public_net": map[string]any{"ipv4": map[string]any{"ip": fmt.Sprintf("203.0.113.%d", id)}},
		"labels":     map[string]any{"wptest": "1", "wptest/run": runID}}
}

func actions(status string, ids ...int64) mockutil.Request {
	q := ""
	var list []any
	for _, id := range ids {
		q += fmt.Sprintf("id=%d&", id)
		a := map[string]any{"id": id, "command": "x", "status": status}
		if status == "error" {
			a["error"] = map[string]any{"code": "action_failed", "message": "Action failed"}
		}
		list = append(list, a)
	}
	return mockutil.Request{Method: "GET", Path: "/actions?" + q + "page=1&sort=status&sort=id", Status: 200,
		JSON: map[string]any{"actions": list}}
}

// srv is a server as the label list returns it.
type srv struct {
	id   int64
	name string
}

// destroyRequests is a teardown of run t1 holding the given servers and one
// firewall, placement group and SSH key, as the label lists show them: one
// pass deleting them kind by kind, then the lists again, empty.
func destroyRequests(servers ...srv) []mockutil.Request {
	var list []any
	for _, s := range servers {
		list = append(list, serverJSON(s.name, s.id))
	}
	reqs := []mockutil.Request{{Method: "GET", Path: "/servers?label_selector=" + sel + "&page=1&per_page=50", Status: 200,
		JSON: map[string]any{"servers": orEmpty(list)}}}
	for _, s := range servers {
		reqs = append(reqs,
			mockutil.Request{Method: "DELETE", Path: fmt.Sprintf("/servers/%d", s.id), Status: 200,
				JSON: map[string]any{"action": map[string]any{"id": 900 + s.id, "command": "delete_server", "status": "running"}}},
			actions("success", 900+s.id))
	}
	reqs = append(reqs, afterServers(true)...)
	return append(reqs, confirmEmpty()...)
}

func afterServers(exist bool) []mockutil.Request {
	fw, pg, key := []any{}, []any{}, []any{}
	if exist {
		fw = []any{map[string]any{"id": 30, "name": "wptest-t1"}}
		pg = []any{map[string]any{"id": 20, "name": "wptest-t1", "type": "spread", "servers": []any{}}}
		key = []any{map[string]any{"id": 10, "name": "wptest-t1"}}
	}
	reqs := []mockutil.Request{{Method: "GET", Path: "/firewalls?label_selector=" + sel + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"firewalls": fw}}}
	if exist {
		reqs = append(reqs, mockutil.Request{Method: "DELETE", Path: "/firewalls/30", Status: 204})
	}
	reqs = append(reqs, mockutil.Request{Method: "GET", Path: "/placement_groups?label_selector=" + sel + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"placement_groups": pg}})
	if exist {
		reqs = append(reqs, mockutil.Request{Method: "DELETE", Path: "/placement_groups/20", Status: 204})
	}
	reqs = append(reqs, mockutil.Request{Method: "GET", Path: "/ssh_keys?label_selector=" + sel + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"ssh_keys": key}})
	if exist {
		reqs = append(reqs, mockutil.Request{Method: "DELETE", Path: "/ssh_keys/10", Status: 204})
	}
	return reqs
}

// confirmEmpty is the list by label after a teardown pass, finding nothing.
func confirmEmpty() []mockutil.Request {
	return append([]mockutil.Request{{Method: "GET", Path: "/servers?label_selector=" + sel + "&page=1&per_page=50", Status: 200,
		JSON: map[string]any{"servers": []any{}}}}, afterServers(false)...)
}

func orEmpty(l []any) []any {
	if l == nil {
		return []any{}
	}
	return l
}

// setRules is set_rules on firewall 30 with the rules want checks, and the
// poll of its action.
func setRules(want func(*testing.T, *http.Request)) []mockutil.Request {
	return []mockutil.Request{
		{Method: "POST", Path: "/firewalls/30/actions/set_rules", Status: 201, Want: want,
			JSON: map[string]any{"actions": []any{map[string]any{"id": 300, "command": "set_firewall_rules", "status": "running"}}}},
		actions("success", 300),
	}
}

func body(t *testing.T, r *http.Request) map[string]any {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s %s: body %q: %v", r.Method, r.URL, b, err)
	}
	return m
}

func (e *env) wantLabels(t *testing.T, r *http.Request) {
	checkLabels(t, body(t, r), "")
}

func checkLabels(t *testing.T, m map[string]any, role string) {
	t.Helper()
	l, _ := m["labels"].(map[string]any)
	want := map[string]string{"wptest": "1", "wptest/run": runID, "wptest/profile": "cpanel-apache", "wptest/owner": "root_ci",
		"wptest/created": "1795953600", "wptest/expires": "1795975200"}
	if role != "" {
		want["wptest/role"] = role
	}
	for k, v := range want {
		if l[k] != v {
			t.Errorf("label %s = %v, want %s (labels %v)", k, l[k], v, l)
		}
	}
}

// The firewall is created before any load generator has an address: SSH
// from anywhere (allow_ssh_from's default) and nothing else, since
// allow_from is empty by default.
func (e *env) wantFirewall(t *testing.T, r *http.Request) {
	m := body(t, r)
	checkLabels(t, m, "")
	wantRules(t, m, "in 22/tcp [0.0.0.0/0 ::/0]")
}

// wantRules compares a create or set_rules body's rules, one string each.
func wantRules(t *testing.T, m map[string]any, want ...string) {
	t.Helper()
	rules, _ := m["rules"].([]any)
	var got []string
	for _, x := range rules {
		r := x.(map[string]any)
		got = append(got, fmt.Sprintf("%s %v/%v %v", r["direction"], r["port"], r["protocol"], r["source_ips"]))
	}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("firewall rules:\n got %v\nwant %v", got, want)
	}
}

func (e *env) wantServer(t *testing.T, r *http.Request, name string) {
	m := body(t, r)
	role := "server"
	if strings.Contains(name, "loadgen") {
		role = "loadgen"
	}
	checkLabels(t, m, role)
	if m["name"] != name || m["server_type"] != "ccx23" || m["location"] != "fsn1" || m["image"] != float64(114690387) {
		t.Errorf("server create: name %v type %v location %v image %v", m["name"], m["server_type"], m["location"], m["image"])
	}
	if pg := m["placement_group"]; pg != float64(20) {
		t.Errorf("placement_group = %v, want 20", pg)
	}
	if fmt.Sprint(m["ssh_keys"]) != "[10]" {
		t.Errorf("ssh_keys = %v, want [10]", m["ssh_keys"])
	}
	if fmt.Sprint(m["firewalls"]) != "[map[firewall:30]]" {
		t.Errorf("firewalls = %v", m["firewalls"])
	}
	ud, _ := m["user_data"].(string)
	if !strings.HasPrefix(ud, "#cloud-config\n") || !strings.Contains(ud, "ed25519_private: |") {
		t.Errorf("user_data does not inject a host key:\n%s", ud)
	}
	// Keys only: the image's password settings are turned off before sshd starts.
	if !strings.Contains(ud, "\nssh_pwauth: false\n") || cloud.FileFromCloudInit(ud, cloud.SSHDNoPasswordsFile) != cloud.SSHDNoPasswords {
		t.Errorf("user_data does not turn SSH password login off:\n%s", ud)
	}
	e.mu.Lock()
	e.userDat = append(e.userDat, ud)
	e.mu.Unlock()
}

func (e *env) plan(ctx context.Context) *cloud.Plan {
	e.t.Helper()
	p, err := e.d.Plan(ctx, e.spec)
	if err != nil {
		e.t.Fatalf("plan: %v", err)
	}
	return p
}

func (e *env) journal() (*cloud.FileJournal, string) {
	e.t.Helper()
	path := filepath.Join(e.spec.Run.Dir, cloud.JournalFile)
	j, err := cloud.OpenJournal(path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { j.Close() })
	return j, path
}

func journalLines(t *testing.T, path string) []string {
	t.Helper()
	evs, err := cloud.ReadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		s := e.Phase + " " + e.Op + " " + e.Kind + " " + e.Name
		if e.ID != "" {
			s += " #" + e.ID
		}
		out = append(out, s)
	}
	return out
}

func wantLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n--- got\n%s\n--- want\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The happy path: plan, create the server and one load generator, then down.
func TestUpAndDown(t *testing.T) {
	e := newEnv(t, nil)
	reqs := planRequests()
	reqs = append(reqs, e.createPrefix()...)
	reqs = append(reqs,
		e.serverCreate("wptest-t1-server", 40, 400, nil),
		e.serverCreate("wptest-t1-loadgen-1", 41, 410, nil),
		actions("success", 400, 401, 410, 411),
	)
	// Once the load generator has its address, the web ports open to it alone.
	reqs = append(reqs, setRules(func(t *testing.T, r *http.Request) {
		wantRules(t, body(t, r), "in 22/tcp [0.0.0.0/0 ::/0]", "in 80/tcp [203.0.113.41/32]", "in 443/tcp [203.0.113.41/32]", "in 443/udp [203.0.113.41/32]")
	})...)
	reqs = append(reqs, destroyRequests(srv{40, "s40"}, srv{41, "s41"})...)
	e.srv.Expect(reqs)
	ctx := context.Background()

	p := e.plan(ctx)
	var pt bytes.Buffer
	p.WriteText(&pt)
	for _, want := range []string{"wptest-t1-server", "wptest-t1-loadgen-1", "ccx23 in fsn1, image alma-9 (id 114690387)", "cost: 0.0952 EUR per hour",
		"firewall wptest-t1 (in: 22/tcp from anywhere, key-only; 80/tcp, 443/tcp, 443/udp from the load generators)"} {
		if !strings.Contains(pt.String(), want) {
			t.Errorf("plan text lacks %q:\n%s", want, pt.String())
		}
	}
	if p.HourlyEach != "0.0476" || p.HourlyGross != "0.0952" || p.Currency != "EUR" {
		t.Errorf("price: each %q total %q currency %q", p.HourlyEach, p.HourlyGross, p.Currency)
	}

	j, jpath := e.journal()
	ms, err := e.d.Create(ctx, p, j)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if len(ms) != 2 || ms[0].Role != cloud.RoleServer || ms[1].Role != cloud.RoleLoadGen || ms[0].Address != "203.0.113.40" || ms[1].ID != "41" || ms[0].ImageID != 114690387 {
		t.Fatalf("machines: %+v", ms)
	}
	// The pinned keys are the ones injected, one per server, all different.
	kh, err := os.ReadFile(filepath.Join(e.spec.Run.Dir, cloud.KnownHostsFile))
	if err != nil {
		t.Fatal(err)
	}
	khLines := strings.Split(strings.TrimSpace(string(kh)), "\n")
	if len(khLines) != 2 || len(e.userDat) != 2 {
		t.Fatalf("known_hosts %q, %d user_data", kh, len(e.userDat))
	}
	for i, ud := range e.userDat {
		pub := ms[i].HostKey
		if !strings.Contains(ud, "ed25519_public: "+pub) || !strings.HasPrefix(khLines[i], ms[i].Address+" ") ||
			!strings.Contains(khLines[i], strings.Fields(pub)[1]) {
			t.Errorf("machine %d: injected key, pinned key and known_hosts disagree:\n%s\n%s", i, khLines[i], pub)
		}
	}
	if ms[0].HostKey == ms[1].HostKey {
		t.Error("two servers share a host key")
	}
	// The run records the rules it asked for.
	rules, err := cloud.ReadFirewall(e.spec.Run.Dir)
	if err != nil || len(rules) != 4 || fmt.Sprint(rules[0].Sources) != "[0.0.0.0/0 ::/0]" || fmt.Sprint(rules[3]) != "443/udp from 203.0.113.41/32" {
		t.Errorf("firewall.json: %v (%v)", rules, err)
	}

	if err := e.d.Destroy(ctx, cloud.Selector{Run: runID, Journal: j}); err != nil {
		t.Fatalf("destroy: %v", err)
	}
	wantLines(t, "journal", journalLines(t, jpath), []string{
		"before create ssh_key wptest-t1", "after create ssh_key wptest-t1 #10",
		"before create placement_group wptest-t1", "after create placement_group wptest-t1 #20",
		"before create firewall wptest-t1", "after create firewall wptest-t1 #30",
		"before create server wptest-t1-server", "after create server wptest-t1-server #40",
		"before create server wptest-t1-loadgen-1", "after create server wptest-t1-loadgen-1 #41",
		"before set_rules firewall wptest-t1", "after set_rules firewall wptest-t1 #30",
		"before delete server s40", "after delete server s40 #40",
		"before delete server s41", "after delete server s41 #41",
		"before delete firewall wptest-t1", "after delete firewall wptest-t1 #30",
		"before delete placement_group wptest-t1", "after delete placement_group wptest-t1 #20",
		"before delete ssh_key wptest-t1", "after delete ssh_key wptest-t1 #10",
		"gone sweep run t1",
	})
	e.noSecrets(t, string(kh), pt.String())
}

// noSecrets greps everything the run printed or logged for the token and
// every private key (the client key and each injected host key).
func (e *env) noSecrets(t *testing.T, extra ...string) {
	t.Helper()
	var secrets []string
	secrets = append(secrets, testToken)
	for _, ud := range e.userDat {
		k, err := cloud.HostKeyFromCloudInit(ud)
		if err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, pemBody(k)...)
	}
	ck, err := os.ReadFile(filepath.Join(e.spec.Run.Dir, cloud.ClientKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	secrets = append(secrets, pemBody(string(ck))...)
	jr, _ := os.ReadFile(filepath.Join(e.spec.Run.Dir, cloud.JournalFile))
	outputs := map[string]string{"log": e.log.String(), "debug": e.debug.String(), "journal": string(jr)}
	for i, x := range extra {
		outputs[fmt.Sprint("extra", i)] = x
	}
	if !strings.Contains(e.debug.String(), "user_data") || !strings.Contains(e.debug.String(), cloud.Mask) {
		t.Errorf("the debug dump should show the (redacted) user_data; got %d bytes", len(e.debug.String()))
	}
	for name, out := range outputs {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%s output leaks a secret (%.12s...)", name, s)
			}
		}
	}
}

// pemBody returns the base64 lines of a PEM key: any one of them in the
// output is a leak.
func pemBody(k string) []string {
	var out []string
	for _, l := range strings.Split(k, "\n") {
		if l != "" && !strings.HasPrefix(l, "-----") {
			out = append(out, l)
		}
	}
	return out
}

func TestPlanRefusesUnavailableType(t *testing.T) {
	reqs := planRequests()[:2]
	reqs[1].JSON = map[string]any{"server_types": []any{serverType(false)}}
	e := newEnv(t, reqs)
	_, err := e.d.Plan(context.Background(), e.spec)
	if exitcode.Of(err) != exitcode.Capacity || !strings.Contains(fmt.Sprint(err), "not available in fsn1") || !strings.Contains(fmt.Sprint(err), "available in: nbg1") {
		t.Fatalf("err = %v (code %d), want capacity naming fsn1 and nbg1", err, exitcode.Of(err))
	}
}

func TestPlanBadToken(t *testing.T) {
	e := newEnv(t, []mockutil.Request{{Method: "GET", Path: "/locations?name=fsn1", Status: 401,
		JSON: map[string]any{"error": map[string]any{"code": "unauthorized", "message": "unable to authenticate"}}}})
	_, err := e.d.Plan(context.Background(), e.spec)
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(fmt.Sprint(err), "token was rejected") || strings.Contains(fmt.Sprint(err), testToken) {
		t.Fatalf("err = %v (code %d)", err, exitcode.Of(err))
	}
}

// resource_unavailable on server create: exit 3, and the key, placement
// group and firewall already made are removed.
func TestCreateResourceUnavailable(t *testing.T) {
	e := newEnv(t, nil)
	reqs := append(planRequests(), e.createPrefix()...)
	su := e.serverCreate("wptest-t1-server", 40, 400, nil)
	su.Status, su.JSON = 412, map[string]any{"error": map[string]any{"code": "resource_unavailable", "message": "error during placement"}}
	reqs = append(reqs, su)
	reqs = append(reqs, destroyRequests()...)
	e.srv.Expect(reqs)
	ctx := context.Background()
	j, jpath := e.journal()
	_, err := e.d.Create(ctx, e.plan(ctx), j)
	if exitcode.Of(err) != exitcode.Capacity || !strings.Contains(fmt.Sprint(err), "does not fall back") {
		t.Fatalf("err = %v (code %d), want capacity", err, exitcode.Of(err))
	}
	lines := journalLines(t, jpath)
	wantLines(t, "journal", lines[6:9], []string{
		"before create server wptest-t1-server", "failed create server wptest-t1-server",
		"before delete firewall wptest-t1"})
	if u := cloud.Unfinished(mustRead(t, jpath)); len(u) != 0 {
		t.Errorf("unfinished after a confirmed cleanup: %+v", u)
	}
}

// A server's create action fails: exit 4, everything made is removed.
func TestCreateActionFails(t *testing.T) {
	e := newEnv(t, nil)
	reqs := append(planRequests(), e.createPrefix()...)
	reqs = append(reqs,
		e.serverCreate("wptest-t1-server", 40, 400, nil),
		e.serverCreate("wptest-t1-loadgen-1", 41, 410, nil),
		actions("error", 400, 401, 410, 411))
	reqs = append(reqs, destroyRequests(srv{40, "wptest-t1-server"}, srv{41, "wptest-t1-loadgen-1"})...)
	e.srv.Expect(reqs)
	ctx := context.Background()
	j, _ := e.journal()
	ms, err := e.d.Create(ctx, e.plan(ctx), j)
	if exitcode.Of(err) != exitcode.Provision || ms != nil || !strings.Contains(fmt.Sprint(err), "action failed") {
		t.Fatalf("err = %v (code %d), machines %v", err, exitcode.Of(err), ms)
	}
}

// cancelJournal cancels the run (Ctrl-C) once the first server exists.
type cancelJournal struct {
	cloud.Journal
	cancel func()
}

func (c cancelJournal) Append(e cloud.Event) error {
	err := c.Journal.Append(e)
	if e.Phase == cloud.PhaseAfter && e.Op == "create" && e.Kind == "server" {
		c.cancel()
	}
	return err
}

// Ctrl-C after the first server was created: the second is never
// requested, and the first, the firewall, placement group and key are
// deleted on a context that is not cancelled.
func TestCancelAfterFirstServer(t *testing.T) {
	e := newEnv(t, nil)
	reqs := append(planRequests(), e.createPrefix()...)
	reqs = append(reqs, e.serverCreate("wptest-t1-server", 40, 400, nil))
	reqs = append(reqs, destroyRequests(srv{40, "wptest-t1-server"})...)
	e.srv.Expect(reqs)
	p := e.plan(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	j, jpath := e.journal()
	_, err := e.d.Create(ctx, p, cancelJournal{j, cancel})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if exitcode.Of(err) == exitcode.Teardown {
		t.Fatalf("cleanup reported incomplete: %v", err)
	}
	lines := journalLines(t, jpath)
	wantLines(t, "journal after the first server", lines[7:], []string{
		"after create server wptest-t1-server #40",
		"before create server wptest-t1-loadgen-1", "failed create server wptest-t1-loadgen-1",
		"before delete server wptest-t1-server", "after delete server wptest-t1-server #40",
		"before delete firewall wptest-t1", "after delete firewall wptest-t1 #30",
		"before delete placement_group wptest-t1", "after delete placement_group wptest-t1 #20",
		"before delete ssh_key wptest-t1", "after delete ssh_key wptest-t1 #10",
		"gone sweep run t1",
	})
}

// Neither Destroy nor List accepts an empty selector, and no API call is made.
func TestEmptySelectorRefused(t *testing.T) {
	e := newEnv(t, nil) // no request expected: any call fails the test
	for _, s := range []cloud.Selector{{}, {AllRuns: true}} {
		if err := e.d.Destroy(context.Background(), s); !errors.Is(err, cloud.ErrEmptySelector) {
			t.Errorf("Destroy(%+v) = %v", s, err)
		}
	}
	if _, err := e.d.List(context.Background(), cloud.Selector{}); !errors.Is(err, cloud.ErrEmptySelector) {
		t.Errorf("List({}) = %v", err)
	}
}

func mustRead(t *testing.T, path string) []cloud.Event {
	t.Helper()
	evs, err := cloud.ReadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestPlanSSHFromThisHost: with allow_ssh_from not given and this host's
// public address known (its interfaces'), the plan's firewall lets SSH in
// from that address alone and a note says where it came from; behind NAT
// it stays anywhere (key-only) and the note says the address is not known.
func TestPlanSSHFromThisHost(t *testing.T) {
	for _, c := range []struct {
		addrs     []netip.Addr
		firewall  string
		note      string
		wantRules string
	}{
		{[]netip.Addr{netip.MustParseAddr("10.0.0.5"), netip.MustParseAddr("95.216.10.20")}, "22/tcp from 95.216.10.20/32;", "this host's public address", "22/tcp from 95.216.10.20/32"},
		{[]netip.Addr{netip.MustParseAddr("10.0.0.5")}, "22/tcp from anywhere, key-only;", "not known here", "22/tcp from 0.0.0.0/0, ::/0"},
	} {
		e := newEnv(t, planRequests())
		e.spec.Machines.SSHFromThisHost(c.addrs)
		p := e.plan(context.Background())
		var pt bytes.Buffer
		p.WriteText(&pt)
		if !strings.Contains(pt.String(), c.firewall) || !strings.Contains(pt.String(), c.note) {
			t.Errorf("plan for %v lacks %q or a note %q:\n%s", c.addrs, c.firewall, c.note, pt.String())
		}
		rules, err := cloud.FirewallRules(e.spec.Machines, nil)
		if err != nil || len(rules) == 0 || rules[0].String() != c.wantRules {
			t.Errorf("firewall rules for %v: %v %v, want first %q", c.addrs, rules, err, c.wantRules)
		}
	}
}

// Debian 13 (Hetzner's "debian-13", the release with the post's PHP 8.4 as
// Debian's own package) is as good an image as the default: resolved to
// its ID for the type's architecture, every machine made from it.
func TestPlanDebian13Image(t *testing.T) {
	reqs := planRequests()
	reqs[2] = mockutil.Request{Method: "GET", Path: "/images?architecture=x86&include_deprecated=true&name=debian-13", Status: 200, JSON: map[string]any{
		"images": []any{map[string]any{"id": 310557660, "name": "debian-13", "type": "system", "architecture": "x86", "os_flavor": "debian", "os_version": "13"}}}}
	e := newEnv(t, reqs)
	e.spec.Machines = e.spec.Machines.With("image", "debian-13")
	p, err := e.d.Plan(context.Background(), e.spec)
	if err != nil {
		t.Fatal(err)
	}
	var pt bytes.Buffer
	p.WriteText(&pt)
	if len(p.Machines) != 2 || !strings.Contains(pt.String(), "ccx23 in fsn1, image debian-13 (id 310557660)") {
		t.Fatalf("plan for image debian-13:\n%s", pt.String())
	}
	for _, m := range p.Machines {
		if m.Image != "debian-13" || m.ImageID != 310557660 {
			t.Errorf("%s: image %s (id %d), want debian-13 (id 310557660)", m.Name, m.Image, m.ImageID)
		}
	}
}
