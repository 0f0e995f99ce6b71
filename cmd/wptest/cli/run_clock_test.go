package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/wptest/wptest/results"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/hcloudfake"
	"github.com/wptest/wptest/provision/cloud"
)

// `wptest run` takes its clock from App.Now down into experiment: the run
// id, the created and expiry labels of the machines it asks the cloud for
// (the post's experiment: ttl 6h), and the manifest's and its session's
// times are the injected clock's. The fake API refuses the server, so the
// run stops there, having labelled it.
func TestRunStampsWithTheInjectedClock(t *testing.T) {
	at := time.Date(2031, 4, 5, 6, 7, 8, 0, time.UTC)
	fake := hcloudfake.New(t)
	var mu sync.Mutex
	var created []map[string]string
	fake.Hook = func(c hcloudfake.Call) hcloudfake.Fault {
		if c.Pattern() != "POST /servers" {
			return hcloudfake.Fault{}
		}
		var req struct {
			Labels map[string]string `json:"labels"`
		}
		if err := json.Unmarshal(c.Body, &req); err != nil {
			t.Errorf("server create body: %v\n%s", err, c.Body)
		}
		mu.Lock()
		created = append(created, req.Labels)
		mu.Unlock()
		return hcloudfake.Fault{Status: 403, Code: "forbidden"}
	}
	wd := t.TempDir()
	file, err := filepath.Abs(filepath.Join("..", "..", "..", "experiments", "corehttpd-vs-cpanel.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Run(context.Background(), &App{Args: []string{"run", file, "--target", "hetzner"},
		Env:    []string{"HCLOUD_TOKEN=" + cliToken, "HCLOUD_ENDPOINT=" + fake.URL, "USER=alice"},
		Stdout: &out, Stderr: &errb, WorkDir: wd, Hostname: "bench-box.example",
		Now: func() time.Time { return at }})
	if code == 0 {
		t.Fatalf("run went on past a refused server: code 0\n%s", errb.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(created) == 0 {
		t.Fatalf("no server was asked for (code %d):\n%s", code, errb.String())
	}
	for _, l := range created {
		if l[cloud.LabelCreated] != fmt.Sprint(at.Unix()) || l[cloud.LabelExpires] != fmt.Sprint(at.Add(6*time.Hour).Unix()) {
			t.Errorf("server labels created %q expires %q, want the injected clock's %d and %d (ttl 6h)",
				l[cloud.LabelCreated], l[cloud.LabelExpires], at.Unix(), at.Add(6*time.Hour).Unix())
		}
	}
	runs, err := filepath.Glob(filepath.Join(wd, "runs", "*"))
	if err != nil || len(runs) != 1 {
		t.Fatalf("run directories %v (%v), want one", runs, err)
	}
	if id := filepath.Base(runs[0]); !strings.HasPrefix(id, "20310405-060708-") {
		t.Errorf("run id %q, want the injected clock's 20310405-060708-…", id)
	}
	man, err := results.ReadManifest(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	want := at.Format(time.RFC3339Nano)
	if man.Start != want || len(man.Sessions) != 1 || man.Sessions[0].Start != want || man.Sessions[0].End != want {
		t.Errorf("manifest start %q sessions %+v, want every time %s", man.Start, man.Sessions, want)
	}
}
