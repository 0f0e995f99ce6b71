package experiment_test

import (
	"context"
	"github.com/wptest/wptest/results"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/report"
)

// TestRunRecordsNoUserinfo: a -var URL with a password in it (the quick
// experiment's ruid2_source_url, handed to cPanel's profile) and a measured
// URL with userinfo are recorded without it in manifest.json and
// results.jsonl, and so in report.md and report.html; the run itself still
// has the real value.
func TestRunRecordsNoUserinfo(t *testing.T) {
	const pw = "Pa55-w0rd-x"
	src, err := os.ReadFile("../experiments/quick.hcl")
	if err != nil {
		t.Fatal(err)
	}
	srcURL := "https://bob:" + pw + "@mirror.example/mod_ruid2.c"
	sp, err := experiment.Load("quick.hcl", src, experiment.LoadOptions{Vars: []string{"ruid2_source_url=" + srcURL}})
	if err != nil {
		t.Fatal(err)
	}
	used := false
	for _, p := range sp.Columns {
		used = used || p.Vars["ruid2_source_url"] == srcURL
	}
	if sp.Vars["ruid2_source_url"] != srcURL || !used {
		t.Fatalf("the run must keep the real value: vars %v", sp.Vars)
	}

	// One real measurement against a URL with userinfo.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	u := strings.Replace(srv.URL, "http://", "http://alice:"+pw+"@", 1) + "/"
	run, err := benchgen.Run(context.Background(), benchgen.Config{URL: u, Visitors: 1, KeepAlive: true, Duration: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if run.Outcomes.OK == 0 {
		t.Fatalf("no request answered: %+v", run.Outcomes)
	}
	p := sp.Plan()[0]
	rec := results.Record{Point: p, Set: result.Set{Run: &run}, Probe: &results.Probe{URL: u, Status: 200, Proto: "HTTP/1.1"}}

	dir, err := experiment.StartRun(sp, src, experiment.Options{RunsDir: filepath.Join(t.TempDir(), "runs"), ID: "secret-1", Target: "local"}, []results.Record{rec})
	if err != nil {
		t.Fatal(err)
	}
	out, err := report.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(dir, results.ManifestFile), filepath.Join(dir, results.ResultsFile), out.Markdown, out.HTML} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{pw, "bob:", "alice:"} {
			if strings.Contains(string(b), bad) {
				t.Errorf("%s holds %q", filepath.Base(f), bad)
			}
		}
	}
	man, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := man.Vars["ruid2_source_url"]; got != "https://(sensitive)@mirror.example/mod_ruid2.c" {
		t.Errorf("manifest vars: ruid2_source_url = %q", got)
	}
	md, _ := os.ReadFile(out.Markdown)
	if !strings.Contains(string(md), "ruid2_source_url=https://(sensitive)@mirror.example/mod_ruid2.c") {
		t.Errorf("report.md does not show the redacted URL in the variables row")
	}
}
