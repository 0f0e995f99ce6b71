package experiment_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/cloud/netns/machine"
	"github.com/wptest/wptest/results"
)

const undoneHCL = `
experiment "undone" {
  repetitions = 1
  http_port   = 80
  https_port  = 443
}

machines "netns" {
  image           = %q
  load_generators = 1
}

fixture "minimal" {
  seed = 1
}

profile "caddy" {}

scenario "page" {
  kind     = "page"
  path     = "/"
  visitors = [2]
  requests = 10
  duration = "0s"
}
`

// A run whose load generators step fails on hostile input (an agent that
// is a shell script planted for it, not a Linux executable: refused before
// it is copied anywhere) undoes what the steps before it made, in reverse:
// the server connection closed, then the netns machines it created removed
// and their removal journaled before the journal closes, even with Keep
// (kept only after a run that succeeded). The error, and the session in
// the manifest, name the step.
func TestFailedStepUndoesTheStepsBeforeIt(t *testing.T) {
	testenv.Integration(t)
	testenv.NeedRoot(t)
	testenv.Need(t, machine.Check() == nil, fmt.Sprintf("netns machines: %v", machine.Check()))
	work := t.TempDir()
	marker := filepath.Join(work, "pwned")
	agent := filepath.Join(work, "wptest")
	if err := os.WriteFile(agent, []byte("#!/bin/sh\ntouch '"+marker+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := []byte(fmt.Sprintf(undoneHCL, testenv.BarePlatform(testenv.BareSuite(t))))
	sp, err := experiment.Load("undone.hcl", src, experiment.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var log testenv.SyncBuffer
	id := "undone-" + strconv.Itoa(os.Getpid())
	runs := filepath.Join(work, "runs")
	dir, err := experiment.Run(ctx, sp, src, experiment.Options{RunsDir: runs, ID: id, Exe: agent, Keep: true, Log: &log})
	t.Cleanup(func() { // whatever the run left, gone after the test (the shared host)
		if len(runMachines(t, id)) > 0 {
			if d, err := cloud.Lookup("netns"); err == nil {
				if c, err := d.Open(cloud.OpenOptions{}); err == nil {
					_ = c.Destroy(context.Background(), cloud.Selector{Run: id})
				}
			}
		}
	})
	if err == nil || !strings.HasPrefix(err.Error(), "load generators: ") || !strings.Contains(err.Error(), "not a Linux executable") {
		t.Fatalf("run: %v, want the load generators step's refusal of the agent\nlog:\n%s", err, log.String())
	}
	if exitcode.Of(err) != exitcode.Provision {
		t.Errorf("exit code %d, want %d", exitcode.Of(err), exitcode.Provision)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the planted agent ran")
	}
	wantInOrder(t, log.String(), "==> create machines (netns)", "==> connect", "==> preflight", "==> load generators",
		"==> cleanup: load generators", "==> cleanup: connect", "==> cleanup: create machines (netns)", "==> cleanup: plan machines")
	if strings.Contains(log.String(), "==> clocks") {
		t.Errorf("a step after the failed one ran:\n%s", log.String())
	}
	if left := runMachines(t, id); len(left) > 0 {
		t.Errorf("machines of the failed run still up (--keep keeps them only after success): %v", left)
	}
	evs, err := cloud.ReadJournal(filepath.Join(dir, cloud.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	deleted := 0
	for _, e := range evs {
		if e.Op == "delete" && e.Phase == cloud.PhaseAfter {
			deleted++
		}
	}
	if deleted != 2 {
		t.Errorf("the journal records %d machines deleted, want 2 (server, load generator):\n%+v", deleted, evs)
	}
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := m.Sessions[len(m.Sessions)-1]; !strings.HasPrefix(s.Error, "load generators: ") || s.End == "" {
		t.Errorf("the manifest's session: end %q, error %q; want it ended by the load generators step", s.End, s.Error)
	}
}

// runMachines are the netns machines on this host labelled with run id.
func runMachines(t *testing.T, id string) []string {
	t.Helper()
	rs, err := machine.Records()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rs {
		if r.Labels[cloud.LabelRun] == id {
			out = append(out, r.Name)
		}
	}
	return out
}

// wantInOrder fails unless each of want is in s, after the one before.
func wantInOrder(t *testing.T, s string, want ...string) {
	t.Helper()
	rest := s
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Errorf("log lacks %q after the lines before it:\n%s", w, s)
			return
		}
		rest = rest[i+len(w):]
	}
}
