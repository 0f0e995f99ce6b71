package hetzner

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"
	"github.com/hetznercloud/hcloud-go/v2/hcloud/exp/mockutil"

	"github.com/wptest/wptest/provision/cloud"
)

// killJournal kills its own process (SIGKILL: no deferred cleanup, no signal
// handler) just before the journal's "after" line for the first server: the
// crash Packer cannot recover from (packer #8346).
type killJournal struct{ cloud.Journal }

func (k killJournal) Append(e cloud.Event) error {
	if e.Phase == cloud.PhaseAfter && e.Kind == "server" {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	return k.Journal.Append(e)
}

// TestMain doubles as the process that crashes: started by
// TestCrashAfterCreateThenDown with WPTEST_CRASH_ENDPOINT set, it plans and
// creates against the parent's mock API and is killed mid-create.
func TestMain(m *testing.M) {
	if endpoint := os.Getenv("WPTEST_CRASH_ENDPOINT"); endpoint != "" {
		crashChild(endpoint, os.Getenv("WPTEST_CRASH_DIR"))
		os.Exit(3) // not reached: crashChild is killed
	}
	os.Exit(m.Run())
}

func crashChild(endpoint, dir string) {
	d, err := New(Options{Credentials: Credentials{Token: testToken, Endpoint: endpoint}, Backoff: hcloud.ConstantBackoff(time.Millisecond)})
	if err != nil {
		log.Fatal(err)
	}
	spec := cloud.Spec{Machines: cloud.DefaultMachines("hetzner"), Run: cloud.Run{ID: runID, Dir: dir, Profile: "cpanel-apache", Owner: "root@ci",
		Created: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), TTL: 6 * time.Hour}}
	ctx := context.Background()
	p, err := d.Plan(ctx, spec)
	if err != nil {
		log.Fatal(err)
	}
	j, err := cloud.OpenJournal(filepath.Join(dir, cloud.JournalFile), nil)
	if err != nil {
		log.Fatal(err)
	}
	_, err = d.Create(ctx, p, killJournal{j})
	log.Fatalf("Create returned (%v); the process should have been killed", err)
}

// A process killed right after the API created a server, before the journal
// recorded it: the journal shows an unfinished create, and down finds the
// server (and the rest) by label and deletes it.
func TestCrashAfterCreateThenDown(t *testing.T) {
	e := newEnv(t, nil)
	reqs := append(planRequests(), e.createPrefix()...)
	reqs = append(reqs, e.serverCreate("wptest-t1-server", 40, 400, nil))
	// After the crash: wptest down --run t1.
	reqs = append(reqs, destroyRequests(srv{40, "s40"})...)
	e.srv.Expect(reqs)

	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "WPTEST_CRASH_ENDPOINT="+e.srv.URL, "WPTEST_CRASH_DIR="+e.spec.Run.Dir)
	out, err := cmd.CombinedOutput()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if err == nil || !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child was not killed: %v\n%s", err, out)
	}

	jpath := filepath.Join(e.spec.Run.Dir, cloud.JournalFile)
	lines := journalLines(t, jpath)
	if got := lines[len(lines)-1]; got != "before create server wptest-t1-server" {
		t.Fatalf("journal ends with %q", got)
	}
	evs, _ := cloud.ReadJournal(jpath)
	if u := cloud.Unfinished(evs); len(u) != 1 || u[0].Name != "wptest-t1-server" {
		t.Fatalf("unfinished = %+v", u)
	}

	j, err := cloud.OpenJournal(jpath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := e.d.Destroy(context.Background(), cloud.Selector{Run: runID, Journal: j}); err != nil {
		t.Fatalf("down after crash: %v", err)
	}
	lines = journalLines(t, jpath)
	if !strings.Contains(strings.Join(lines, "\n"), "after delete server s40 #40") {
		t.Fatalf("journal after down:\n%s", strings.Join(lines, "\n"))
	}
	// down confirmed by label that nothing is left: the journal no longer
	// reports the create it never saw end.
	evs, _ = cloud.ReadJournal(jpath)
	if u := cloud.Unfinished(evs); len(u) != 0 {
		t.Fatalf("unfinished after down: %+v", u)
	}
}

// gc removes the expired run by its own label and leaves the live one.
func TestGCRemovesOnlyExpiredRuns(t *testing.T) {
	all := "wptest%3D1%2Cwptest%2Frun"
	res := func(kind string, id int64, run string, expires int64) map[string]any {
		m := map[string]any{"id": id, "name": fmt.Sprintf("wptest-%s", run),
			"labels": map[string]any{"wptest": "1", "wptest/run": run, "wptest/expires": fmt.Sprint(expires)}}
		if kind == "placement_groups" {
			m["type"], m["servers"] = "spread", []any{}
		}
		return m
	}
	now := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	old, live := now.Add(-time.Hour).Unix(), now.Add(time.Hour).Unix()
	reqs := []mockutil.Request{
		{Method: "GET", Path: "/servers?label_selector=" + all + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"servers": []any{res("servers", 40, "t1", old), res("servers", 50, "t2", live)}}},
		{Method: "GET", Path: "/firewalls?label_selector=" + all + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"firewalls": []any{res("firewalls", 30, "t1", old)}}},
		{Method: "GET", Path: "/placement_groups?label_selector=" + all + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"placement_groups": []any{res("placement_groups", 20, "t1", old)}}},
		{Method: "GET", Path: "/ssh_keys?label_selector=" + all + "&page=1&per_page=50", Status: 200, JSON: map[string]any{"ssh_keys": []any{res("ssh_keys", 10, "t1", old)}}},
	}
	reqs = append(reqs, destroyRequests(srv{40, "s40"})...)
	e := newEnv(t, reqs)
	var log strings.Builder
	removed, err := cloud.GC(context.Background(), e.d, now, false, &log)
	if err != nil || fmt.Sprint(removed) != "[t1]" {
		t.Fatalf("gc: removed %v, err %v\n%s", removed, err, log.String())
	}
}
