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
	"github.com/wptest/wptest/experiment"
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
	src, _ := golden.Section(a, "exp.hcl")
	sp, err := experiment.Load("exp.hcl", src, experiment.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	figures, _ := golden.Section(a, "figures")
	writeClaimsRun(t, dir, sp, string(figures))
	return dir
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
	marshal("bench-job (stdout)", filled(benchgen.JobResult{}))
	marshal("srvstat (samples)", filled(srvstat.Sample{}))
	marshal("srvstat --groups", filled([]srvstat.Group{}))
	return out
}
