package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/internal/golden"
)

// theirs says t's format belongs to another package (bench/result's
// measurements, the host manifest). A machine and a firewall rule are
// hostrecord's types too, but the run's manifest is where they are written.
func theirs(t reflect.Type) bool {
	switch t.PkgPath() {
	case "github.com/wptest/wptest/bench/result":
		return true
	case "github.com/wptest/wptest/hostrecord":
		return t.Name() == "Manifest"
	}
	return false
}

// The files a run writes keep their bytes: a manifest and a record with
// every field set, written the way the runner writes them, are the golden
// files under testdata (manifest.json as package experiment wrote it before
// the schema moved here, then with columns as columns got ids; the
// record's numbering follows the struct's fields, so TestRecordBytesKept
// holds the record's bytes to the file experiment wrote).
func TestFormatGolden(t *testing.T) {
	dir := t.TempDir()
	n := 0
	var m Manifest
	golden.Fill(reflect.ValueOf(&m).Elem(), &n, func(t reflect.Type) bool { return theirs(t) || t == reflect.TypeOf(Claim{}) })
	// The claims came after the record's numbering was fixed: they count
	// from 1000, and the record keeps its numbers.
	n -= 2
	n -= 7 // so did Manifest.SourceDeviations (one, with its fields and its scenario)
	n -= 9 // and MachineInfo's cpu_from, cpuset and cpus_shared_with (3 machines)
	n -= 4 // and Manifest.Drift (one column, one line)
	n -= 4 // and Manifest.Sources (one, with its fields)
	n -= 3 // and MachineInfo's load_generator_link_mbps (3 machines)
	c := 1000
	golden.Fill(reflect.ValueOf(&m.Claims).Elem(), &c, theirs)
	for i := range m.Claims {
		m.Claims[i].Contradictions, m.Claims[i].Examples = nil, nil // they stay with the experiment file, never in a run's record
	}
	m.Format = ManifestFormat
	m.PlanHash = strings.Repeat("5a", 32) // ReadManifest wants a plan hash's shape
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	var rec Record
	n += 11 // the scenario's kinds' settings became one value (Scenario.Own): the record keeps its numbers
	golden.Fill(reflect.ValueOf(&rec).Elem(), &n, theirs)
	rec.Server = &result.Server{}
	rec.Error = "get https://user:secret@example.com/: refused"
	s, _, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(rec); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, f := range []struct{ written, golden string }{{ManifestFile, ManifestFile}, {ResultsFile, "record_filled.jsonl"}} {
		b, err := os.ReadFile(filepath.Join(dir, f.written))
		if err != nil {
			t.Fatal(err)
		}
		golden.File(t, filepath.Join("testdata", f.golden), b)
	}
	// What was written reads back as it was.
	got, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, m) {
		t.Errorf("manifest read back:\n%+v\nwritten:\n%+v", *got, m)
	}
	recs, err := ReadResults(dir)
	if err != nil || len(recs) != 1 || recs[0].Key != rec.Key || recs[0].Error != "get https://(sensitive)@example.com/: refused" {
		t.Errorf("records read back: %+v, %v", recs, err)
	}
}

// A record as package experiment wrote it before the schema moved here,
// before the kinds' results became one union (result.Set, embedded) and
// before columns had ids: read and written again, every byte is the same
// but the column it now names first (its profile, as the record keyed it),
// so no field was renamed, reordered, dropped or reshaped.
func TestRecordBytesKept(t *testing.T) {
	old, err := os.ReadFile(filepath.Join("testdata", ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	recs := readTestdata(t, ResultsFile, ResultsFile, ReadResults)
	if len(recs) != 1 {
		t.Fatalf("old record: %v", recs)
	}
	rec := recs[0]
	if rec.Column != "s153" || rec.Profile != "s153" {
		t.Errorf("old record read as column %q profile %q, want both s153 (its profile)", rec.Column, rec.Profile)
	}
	want := strings.Replace(string(old), `"profile":"s153"`, `"column":"s153","profile":"s153"`, 1)
	// Every union field the old record had (Fill leaves bench/result's
	// types to their package, so they are set here).
	rec.Run, rec.Crowd, rec.Kit = &result.Run{Name: "r"}, &result.Crowd{Visitors: 1}, &result.Kit{}
	rec.Generators[0].Run, rec.Generators[0].Crowd = &result.Run{Name: "g"}, &result.Crowd{Visitors: 2}
	dir := t.TempDir()
	s, _, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(rec); err != nil {
		t.Fatal(err)
	}
	s.Close()
	got, err := os.ReadFile(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	// Without the union fields: the golden line itself.
	rec.Set, rec.Generators[0].Set = result.Set{}, result.Set{}
	plain, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	if string(plain) != strings.TrimSpace(string(want)) {
		t.Errorf("record written again:\n%s\nwant:\n%s", plain, want)
	}
	// With them: where the old struct put them (after "end"; a generator's
	// after "rate"), run before crowd before kit.
	for _, w := range []string{`"end":"s159","run":{"name":"r"`, `"rate":187.25,"run":{"name":"g"`} {
		if !strings.Contains(string(got), w) {
			t.Errorf("record with its results lacks %s:\n%s", w, got)
		}
	}
	if i, j, k := strings.Index(string(got), `"run":{"name":"r"`), strings.Index(string(got), `"crowd":{"visitors":1`), strings.Index(string(got), `"kit":{`); !(i < j && j < k) {
		t.Errorf("run, crowd, kit out of order in %s", got)
	}
}

// A manifest written before columns had ids (testdata/manifest_before_columns.json:
// "profiles": [{"Name": ...}] and each scenario's "Profiles") reads with
// its columns: one per profile, called by it, and each scenario's list as
// its columns, so report and compare work on runs made then.
func TestOldManifestReadsColumns(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "manifest_before_columns.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Column{{ID: "s17", Profile: "s17", Label: "s18", Vars: map[string]string{"s20": "s21"}, Enabled: true, Reason: "s23"}}
	if !reflect.DeepEqual(m.Columns, want) {
		t.Errorf("columns %+v, want %+v", m.Columns, want)
	}
	if len(m.Scenarios) != 1 || !reflect.DeepEqual(m.Scenarios[0].Columns, []string{"s48"}) || !m.Scenarios[0].Runs("s48") || m.Scenarios[0].Runs("s17") {
		t.Errorf("scenarios %+v: want columns [s48]", m.Scenarios)
	}
	// A new manifest's columns are not overwritten by anything old-shaped.
	m.Columns[0].ID = "new"
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	back, err := ReadManifest(dir)
	if err != nil || back.Columns[0].ID != "new" || back.Columns[0].Profile != "s17" {
		t.Errorf("written again: %+v, %v", back.Columns, err)
	}
}

// Plan keys points by column id and records each column's profile: two
// columns of one profile are two sets of points.
func TestPlanKeysByColumn(t *testing.T) {
	cols := []Column{{ID: "tuned-apache", Profile: "tuned-apache", Enabled: true}, {ID: "tuned-400", Profile: "tuned-apache", Enabled: true},
		{ID: "corehttpd", Profile: "corehttpd", Enabled: false}}
	scs := []Scenario{{Name: "page", Kind: "page", Visitors: []int{4}, Columns: []string{"tuned-apache"}}, {Name: "crowd", Kind: "crowd", Visitors: []int{300, 1000}}}
	var got []string
	for _, p := range Plan(1, cols, scs) {
		got = append(got, p.Key+" "+p.Column+" "+p.Profile)
	}
	want := []string{
		"r1/tuned-apache/page/c=4 tuned-apache tuned-apache",
		"r1/tuned-apache/crowd/c=300 tuned-apache tuned-apache",
		"r1/tuned-apache/crowd/c=1000 tuned-apache tuned-apache",
		"r1/tuned-400/crowd/c=300 tuned-400 tuned-apache",
		"r1/tuned-400/crowd/c=1000 tuned-400 tuned-apache",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A manifest written before each kind kept its settings apart
// (testdata/manifest_before_own.json: every kind's beside the common
// attributes, in Go's names) reads with them as the scenario's own, in
// the names the kinds give them; the common ones stay common.
func TestOldManifestReadsKindSettings(t *testing.T) {
	m := readTestdata(t, "manifest_before_own.json", ManifestFile, ReadManifest)
	if len(m.Scenarios) != 1 {
		t.Fatalf("scenarios %+v", m.Scenarios)
	}
	sc := m.Scenarios[0]
	want := `{"browse":{"Conns":52,"Think":53},"click_every":42,"error_clients":47,"give_up":44,"levels":[46],"probe_every":43,"probe_path":"s30","transfer_path":"s31"}`
	if string(sc.Own) != want || sc.Path != "s29" || !sc.KeepAlive || sc.Proto != "s38" || !slices.Equal(sc.Columns, []string{"s49"}) {
		t.Errorf("scenario %+v (own %s), want own %s and the common attributes as they were", sc, sc.Own, want)
	}
}

// A manifest of format /2 (testdata/manifest_v2.json: TestFormatGolden's
// file before the keys were snake_case: a column's "ID", a scenario's
// "KeepAlive") reads as the /3 one written from the same values: nothing
// of it is lost, and written again it is in /3's spelling.
func TestManifestV2Reads(t *testing.T) {
	old, now := readTestdata(t, "manifest_v2.json", ManifestFile, ReadManifest), readTestdata(t, ManifestFile, ManifestFile, ReadManifest)
	if !old.Scenarios[0].KeepAlive || old.Columns[0].ID != "s17" || string(old.Scenarios[0].Own) != `{"n":42}` {
		t.Errorf("/2 read as %+v %+v", old.Columns, old.Scenarios)
	}
	if !reflect.DeepEqual(old, now) {
		t.Errorf("/2 read as\n%+v\n/3 as\n%+v", old, now)
	}
	dir := t.TempDir()
	if err := old.Write(dir); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ManifestFile))
	want, _ := os.ReadFile(filepath.Join("testdata", ManifestFile))
	if string(b) != string(want) {
		t.Errorf("/2 written again:\n%s\nwant the /3 golden:\n%s", b, want)
	}
}

// readTestdata reads testdata/file as a run directory's name, with read.
func readTestdata[T any](t *testing.T, file, name string, read func(dir string) (T, error)) T {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := read(dir)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return v
}
