package cloud_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/cloud/hetzner"
)

// A run directory's machines (manifest.json, read back by --resume) are
// held to the operator's machines block before anything connects: a
// hostile one cannot turn a cloud run into this machine, send the run to a
// host the operator did not name, or make it read another key.
func TestCheckRecorded(t *testing.T) {
	ctx := context.Background()
	run := cloud.Run{ID: "20261206-010203-abcd", Dir: t.TempDir()}
	local := cloud.DefaultMachines("local")
	static := cloud.DefaultMachines("static")
	static.Targets = []string{"ssh://root@203.0.113.7:22", "ssh://bench@203.0.113.8:2222"}
	static.IdentityFile = "/home/op/.ssh/bench"
	cloudy := cloud.DefaultMachines(hetzner.Name)
	srv := func(driver string) cloud.Machine {
		return cloud.Machine{Name: "server", Role: cloud.RoleServer, Driver: driver}
	}
	for _, tc := range []struct {
		name string
		m    cloud.Machines
		rec  []cloud.Machine
		want string // "" accepted
	}{
		{"local as planned", local, []cloud.Machine{{Name: "local", Role: cloud.RoleServer, Driver: "local", Local: true}, {Name: "local-loadgen-1", Role: cloud.RoleLoadGen, Driver: "local", Local: true}}, ""},
		{"local, one it does not plan", local, []cloud.Machine{{Name: "local", Role: cloud.RoleServer, Driver: "local", Local: true, Address: "198.51.100.9", Port: 22}}, "is not one the local driver plans"},
		{"static, the operator's targets", static, []cloud.Machine{
			{Name: "server", Driver: "static", Address: "203.0.113.7", Port: 22, User: "root", IdentityFile: "/home/op/.ssh/bench"},
			{Name: "loadgen-1", Driver: "static", Address: "203.0.113.8", Port: 2222, User: "bench"}}, ""},
		{"static, another host", static, []cloud.Machine{{Name: "server", Driver: "static", Address: "192.0.2.66", Port: 22, User: "root"}}, "none of the targets given"},
		{"static, another key", static, []cloud.Machine{{Name: "server", Driver: "static", Address: "203.0.113.7", Port: 22, User: "root", IdentityFile: "/root/.ssh/id_ed25519"}}, "names the key /root/.ssh/id_ed25519"},
		{"static, this machine", static, []cloud.Machine{{Name: "server", Driver: "static", Address: "203.0.113.7", Port: 22, User: "root", Local: true}}, "none of the targets given"},
		{"cloud, as made", cloudy, []cloud.Machine{func() cloud.Machine { m := srv(hetzner.Name); m.Address = "198.51.100.4"; return m }()}, ""},
		{"cloud turned local", cloudy, []cloud.Machine{func() cloud.Machine { m := srv(hetzner.Name); m.Local = true; return m }()}, "says it is this machine"},
		{"cloud with a key", cloudy, []cloud.Machine{func() cloud.Machine { m := srv(hetzner.Name); m.IdentityFile = "/root/.ssh/id_rsa"; return m }()}, "names the key /root/.ssh/id_rsa"},
		{"another driver's", cloudy, []cloud.Machine{{Name: "local", Driver: "local", Local: true}}, "was made by the local driver"},
	} {
		err := cloud.CheckRecorded(ctx, tc.m, run, tc.rec)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || exitcode.Of(err) != exitcode.Config):
			t.Errorf("%s: %v, want a config error saying %q", tc.name, err, tc.want)
		}
	}
}
