package experiment

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/fuzzcheck"
	"github.com/wptest/wptest/results"
)

// addSeeds adds the shipped experiment files and the error goldens' exp.hcl.
func addSeeds(f *testing.F) {
	f.Helper()
	shipped, _ := filepath.Glob("../experiments/*.hcl")
	goldens, _ := filepath.Glob("testdata/errors/*.txtar")
	for _, p := range append(shipped, goldens...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if strings.HasSuffix(p, ".txtar") {
			for _, file := range txtar.Parse(b).Files {
				if file.Name == "exp.hcl" {
					f.Add(file.Data)
				}
			}
			continue
		}
		f.Add(b)
	}
}

// FuzzLoad: an experiment file either loads or gives a config error that
// starts at a file:line:col inside it, and loading it again gives the same
// spec or the same error.
func FuzzLoad(f *testing.F) {
	addSeeds(f)
	f.Add([]byte("experiment \"e\" {}\nfixture \"minimal\" { seed = 1 }\nprofile \"caddy\" {}\nscenario \"s\" {\n  kind = \"kit\"\n  visitors = []\n}\n"))
	f.Add([]byte("experiment \"e\" {\n  description = \"\xff\"\n}\n"))
	f.Add([]byte("x = " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300) + "\n")) // nested too deep
	f.Fuzz(func(t *testing.T, src []byte) {
		sp, err := Load("exp.hcl", src, LoadOptions{})
		sp2, err2 := Load("exp.hcl", src, LoadOptions{})
		if err != nil {
			if exitcode.Of(err) != exitcode.Config {
				t.Errorf("exit code %d, want %d: %v", exitcode.Of(err), exitcode.Config, err)
			}
			fuzzcheck.Error(t, "exp.hcl", src, err)
			if err2 == nil || err2.Error() != err.Error() {
				t.Fatalf("loaded twice, different answers:\n%v\n---\n%v", err, err2)
			}
			return
		}
		if err2 != nil || !reflect.DeepEqual(sp, sp2) {
			t.Fatalf("loaded twice, different answers: %v", err2)
		}
		if sp.PlanHash() != sp2.PlanHash() {
			t.Fatal("plan hash differs between two loads")
		}
		for _, sc := range sp.Scenarios {
			if len(sc.Steps()) == 0 {
				t.Errorf("scenario %q loaded with no steps", sc.Name)
			}
		}
	})
}

// recordJSON is recs as the store writes them, to compare what was read.
func recordJSON(t *testing.T, recs []results.Record) string {
	t.Helper()
	var b bytes.Buffer
	for _, r := range recs {
		j, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(j, '\n'))
	}
	return b.String()
}

// FuzzResults: whatever results.jsonl holds (a cut-off last line, CRLF
// endings, blank lines), what it reads as is what it reads as again after
// being written; and on --resume a record appended after it reads back
// whole, after the records that were there.
func FuzzResults(f *testing.F) {
	rec := results.Record{Point: results.Point{Key: "r1/a/s/c=1", Rep: 1, Column: "a", Profile: "a", Scenario: "s", Kind: "page", Step: "c=1", Visitors: 1},
		Start: "2026-01-01T00:00:00Z", End: "2026-01-01T00:00:01Z", ServerCPUMsPerReq: 1.5, Error: "x"}
	line, _ := json.Marshal(rec)
	f.Add(append(append([]byte{}, line...), '\n'))
	f.Add(append(append([]byte{}, line...), "\r\n"...))
	f.Add(append(append(append([]byte{}, line...), '\n'), line[:len(line)/2]...))
	f.Add(append(append(append([]byte{}, line...), "\r\n"...), line[:len(line)/2]...))
	f.Add(append(append(append([]byte{}, line...), "\n\n"...), line...))
	f.Add([]byte(`{"key":"k","generators":[],"probe":{"url":"u"}}` + "\r\n" + `{"key":"k2"}` + "\r"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, results.ResultsFile)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		recs, err := results.ReadResults(dir)
		if err != nil {
			if !strings.HasPrefix(err.Error(), path+": line ") {
				t.Errorf("error does not name the file and line: %v", err)
			}
			return
		}
		// Round trip: written as the store writes, read back the same.
		written := recordJSON(t, recs)
		if err := os.WriteFile(path, []byte(written), 0o644); err != nil {
			t.Fatal(err)
		}
		again, err := results.ReadResults(dir)
		if err != nil {
			t.Fatalf("reading what was written: %v", err)
		}
		if got := recordJSON(t, again); got != written {
			t.Fatalf("round trip:\nwrote %q\nread  %q", written, got)
		}
		// --resume: the original bytes, then one append.
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		st, prior, err := results.OpenStore(dir)
		if err != nil {
			t.Fatalf("openStore after ReadResults read it: %v", err)
		}
		if recordJSON(t, prior) != written {
			t.Fatalf("openStore and ReadResults disagree")
		}
		if err := st.Append(rec); err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		after, err := results.ReadResults(dir)
		if err != nil {
			t.Fatalf("after an append on resume: %v", err)
		}
		if got, want := recordJSON(t, after), written+recordJSON(t, []results.Record{rec}); got != want {
			t.Fatalf("after an append on resume:\ngot  %q\nwant %q", got, want)
		}
	})
}

// FuzzManifest: a manifest.json either reads or gives an error naming the
// file; one that reads is written and read back the same, its scenarios'
// steps can be listed, and --resume of it against a spec answers without
// panicking.
func FuzzManifest(f *testing.F) {
	src, err := os.ReadFile("../experiments/quick.hcl")
	if err != nil {
		f.Fatal(err)
	}
	sp, err := Load("quick.hcl", src, LoadOptions{})
	if err != nil {
		f.Fatal(err)
	}
	m := &results.Manifest{Format: results.ManifestFormat, ID: "r1", Experiment: sp.Name, File: sp.File, ExperimentHash: sp.SHA256,
		PlanHash: sp.PlanHash(), Vars: sp.Vars, Columns: sp.Columns, Scenarios: sp.Scenarios,
		Repetitions: sp.Repetitions, Points: len(sp.Plan()), Sessions: []results.Session{{Start: "s", Measured: []string{"k"}}}}
	good, _ := json.MarshalIndent(m, "", "  ")
	f.Add(good)
	f.Add([]byte(`{"format":"` + results.ManifestFormat + `","plan_sha256":"ab","scenarios":[{"Name":"s","Kind":"kit"}]}`))
	f.Add([]byte(`{"format":"` + results.ManifestFormat + `","host_manifests":{"a":null},"fixture":null}`))
	f.Add([]byte(`{"format":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, results.ManifestFile)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := results.ReadManifest(dir)
		if err != nil {
			if !strings.HasPrefix(err.Error(), path+": ") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		for _, sc := range m.Scenarios {
			sc.Steps()
		}
		first, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("marshal what was read: %v", err)
		}
		if err := m.Write(dir); err != nil {
			t.Fatal(err)
		}
		m2, err := results.ReadManifest(dir)
		if err != nil {
			t.Fatalf("reading what was written: %v", err)
		}
		if second, _ := json.Marshal(m2); !bytes.Equal(first, second) {
			t.Fatalf("round trip:\nwrote %s\nread  %s", first, second)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := openManifest(sp, src, Options{Resume: true, ID: "r1", RunsDir: filepath.Dir(dir)}, dir); err != nil && exitcode.Of(err) != exitcode.Config {
			t.Errorf("resume: exit code %d, want %d: %v", exitcode.Of(err), exitcode.Config, err)
		}
	})
}

// Two unknown attributes in a block are named in file order, every time
// (HCL reports them in map order; FuzzLoad found two loads disagreeing).
func TestUnknownAttributesInFileOrder(t *testing.T) {
	src := []byte("experiment \"e\" {}\nfixture \"minimal\" { seed = 1 }\nprofile \"caddy\" {}\nscenario \"s\" {\n  kind     = \"page\"\n  visidors = [1]\n  visiters = [2]\n  vistors = [3]\n}\n")
	for range 20 {
		_, err := Load("exp.hcl", src, LoadOptions{})
		if err == nil {
			t.Fatal("loaded")
		}
		var pos []string
		for _, l := range strings.Split(err.Error(), "\n") {
			if strings.HasPrefix(l, "exp.hcl:") {
				pos = append(pos, strings.SplitN(l, " ", 2)[0])
			}
		}
		if got := strings.Join(pos, " "); got != "exp.hcl:6:3: exp.hcl:7:3: exp.hcl:8:3: exp.hcl:4:1:" {
			t.Fatalf("errors at %s", got)
		}
	}
}
