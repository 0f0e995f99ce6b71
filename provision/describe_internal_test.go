package provision

import "testing"

// A record made before the apply reads the host's init (the apply's mark)
// names the commands a host with that init runs: systemd's, else the
// service command; a service's own commands whatever the init.
func TestServicesOnTheHostsInit(t *testing.T) {
	r := &Rendered{serverOps: []*ServiceOp{
		{opBase: opBase{id: "service.web"}, Name: "apache2"},
		{opBase: opBase{id: "service.caddy"}, Name: "wptest-caddy", Cmds: map[string]string{"start": "svc caddy start", "stop": "svc caddy stop", "status": "svc caddy status"}},
	}}
	for _, c := range []struct {
		init             string
		stop, status     string
		ownStop, ownStat string
	}{
		{"systemd", "systemctl stop apache2", "systemctl is-active --quiet apache2", "svc caddy stop", "svc caddy status"},
		{"none", "service apache2 stop", "service apache2 status", "svc caddy stop", "svc caddy status"},
	} {
		s := r.ServicesOn(c.init)
		if len(s) != 2 || s[0].Label != "web" || s[0].Stop != c.stop || s[0].Status != c.status || s[1].Stop != c.ownStop || s[1].Status != c.ownStat {
			t.Errorf("init %s: %+v", c.init, s)
		}
	}
}
