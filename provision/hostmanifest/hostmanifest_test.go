package hostmanifest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wptest/wptest/provision"
)

// A report as the engine returns it after apply (values typed the way the
// engine's JSON holds them).
func sampleReport() *provision.Report {
	return &provision.Report{
		Mode: "apply", Profile: "cpanel-apache", Hash: "sha256:abc", Platform: "debian-12", Host: "root@127.0.0.1:2222",
		Variables: []provision.VarReport{
			{Name: "site_user", Value: "wpsite"},
			{Name: "db_password", Value: "hunter2", Sensitive: true},
			{Name: "http_port", Value: json.RawMessage("8080")},
		},
		Deviations: []string{"uid switching: mpm-itk (AssignUserID) instead of mod_ruid2"},
		Checks:     []*provision.CheckReport{{ID: "check.mpm_prefork", Passed: true}, {ID: "check.no_http2", Passed: true}},
		Facts: []*provision.FactReport{
			{ID: "fact.apache_version", Output: "Server version: Apache/2.4.71 (Debian)"},
			{ID: "fact.apache_mpm", Output: "prefork"},
			{ID: "fact.apache_modules", Output: "cgi_module mpm_itk_module mpm_prefork_module "},
			{ID: "fact.os", Output: "Debian GNU/Linux 12 (bookworm)"},
			{ID: "fact.caddy_version", Error: "exit status 127"},
			{ID: "fact.selinux", Output: "enforcing"},
			{ID: "fact.selinux_changes", Output: "/home/wpsite all files system_u:object_r:httpd_sys_content_t:s0;httpd_can_network_connect_db (on , on) Allow httpd to can network connect db"},
		},
		Server: &provision.Server{
			Services:    []provision.Service{{Label: "apache", Name: "apache2", Restart: "wptest-svc apache2 restart", Stop: "wptest-svc apache2 stop", Status: "wptest-svc apache2 status"}},
			Status:      &provision.Status{URL: "http://127.0.0.1:8080/whm-server-status?auto", Format: "apache"},
			WorkerLimit: 150, Protocols: []string{"h1"}, Shows: []string{"apache_mpm", "apache_version"},
		},
		Retired: []provision.Service{{Label: "caddy", Name: "caddy", Stop: "wptest-svc caddy stop", Status: "wptest-svc caddy status"}},
		Changes: 3,
	}
}

func TestFromReport(t *testing.T) {
	m := FromReport(sampleReport(), "wptest 0.1.0", "tuned-apache")
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if strings.Contains(s, "hunter2") {
		t.Fatalf("sensitive value in the manifest:\n%s", s)
	}
	var back Manifest
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"profile", back.Profile, "cpanel-apache"},
		{"hash", back.ProfileHash, "sha256:abc"},
		{"previous", back.Previous, "tuned-apache"},
		{"platform", back.Platform, "debian-12"},
		{"mpm", back.Fact("apache_mpm"), "prefork"},
		{"modules", back.Facts["apache_modules"], "cgi_module mpm_itk_module mpm_prefork_module "},
		{"version by fact name", back.Fact("apache_version"), "Server version: Apache/2.4.71 (Debian)"},
		{"server service", back.Server.Services[0].Restart, "wptest-svc apache2 restart"},
		{"status page", back.Server.Status.URL, "http://127.0.0.1:8080/whm-server-status?auto"},
		{"worker limit", back.Server.WorkerLimit, 150},
		{"known services", len(back.Services()), 2},
		{"retired", back.Services()[1].Name, "caddy"},
		{"apache version", back.Versions["apache"], "Server version: Apache/2.4.71 (Debian)"},
		{"failed fact", back.Versions["caddy"], "error: exit status 127"},
		{"other fact", back.Facts["os"], "Debian GNU/Linux 12 (bookworm)"},
		{"SELinux mode", back.Facts["selinux"], "enforcing"},
		{"deviation", back.Deviations[0], "uid switching: mpm-itk (AssignUserID) instead of mod_ruid2"},
		{"first variable (sorted)", back.Variables[0].Name, "db_password"},
		{"redacted", back.Variables[0].Value, "(sensitive)"},
		{"number variable", back.Variables[1].Value, float64(8080)},
		{"changes", back.Changes, 3},
		{"checks", len(back.Checks), 2},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %#v, want %#v", c.what, c.got, c.want)
		}
	}
	if (*Manifest)(nil).Services() != nil {
		t.Error("no manifest knows services")
	}
	// A manifest from before server blocks: the web group's executables,
	// driven by the service script those profiles installed.
	old := &Manifest{Profile: "caddy", Groups: []provision.ProcessGroup{{Name: "web", Exe: []string{"caddy"}}, {Name: "php", Exe: []string{"php-fpm8.2"}}}}
	if got := old.Services(); len(got) != 1 || got[0].Name != "caddy" || got[0].Stop != LegacySvc+" caddy stop" || got[0].Status != LegacySvc+" caddy status" {
		t.Errorf("services of a manifest without a server: %+v", got)
	}
	// Same report, same bytes: no clock, no map order.
	b2, _ := FromReport(sampleReport(), "wptest 0.1.0", "tuned-apache").Marshal()
	if !bytes.Equal(b, b2) {
		t.Error("two manifests of the same report differ")
	}
	// Re-applying the same profile records no previous one.
	if m := FromReport(sampleReport(), "wptest 0.1.0", "cpanel-apache"); m.Previous != "" {
		t.Errorf("previous = %q after re-applying the same profile", m.Previous)
	}
	var text bytes.Buffer
	back.WriteText(&text)
	for _, want := range []string{"profile:  cpanel-apache sha256:abc", "replaced: tuned-apache", "server:   apache2 (h1); status page http://127.0.0.1:8080/whm-server-status?auto; worker limit 150\n", "  apache_mpm prefork\n", "- uid switching: mpm-itk", "checks:   2 of 2 passed",
		"selinux:  enforcing\n", "selinux_changes: /home/wpsite all files system_u:object_r:httpd_sys_content_t:s0;httpd_can"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("status text lacks %q:\n%s", want, text.String())
		}
	}
}
