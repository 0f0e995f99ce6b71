package cli

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/exp/mockutil"
	"golang.org/x/crypto/ssh"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/provision/cloud"
)

const cliToken = "clitok-9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b"

// cliMock is the Hetzner API as hcloud-go calls it for a one-server run t1
// whose server gets the address ip.
func cliMock(ip string, captured chan<- [2]string) []mockutil.Request {
	sel := "wptest%3D1%2Cwptest%2Frun%3Dt1"
	var clientPub string
	return []mockutil.Request{
		{Method: "GET", Path: "/locations?name=fsn1", Status: 200, JSON: map[string]any{"locations": []any{map[string]any{"id": 1, "name": "fsn1"}}}},
		{Method: "GET", Path: "/server_types?name=ccx23", Status: 200, JSON: map[string]any{"server_types": []any{map[string]any{
			"id": 98, "name": "ccx23", "architecture": "x86",
			"prices":    []any{map[string]any{"location": "fsn1", "price_hourly": map[string]any{"net": "0.0400", "gross": "0.0476"}}},
			"locations": []any{map[string]any{"id": 1, "name": "fsn1", "available": true}}}}}},
		{Method: "GET", Path: "/images?architecture=x86&include_deprecated=true&name=alma-9", Status: 200, JSON: map[string]any{"images": []any{map[string]any{"id": 114690387, "name": "alma-9"}}}},
		{Method: "GET", Path: "/pricing", Status: 200, JSON: map[string]any{"pricing": map[string]any{"currency": "EUR"}}},
		{Method: "POST", Path: "/ssh_keys", Status: 201, Want: func(t *testing.T, r *http.Request) {
			var b struct {
				PublicKey string `json:"public_key"`
			}
			_ = json.NewDecoder(r.Body).Decode(&b)
			clientPub = b.PublicKey
		}, JSON: map[string]any{"ssh_key": map[string]any{"id": 10, "name": "wptest-t1"}}},
		{Method: "POST", Path: "/placement_groups", Status: 201, JSON: map[string]any{"placement_group": map[string]any{"id": 20, "name": "wptest-t1", "type": "spread", "servers": []any{}}}},
		{Method: "POST", Path: "/firewalls", Status: 201, JSON: map[string]any{"firewall": map[string]any{"id": 30, "name": "wptest-t1"}, "actions": []any{}}},
		{Method: "POST", Path: "/servers", Status: 201, Want: func(t *testing.T, r *http.Request) {
			var b struct {
				UserData string `json:"user_data"`
			}
			_ = json.NewDecoder(r.Body).Decode(&b)
			captured <- [2]string{b.UserData, clientPub}
		}, JSON: map[string]any{
			"server": map[string]any{"id": 40, "name": "wptest-t1-server", "public_net": map[string]any{"ipv4": map[string]any{"ip": ip}}},
			"action": map[string]any{"id": 400, "status": "running"}, "next_actions": []any{}}},
		{Method: "GET", Path: "/actions?id=400&page=1&sort=status&sort=id", Status: 200, JSON: map[string]any{"actions": []any{map[string]any{"id": 400, "status": "success"}}}},
		// wptest down --run t1
		{Method: "GET", Path: "/servers?label_selector=" + sel + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"servers": []any{map[string]any{"id": 40, "name": "wptest-t1-server"}}}},
		{Method: "DELETE", Path: "/servers/40", Status: 200, JSON: map[string]any{"action": map[string]any{"id": 940, "status": "running"}}},
		{Method: "GET", Path: "/actions?id=940&page=1&sort=status&sort=id", Status: 200, JSON: map[string]any{"actions": []any{map[string]any{"id": 940, "status": "success"}}}},
		{Method: "GET", Path: "/firewalls?label_selector=" + sel + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"firewalls": []any{map[string]any{"id": 30, "name": "wptest-t1"}}}},
		{Method: "DELETE", Path: "/firewalls/30", Status: 204},
		{Method: "GET", Path: "/placement_groups?label_selector=" + sel + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"placement_groups": []any{map[string]any{"id": 20, "name": "wptest-t1", "type": "spread", "servers": []any{}}}}},
		{Method: "DELETE", Path: "/placement_groups/20", Status: 204},
		{Method: "GET", Path: "/ssh_keys?label_selector=" + sel + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"ssh_keys": []any{map[string]any{"id": 10, "name": "wptest-t1"}}}},
		{Method: "DELETE", Path: "/ssh_keys/10", Status: 204},
		// the label lists nothing any more
		{Method: "GET", Path: "/servers?label_selector=" + sel + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"servers": []any{}}},
		{Method: "GET", Path: "/firewalls?label_selector=" + sel + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"firewalls": []any{}}},
		{Method: "GET", Path: "/placement_groups?label_selector=" + sel + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"placement_groups": []any{}}},
		{Method: "GET", Path: "/ssh_keys?label_selector=" + sel + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"ssh_keys": []any{}}},
	}
}

type cliRun struct {
	code           int
	stdout, stderr string
}

func runIn(dir string, env []string, args ...string) cliRun {
	var out, errb bytes.Buffer
	code := Run(context.Background(), &App{Args: args, Env: env, Stdout: &out, Stderr: &errb, WorkDir: dir})
	return cliRun{code, out.String(), errb.String()}
}

// wptest machines up, then wptest down, against the mocked API and a real
// sshd in a network namespace that serves the host key the run injected:
// the whole path a user runs, and every byte it printed or logged searched
// for the token and the private keys.
func TestMachinesUpDownEndToEnd(t *testing.T) {
	ns := testenv.NewNetNS(t)
	captured := make(chan [2]string, 1)
	mock := mockutil.NewServer(t, cliMock(ns.NSIP, captured))
	dir := t.TempDir()
	env := []string{"HCLOUD_TOKEN=" + cliToken, "HCLOUD_ENDPOINT=" + mock.URL, "HOME=" + dir, "USER=tester"}

	done := make(chan cliRun, 1)
	go func() {
		done <- runIn(dir, env, "machines", "up", "--run", "t1", "--profile", "cpanel-apache", "-var", "load_generators=0", "--debug-file", "debug.log", "--wait", "60s")
	}()
	var userData, clientPub string
	select {
	case c := <-captured:
		userData, clientPub = c[0], c[1]
	case r := <-done:
		t.Fatalf("up ended before creating a server: %+v", r)
	case <-time.After(60 * time.Second):
		t.Fatal("no server create within 60s")
	}
	// cloud-init's part: sshd gets the injected key (and an ECDSA key such
	// as RHEL images regenerate) and the run's client key.
	hostKey, err := cloud.HostKeyFromCloudInit(userData)
	if err != nil {
		t.Fatal(err)
	}
	ns.StartSSHD(t, []string{ecdsaKeyPEM(t), hostKey}, []string{clientPub})
	var up cliRun
	select {
	case up = <-done:
	case <-time.After(90 * time.Second):
		t.Fatal("machines up did not finish")
	}
	if up.code != 0 || !strings.Contains(up.stdout, "wptest-t1-server") || !strings.Contains(up.stdout, ns.NSIP) {
		t.Fatalf("machines up: code %d\nstdout:\n%s\nstderr:\n%s", up.code, up.stdout, up.stderr)
	}
	if !strings.Contains(up.stderr, "wptest down --run t1") {
		t.Errorf("up does not say how to remove the run:\n%s", up.stderr)
	}
	runDir := filepath.Join(dir, "runs", "t1")
	kh, _ := os.ReadFile(filepath.Join(runDir, cloud.KnownHostsFile))
	if !strings.HasPrefix(string(kh), ns.NSIP+" ssh-ed25519 ") {
		t.Errorf("run known_hosts = %q", kh)
	}

	down := runIn(dir, env, "down", "--run", "t1", "--debug-file", "debug.log")
	if down.code != 0 || !strings.Contains(down.stderr, "run t1 removed") {
		t.Fatalf("down: code %d\n%s", down.code, down.stderr)
	}
	evs, err := cloud.ReadJournal(filepath.Join(runDir, cloud.JournalFile))
	if err != nil || len(evs) != 17 || evs[16].Phase != cloud.PhaseGone || len(cloud.Unfinished(evs)) != 0 {
		t.Errorf("journal: %d events, err %v, unfinished %v", len(evs), err, cloud.Unfinished(evs))
	}

	// No secret anywhere.
	clientKey, _ := os.ReadFile(filepath.Join(runDir, cloud.ClientKeyFile))
	secrets := append([]string{cliToken}, pemLines(hostKey)...)
	secrets = append(secrets, pemLines(string(clientKey))...)
	debug, _ := os.ReadFile(filepath.Join(dir, "debug.log"))
	if !strings.Contains(string(debug), `"user_data"`) || !strings.Contains(string(debug), cloud.Mask) {
		t.Errorf("debug log should hold the redacted create request (%d bytes)", len(debug))
	}
	outputs := map[string]string{"up stdout": up.stdout, "up stderr": up.stderr, "down stderr": down.stderr, "down stdout": down.stdout, "debug.log": string(debug)}
	for _, f := range []string{cloud.JournalFile, cloud.MachinesFile, stage.RunInfoFile, cloud.KnownHostsFile} {
		b, _ := os.ReadFile(filepath.Join(runDir, f))
		outputs[f] = string(b)
	}
	for name, out := range outputs {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%s leaks a secret (%.10s...)", name, s)
			}
		}
	}
}

func pemLines(k string) []string {
	var out []string
	for _, l := range strings.Split(k, "\n") {
		if l != "" && !strings.HasPrefix(l, "-----") {
			out = append(out, l)
		}
	}
	return out
}

func ecdsaKeyPEM(t *testing.T) string {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	blk, err := ssh.MarshalPrivateKey(k, "")
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(blk))
}

// down and gc never widen a delete: no run, no API call.
func TestDownRefusesEmptySelector(t *testing.T) {
	mock := mockutil.NewServer(t, nil) // any API call fails the test
	env := []string{"HCLOUD_TOKEN=" + cliToken, "HCLOUD_ENDPOINT=" + mock.URL}
	for _, args := range [][]string{{"down"}, {"down", "--run", ""}} {
		r := runIn(t.TempDir(), env, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "empty selector") {
			t.Errorf("%v: code %d stderr %q", args, r.code, r.stderr)
		}
	}
	r := runIn(t.TempDir(), env, "down", "--run", "t1,wptest/run")
	if r.code != 2 {
		t.Errorf("selector injection: code %d stderr %q", r.code, r.stderr)
	}
}

// No token: a config error that says where to put it, before any API call.
func TestNoTokenIsConfigError(t *testing.T) {
	r := runIn(t.TempDir(), []string{"HOME=" + t.TempDir()}, "machines", "plan")
	if r.code != 2 || !strings.Contains(r.stderr, "HCLOUD_TOKEN") {
		t.Fatalf("code %d stderr %q", r.code, r.stderr)
	}
}

// Capacity at plan time: exit 3 and no fallback to another location.
func TestPlanCapacityExit3(t *testing.T) {
	mock := mockutil.NewServer(t, []mockutil.Request{
		{Method: "GET", Path: "/locations?name=hel1", Status: 200, JSON: map[string]any{"locations": []any{map[string]any{"id": 3, "name": "hel1"}}}},
		{Method: "GET", Path: "/server_types?name=ccx23", Status: 200, JSON: map[string]any{"server_types": []any{map[string]any{
			"id": 98, "name": "ccx23", "architecture": "x86",
			"locations": []any{map[string]any{"id": 3, "name": "hel1", "available": false}, map[string]any{"id": 1, "name": "fsn1", "available": true}}}}}},
	})
	r := runIn(t.TempDir(), []string{"HCLOUD_TOKEN=" + cliToken, "HCLOUD_ENDPOINT=" + mock.URL}, "machines", "plan", "-var", "location=hel1")
	if r.code != 3 || !strings.Contains(r.stderr, "not available in hel1") || !strings.Contains(r.stderr, "does not fall back") {
		t.Fatalf("code %d stderr %q", r.code, r.stderr)
	}
}

// gc lists every run by label and removes only the expired ones; here none.
func TestGCNothingExpired(t *testing.T) {
	all := "wptest%3D1%2Cwptest%2Frun"
	live := map[string]any{"id": 40, "name": "wptest-live-server", "labels": map[string]any{"wptest": "1", "wptest/run": "live", "wptest/expires": "4102444800"}}
	mock := mockutil.NewServer(t, []mockutil.Request{
		{Method: "GET", Path: "/servers?label_selector=" + all + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"servers": []any{live}}},
		{Method: "GET", Path: "/firewalls?label_selector=" + all + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"firewalls": []any{}}},
		{Method: "GET", Path: "/placement_groups?label_selector=" + all + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"placement_groups": []any{}}},
		{Method: "GET", Path: "/ssh_keys?label_selector=" + all + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"ssh_keys": []any{}}},
	})
	r := runIn(t.TempDir(), []string{"HCLOUD_TOKEN=" + cliToken, "HCLOUD_ENDPOINT=" + mock.URL}, "gc")
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("gc: code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

// Even an API error that echoes the token (a misbehaving proxy) reaches
// stderr masked: the final error goes through the redactor too.
func TestErrorsAreRedacted(t *testing.T) {
	mock := mockutil.NewServer(t, []mockutil.Request{
		{Method: "GET", Path: "/locations?name=fsn1", Status: 401,
			JSON: map[string]any{"error": map[string]any{"code": "unauthorized", "message": "bad token " + cliToken}}},
	})
	r := runIn(t.TempDir(), []string{"HCLOUD_TOKEN=" + cliToken, "HCLOUD_ENDPOINT=" + mock.URL}, "machines", "plan")
	if r.code != 2 || strings.Contains(r.stderr, cliToken) || !strings.Contains(r.stderr, "bad token "+cloud.Mask) {
		t.Fatalf("code %d stderr %q", r.code, r.stderr)
	}
}

// The static driver: a host the user already has (a namespace here), pinned
// by the user's known_hosts file, which is copied into the run's own; a
// host missing from that file is refused at plan time.
func TestMachinesUpStatic(t *testing.T) {
	ns := testenv.NewNetNS(t)
	dir := t.TempDir()
	hostKey, err := cloud.NewKeyPair(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	client, err := cloud.ClientKey(filepath.Join(dir, "me"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ns.StartSSHD(t, []string{hostKey.PrivatePEM}, []string{client.Public})
	line, err := cloud.KnownHostsLine(ns.NSIP, 22, hostKey.Public)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hosts.known"), []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	target := "ssh://root@" + ns.NSIP
	r := runIn(dir, nil, "machines", "up", "--run", "s1", "--target", target, "--known-hosts", "hosts.known", "--identity", "me/id_ed25519", "--wait", "30s")
	if r.code != 0 || !strings.Contains(r.stdout, "server") || !strings.Contains(r.stdout, ns.NSIP) {
		t.Fatalf("static up: code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	// Given machines: nothing for `wptest down` to remove, so no hint to run it.
	if strings.Contains(r.stderr, "wptest down") || !strings.Contains(r.stderr, "nothing to remove") {
		t.Errorf("static up tells the user to remove given machines:\n%s", r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "runs", "s1", cloud.KnownHostsFile)); string(b) != line+"\n" {
		t.Errorf("run known_hosts = %q", b)
	}
	// The run's machines are targets for the other commands, pinned by the
	// run's own known_hosts (not the file given to `machines up`).
	if err := os.Remove(filepath.Join(dir, "hosts.known")); err != nil {
		t.Fatal(err)
	}
	if p := runIn(dir, nil, "plan", "--profile", "caddy", "--target", "run:s1", "-o", "json"); p.code != 0 || !strings.Contains(p.stdout, `"file.caddyfile"`) || !strings.Contains(p.stdout, `"mode": "plan"`) {
		t.Errorf("plan --target run:s1: code %d\nstdout %.300s\nstderr %s", p.code, p.stdout, p.stderr)
	}
	if p := runIn(dir, nil, "plan", "--profile", "caddy", "--target", "run:s1/nosuch"); p.code != 2 || !strings.Contains(p.stderr, `no machine "nosuch"`) {
		t.Errorf("plan --target run:s1/nosuch: code %d stderr %s", p.code, p.stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "hosts.known"), []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if d := runIn(dir, nil, "down", "--run", "s1"); d.code != 0 {
		t.Errorf("static down: %+v", d)
	}
	r = runIn(dir, nil, "machines", "plan", "--target", "ssh://root@192.0.2.9", "--known-hosts", "hosts.known")
	if r.code != 2 || !strings.Contains(r.stderr, "192.0.2.9:22 has no pin") {
		t.Errorf("unpinned static target: code %d stderr %q", r.code, r.stderr)
	}
}
