package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/provision/cloud"
)

// The run manifest records the firewall the cloud driver applied (its
// runs/<id>/firewall.json), and nothing for hosts without one.
func TestManifestRecordsFirewall(t *testing.T) {
	dir := t.TempDir()
	m := &Manifest{Format: ManifestFormat, ID: "t1", PlanHash: strings.Repeat("0", 64)}
	ms := []cloud.Machine{{Name: "wptest-t1-server", Role: cloud.RoleServer}, {Name: "wptest-t1-loadgen-1", Role: cloud.RoleLoadGen, Address: "203.0.113.41"}}
	if err := m.recordMachines(dir, ms); err != nil {
		t.Fatal(err)
	}
	if m.Firewall != nil {
		t.Fatalf("no firewall.json, yet the manifest has %v", m.Firewall)
	}
	rules, err := cloud.FirewallRules(cloud.DefaultMachines("hetzner"), ms)
	if err != nil {
		t.Fatal(err)
	}
	if err := cloud.WriteFirewall(dir, rules); err != nil {
		t.Fatal(err)
	}
	if err := m.recordMachines(dir, ms); err != nil {
		t.Fatal(err)
	}
	got, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Firewall) != 4 || got.Firewall[1].String() != "80/tcp from 203.0.113.41/32" {
		t.Fatalf("manifest firewall: %v", got.Firewall)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	if !strings.Contains(string(b), `"for": "web: load generators + allow_from"`) {
		t.Errorf("manifest.json:\n%s", b)
	}
}
