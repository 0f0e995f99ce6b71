package static_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/cloud/static"
)

func TestStaticPlanNeedsPins(t *testing.T) {
	dir := t.TempDir()
	k, _ := cloud.NewKeyPair(nil, "")
	line, _ := cloud.KnownHostsLine("203.0.113.7", 22, k.Public)
	kh := filepath.Join(dir, "hosts.known")
	os.WriteFile(kh, []byte(line+"\n"), 0o600)
	spec := func(targets ...string) cloud.Spec {
		m := cloud.DefaultMachines("static")
		m.Targets, m.KnownHosts = targets, kh
		return cloud.Spec{Machines: m, Run: cloud.Run{ID: "t1", Dir: filepath.Join(dir, "run")}}
	}
	p, err := static.Static{}.Plan(context.Background(), spec("ssh://root@203.0.113.7"))
	if err != nil || len(p.Machines) != 1 || p.Machines[0].Role != cloud.RoleServer {
		t.Fatalf("plan: %+v %v", p, err)
	}
	ms, err := static.Static{}.Create(context.Background(), p, nil)
	if err != nil || len(ms) != 1 {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "run", cloud.KnownHostsFile)); string(b) != line+"\n" {
		t.Errorf("run known_hosts = %q", b)
	}
	for _, bad := range [][]string{{"ssh://root@203.0.113.8"}, {"local"}, {"ssh://root@203.0.113.7", "ssh://root@203.0.113.7:22"}, nil} {
		if _, err := (static.Static{}).Plan(context.Background(), spec(bad...)); exitcode.Of(err) != exitcode.Config {
			t.Errorf("%v: err = %v", bad, err)
		}
	}
	if err := (static.Static{}).Destroy(context.Background(), cloud.Selector{}); !errors.Is(err, cloud.ErrEmptySelector) {
		t.Errorf("static destroy of empty selector: %v", err)
	}
}
