package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/srvstat"
	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/hostrecord"
	"github.com/wptest/wptest/internal/golden"
	"github.com/wptest/wptest/internal/hcloudfake"
	"github.com/wptest/wptest/internal/jsonstyle"
	"github.com/wptest/wptest/internal/runtest"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/hostmanifest"
	"github.com/wptest/wptest/results"
)

// dataKeys are the objects whose keys are data, not field names, at a
// path ending so ("^": at that path only): variables by name, HTTP
// headers, counts by table, host manifests and a run's drift by column.
// Their values are checked all the same.
var dataKeys = []string{
	".vars", ".host_manifests", "^.drift", ".counts.per_table", ".counts.per_post_type",
	".checks[].http.expect_header", ".checks[].http.headers",
}

func isData(path string) bool {
	for _, d := range dataKeys {
		if exact, ok := strings.CutPrefix(d, "^"); ok && path == exact || !ok && strings.HasSuffix(path, d) {
			return true
		}
	}
	return false
}

// nullsAllowed are the nulls that say something a list could not: a SQL
// NULL in a built fixture's rows (rows.jsonl: "v"), a change of a figure
// from 0 (compare's change_pct: no percentage of nothing).
var nullsAllowed = []string{".v[]: null", ".rows[].change_pct: null"}

// Every JSON output and file wptest writes has its keys in snake_case and
// no null where a list belongs (an empty one is []): the outputs of every
// command that prints JSON, made here from a small run directory, a local
// HTTP server and the Hetzner API fake; and each file only a live host
// writes (host manifest, drift record, seed record, journal...) with every
// field set, as its writer marshals it.
func TestEveryJSONIsSnakeCaseWithoutNull(t *testing.T) {
	docs := map[string][]byte{}
	for name, b := range jsonOutputs(t) {
		docs[name] = b
	}
	for name, b := range jsonFiles(t, docs["plan -o json"]) {
		docs[name] = b
	}
	compareKeys(t, docs["compare -o json (a run with itself)"])
	if len(docs) < 25 {
		t.Errorf("only %d documents checked", len(docs))
	}
	for name, b := range docs {
		var bad []string
		for _, p := range jsonstyle.Check(b, dataPaths(b)...) {
			if !allowed(p) {
				bad = append(bad, p)
			}
		}
		if len(bad) > 0 {
			t.Errorf("%s:\n  %s", name, strings.Join(bad, "\n  "))
		}
	}
}

// compareKeys: compare -o json of a run with itself says "differences":
// [] (it said null), and each row's metric is the figure's key (what a
// claim names: "rps"), its label beside it, not a label with a unit.
func compareKeys(t *testing.T, b []byte) {
	var c struct {
		Differences *[]string `json:"differences"`
		Rows        []struct {
			Kind, Metric, Label string
		} `json:"rows"`
	}
	if err := json.Unmarshal(b, &c); err != nil || c.Differences == nil || len(*c.Differences) != 0 || len(c.Rows) == 0 {
		t.Fatalf("compare of a run with itself: %v\n%s", err, b)
	}
	for _, r := range c.Rows {
		if _, ok := results.MetricOf(r.Kind, r.Metric); !ok || r.Label == "" || strings.ContainsAny(r.Metric, " /()") {
			t.Errorf("row's metric %q (label %q): want a figure's key", r.Metric, r.Label)
		}
	}
}

func allowed(p string) bool {
	for _, a := range nullsAllowed {
		if strings.HasSuffix(p, a) {
			return true
		}
	}
	return false
}

// dataPaths are dataKeys at every depth at which b has them (a run
// manifest inside `status`, a host manifest inside a run manifest).
func dataPaths(b []byte) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				walk(e, path+"[]")
			}
		case map[string]any:
			data := isData(path)
			if data && !seen[path] {
				seen[path] = true
				out = append(out, path)
			}
			for k, e := range v {
				if data {
					k = "*" // as jsonstyle.Check names it
				}
				walk(e, path+"."+k)
			}
		}
	}
	d := json.NewDecoder(strings.NewReader(string(b)))
	for {
		var v any
		if d.Decode(&v) != nil {
			return out
		}
		walk(v, "")
	}
}

// jsonOutputs runs every command that prints JSON (or writes a JSON file
// without a live host) and returns what each printed and wrote.
func jsonOutputs(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	cmd := func(name string, env []string, args ...string) {
		t.Helper()
		code, stdout, stderr := runCLI(t, env, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, code, stderr)
		}
		out[name] = []byte(stdout)
	}
	file := func(name, p string) {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = b
	}
	runs := t.TempDir()
	a := runtest.Run{ID: "a", Reps: 3, Jitter: []float64{0, 1, -1}}.Write(t, runs)
	b := runtest.Run{ID: "b", Reps: 3, Jitter: []float64{2, 0, -2}, Vars: map[string]string{"workers": "8"}}.Write(t, runs)
	cmd("compare -o json", nil, "compare", "-o", "json", a, b)
	cmd("compare -o json (a run with itself)", nil, "compare", "-o", "json", a, a)
	cmd("report -o json (no claims)", nil, "report", a, "-o", "json")
	file("results.jsonl", filepath.Join(a, results.ResultsFile))
	claimed := claimsRun(t)
	cmd("report -o json", nil, "report", claimed, "-o", "json")
	file("claims.json", filepath.Join(claimed, results.ClaimsFile))
	file("manifest.json", filepath.Join(claimed, results.ManifestFile))

	cmd("profiles -o json", nil, "profiles", "-o", "json")
	cmd("plan -o json", nil, "plan", "--profile", "tuned-apache", "--platform", "debian-12", "-o", "json")
	cmd("machines drivers -o json", nil, "machines", "drivers", "-o", "json")
	fake := hcloudfake.New(t)
	env := []string{"HCLOUD_TOKEN=" + cliToken, "HCLOUD_ENDPOINT=" + fake.URL}
	cmd("machines plan -o json", env, "machines", "plan", "-o", "json")
	cmd("machines list -o json", env, "machines", "list", "-o", "json")

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("hello")) }))
	t.Cleanup(srv.Close)
	cmd("bench -o json (ab)", nil, "bench", "--scenario", "ab", "-c", "1", "-n", "5", "-o", "json", "--url", srv.URL+"/")
	cmd("bench -o json (page)", nil, "bench", "--scenario", "page", "-c", "1", "--duration", "100ms", "--warmup", "0s", "-o", "json", "--url", srv.URL+"/")

	cmd("fixture manifest", nil, "fixture", "manifest", "--fixture", "minimal")
	built := filepath.Join(t.TempDir(), "out")
	cmd("fixture build", nil, "fixture", "build", "--fixture", "minimal", "--seed", "1", "--out", built)
	delete(out, "fixture build") // it prints the hashes as text
	entries, err := os.ReadDir(built)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".jsonl") {
			file("fixture build: "+n, filepath.Join(built, n))
		}
	}
	return out
}

// claimsRun is a run directory with claims (testdata/claims/post.txtar).
func claimsRun(t *testing.T) string {
	a, err := txtar.ParseFile(filepath.Join("testdata", "claims", "post.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	return claimsRunOf(t, a)
}

// jsonFiles are the files (and outputs) only a live host or a cloud
// writes, each with every field set (golden.Fill) and marshalled as its
// writer does.
func jsonFiles(t *testing.T, plan []byte) map[string][]byte {
	out := map[string][]byte{}
	filled := func(v any) any {
		p := reflect.New(reflect.TypeOf(v))
		n := 0
		golden.Fill(p.Elem(), &n, func(reflect.Type) bool { return false })
		return p.Interface()
	}
	marshal := func(name string, v any) {
		t.Helper()
		jsonstyle.Lists(v)
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b
	}
	// Fill leaves an interface nil: a variable's value is the profile's
	// (a string, a number, a list), and an apply's report is a plan's
	// (checked above, as plan -o json printed it).
	hm := filled(hostrecord.Manifest{}).(*hostrecord.Manifest)
	for i := range hm.Variables {
		hm.Variables[i].Value = "v"
	}
	var rep provision.Report
	if err := json.Unmarshal(plan, &rep); err != nil {
		t.Fatal(err)
	}
	up := filled(upResult{}).(*upResult)
	up.Manifest, up.Report = (*hostmanifest.Manifest)(hm), &rep
	status := filled(statusResult{}).(*statusResult)
	status.Manifest = (*hostmanifest.Manifest)(hm)
	b, err := hm.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	out["host manifest"] = b
	dr, err := hostmanifest.MarshalRecord(filled(hostmanifest.Record{}).(*hostmanifest.Record))
	if err != nil {
		t.Fatal(err)
	}
	out["drift record"] = dr
	out["seed record"] = filled(fixture.SeedRecord{}).(*fixture.SeedRecord).JSON()
	out["site files record"] = filled(fixture.SiteFiles{}).(*fixture.SiteFiles).JSON()
	marshal("apply mark (apply-unfinished.json)", filled(hostmanifest.Unfinished{}))
	marshal("journal (events.jsonl)", filled(cloud.Event{}))
	marshal("run.json", filled(stage.RunInfo{}))
	marshal("machines.json", filled([]cloud.Machine{}))
	marshal("firewall.json", filled([]cloud.FirewallRule{}))
	marshal("lazy rows record", filled(fixture.LazyRecord{}))
	marshal("status -o json", status)
	marshal("up -o json", up)
	marshal("verify -o json", filled(fixture.Report{}))
	marshal("bench-job (stdin)", filled(benchgen.Job{}))
	for _, spec := range []any{benchgen.CrowdJob{}, benchgen.KitJob{}, benchgen.StartupJob{}, benchgen.BrowseJob{}} {
		marshal("bench-job (stdin): "+reflect.TypeOf(spec).Name(), filled(spec))
	}
	marshal("bench-job (stdout)", filled(benchgen.JobResult{}))
	marshal("srvstat (samples)", filled(srvstat.Sample{}))
	marshal("srvstat --groups", filled([]srvstat.Group{}))
	return out
}

// A run directory written before the keys were snake_case (its manifest
// in format /2: a column's "ID", a scenario's "KeepAlive", "Own") reads
// as it did: its report is the same as the /3 run's, byte for byte, and
// compare finds nothing different between the two.
func TestRunOfFormat2Reads(t *testing.T) {
	now := claimsRun(t)
	old := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{results.ManifestFile, results.ResultsFile} {
		b, err := os.ReadFile(filepath.Join(now, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == results.ManifestFile {
			b = manifestV2(t, b)
		}
		if err := os.WriteFile(filepath.Join(old, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{now, old} {
		if code, _, stderr := runCLI(t, nil, "report", dir); code != 0 {
			t.Fatalf("report %s: exit %d: %s", dir, code, stderr)
		}
	}
	for _, f := range []string{"report.md", "report.html", results.ClaimsFile} {
		a, _ := os.ReadFile(filepath.Join(now, f))
		b, _ := os.ReadFile(filepath.Join(old, f))
		if len(a) == 0 || string(a) != string(b) {
			t.Errorf("%s of the /2 run differs from the /3 run's (%d and %d bytes)", f, len(b), len(a))
		}
	}
	code, stdout, stderr := runCLI(t, nil, "compare", "-o", "json", now, old)
	var c struct {
		Differences []string `json:"differences"`
		Significant int      `json:"significant"`
	}
	if err := json.Unmarshal([]byte(stdout), &c); code != 0 || err != nil || len(c.Differences) != 0 || c.Significant != 0 {
		t.Errorf("compare /3 with /2: exit %d, %+v (%v)\n%s", code, c, err, stderr)
	}
}

// manifestV2 is a /3 manifest as format /2 wrote it: the columns' and
// the scenarios' keys in Go's names (their values' bytes kept: a kind's
// own settings in the order it wrote them).
func manifestV2(t *testing.T, b []byte) []byte {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["format"] = json.RawMessage(`"wptest-run-manifest/2"`)
	goNames := map[string]string{"id": "ID", "profile": "Profile", "label": "Label", "vars": "Vars", "enabled": "Enabled",
		"reason": "Reason", "name": "Name", "kind": "Kind", "path": "Path", "visitors": "Visitors", "duration": "Duration",
		"warmup": "Warmup", "timeout": "Timeout", "requests": "Requests", "proto": "Proto", "rate": "Rate",
		"keep_alive": "KeepAlive", "gzip": "Gzip", "columns": "Columns", "own": "Own"}
	renamed := 0
	for _, list := range []string{"columns", "scenarios"} {
		var in []map[string]json.RawMessage
		if err := json.Unmarshal(m[list], &in); err != nil {
			t.Fatal(err)
		}
		out := make([]map[string]json.RawMessage, len(in))
		for i, e := range in {
			out[i] = map[string]json.RawMessage{}
			for k, v := range e {
				out[i][goNames[k]] = v
				renamed++
			}
		}
		m[list], _ = json.Marshal(out)
	}
	if renamed < 20 || strings.Contains(string(b), `"ID"`) {
		t.Fatalf("not a /3 manifest (%d keys renamed):\n%s", renamed, b)
	}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}
