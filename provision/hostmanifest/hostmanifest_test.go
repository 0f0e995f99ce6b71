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
		{"mpm", back.Apache.MPM, "prefork"},
		{"modules", strings.Join(back.Apache.Modules, ","), "cgi_module,mpm_itk_module,mpm_prefork_module"},
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
	for _, want := range []string{"profile:  cpanel-apache sha256:abc", "replaced: tuned-apache", "MPM prefork", "- uid switching: mpm-itk", "checks:   2 of 2 passed",
		"selinux:  enforcing\n", "selinux_changes: /home/wpsite all files system_u:object_r:httpd_sys_content_t:s0;httpd_can"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("status text lacks %q:\n%s", want, text.String())
		}
	}
}
