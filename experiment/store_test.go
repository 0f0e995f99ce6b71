package experiment

import (
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/golden"
	"github.com/wptest/wptest/results"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/provision/cloud"
)

// The run manifest records the firewall the cloud driver applied (its
// runs/<id>/firewall.json), and nothing for hosts without one.
func TestManifestRecordsFirewall(t *testing.T) {
	dir := t.TempDir()
	m := &results.Manifest{Format: results.ManifestFormat, ID: "t1", PlanHash: strings.Repeat("0", 64)}
	ms := []cloud.Machine{{Name: "wptest-t1-server", Role: cloud.RoleServer}, {Name: "wptest-t1-loadgen-1", Role: cloud.RoleLoadGen, Address: "203.0.113.41"}}
	if err := recordMachines(m, dir, ms); err != nil {
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
	if err := recordMachines(m, dir, ms); err != nil {
		t.Fatal(err)
	}
	got, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Firewall) != 4 || got.Firewall[1].String() != "80/tcp from 203.0.113.41/32" {
		t.Fatalf("manifest firewall: %v", got.Firewall)
	}
	b, _ := os.ReadFile(filepath.Join(dir, results.ManifestFile))
	if !strings.Contains(string(b), `"for": "web: load generators + allow_from"`) {
		t.Errorf("manifest.json:\n%s", b)
	}
}

// skipTheirs leaves bench/result's types and the host manifest zero, as
// results' format test does.
func skipTheirs(t reflect.Type) bool {
	if t == reflect.TypeOf(results.Claim{}) {
		return true // came after the golden, and kept out of the plan hash
	}
	switch t.PkgPath() {
	case "github.com/wptest/wptest/bench/result":
		return true
	case "github.com/wptest/wptest/hostrecord":
		return t.Name() == "Manifest"
	}
	return false
}

// The plan hash of a spec whose columns, scenarios and fixture have every
// field set is testdata/plan_sha256.txt, so a change to what the hash
// covers is seen and chosen: a run directory from before it no longer
// resumes (--resume refuses it, naming both hashes). It kept its value when
// the recorded spec moved to package results and changed when columns got
// ids (results.Column, Point.Column), and when the machines block's keys
// became snake_case with each driver's own attributes under its own key
// (cloud.Machines.Own), and when each kind's settings became its own
// (results.Scenario.Own).
func TestPlanHashGolden(t *testing.T) {
	n := 0
	// The same values results' TestFormatGolden fills a manifest and a
	// record with first, as the golden was written.
	var m results.Manifest
	var rec results.Record
	golden.Fill(reflect.ValueOf(&m).Elem(), &n, skipTheirs)
	n -= 2 // Manifest.Claims (a slice, its element skipped) came after the golden
	n -= 9 // so did MachineInfo's boot_id, own_machine and shared_with (3 machines)
	n -= 7 // and Manifest.SourceDeviations (one, with its fields and its scenario)
	n -= 9 // and MachineInfo's cpu_from, cpuset and cpus_shared_with (3 machines)
	n -= 4 // and Manifest.Drift (one column, one line)
	n -= 4 // and Manifest.Sources (one, with its fields)
	n -= 3 // and MachineInfo's load_generator_link_mbps (3 machines)
	golden.Fill(reflect.ValueOf(&rec).Elem(), &n, skipTheirs)
	// The record held Run, Crowd and Kit, and its generator line Run and
	// Crowd, one count each, when the golden was written; each is one
	// embedded result.Set now (one count).
	n += 2 + 1
	n-- // and the record's bench_limit, added last
	n-- // and its broken
	sp := Spec{Name: "golden", Repetitions: 2, Warmup: 3 * time.Second, HTTPPort: 80}
	golden.Fill(reflect.ValueOf(&sp.Columns).Elem(), &n, skipTheirs)
	golden.Fill(reflect.ValueOf(&sp.Scenarios).Elem(), &n, skipTheirs)
	golden.Fill(reflect.ValueOf(&sp.Fixture).Elem(), &n, skipTheirs)
	sp.Columns[0].Enabled = true
	sp.Scenarios[0].Columns = nil
	if len(sp.Plan()) != 2 {
		t.Fatalf("plan: %+v", sp.Plan())
	}
	golden.File(t, filepath.Join("testdata", "plan_sha256.txt"), []byte(sp.PlanHash()+"\n"))
}

// A run whose plan hash differs is not resumed; where another wptest
// started it, the refusal says so (a newer wptest may plan the same file
// differently), and where the same one did, it blames the file alone.
func TestResumeRefusalNamesBothTools(t *testing.T) {
	sp := &Spec{Name: "resume", Repetitions: 1}
	for _, c := range []struct{ was, now, want, not string }{
		{"wptest 0.0.9", "wptest 0.1.0", "started by wptest 0.0.9, this is wptest 0.1.0", ""},
		{"wptest 0.1.0", "wptest 0.1.0", "the experiment changed since the run started", "wptest changed"},
	} {
		dir := t.TempDir()
		m := &results.Manifest{Format: results.ManifestFormat, ID: "r1", PlanHash: strings.Repeat("0", 64), Tool: c.was}
		if err := m.Write(dir); err != nil {
			t.Fatal(err)
		}
		_, err := openManifest(sp, nil, Options{Resume: true, ID: "r1", Tool: c.now}, dir)
		if err == nil || exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), c.want) || c.not != "" && strings.Contains(err.Error(), c.not) {
			t.Errorf("%s → %s: %v (exit %d), want %q", c.was, c.now, err, exitcode.Of(err), c.want)
		}
	}
}

// A stated link bandwidth judges the points, it does not change what is
// measured: a run resumes with it given, changed or left out; the
// machines themselves are in the hash.
func TestPlanHashLeavesTheStatedLink(t *testing.T) {
	sp := loadFile(t, filepath.Join("..", "experiments", "apache-kit.hcl"), LoadOptions{})
	h := sp.PlanHash()
	sp.Machines.LoadGenLink = "1000"
	if sp.PlanHash() != h || sp.Machines.LinkMbps() != 1000 {
		t.Errorf("load_generator_link_mbps changed the plan hash (or was not read: %d)", sp.Machines.LinkMbps())
	}
	sp.Machines = sp.Machines.With("server_type", sp.Machines.Attr("server_type")+"x")
	if sp.PlanHash() == h {
		t.Error("the server type did not change the plan hash")
	}
}

// The plan hash hashes every field of Spec but those JSON leaves out, in
// Spec's order (hashedSpec: the columns and scenarios in format /2's
// keys): a field added to Spec and not to hashedSpec fails here, not in
// a plan hash that silently leaves it out.
func TestHashedSpecIsSpec(t *testing.T) {
	var want, got []string
	st, ht := reflect.TypeFor[Spec](), reflect.TypeFor[hashedSpec]()
	for i := range st.NumField() {
		if f := st.Field(i); f.Tag.Get("json") != "-" {
			want = append(want, f.Name+" "+f.Tag.Get("json"))
		}
	}
	for i := range ht.NumField() {
		got = append(got, ht.Field(i).Name+" "+ht.Field(i).Tag.Get("json"))
	}
	if !slices.Equal(got, want) {
		t.Errorf("hashedSpec's fields %q, want Spec's %q", got, want)
	}
}
