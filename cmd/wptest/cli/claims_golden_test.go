package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/internal/golden"
	"github.com/wptest/wptest/results"
)

// claimsRunOf is the run directory of an archive of testdata/claims: its
// exp.hcl with its figures.
func claimsRunOf(t *testing.T, a *txtar.Archive) string {
	t.Helper()
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

// testdata/claims/*.txtar: an experiment file with claims (exp.hcl) and
// the figures of a run of it (figures: "column scenario step key=value
// ..." a line, one record each, "na=" the rest of the line the reason the
// point was left out) give "Does it reproduce?" in report.md and in
// `wptest report -o json` (claims.json holds the same bytes).
func TestClaimsGolden(t *testing.T) {
	golden.Archives(t, "testdata/claims/*.txtar", func(t *testing.T, a *txtar.Archive) map[string]string {
		dir := claimsRunOf(t, a)
		code, out, stderr := runCLI(t, nil, "report", dir, "-o", "json")
		if code != 0 {
			t.Fatalf("report -o json: exit %d: %s", code, stderr)
		}
		md, err := os.ReadFile(filepath.Join(dir, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		cj, err := os.ReadFile(filepath.Join(dir, results.ClaimsFile))
		if err != nil || string(cj) != out {
			t.Errorf("claims.json differs from -o json (%v):\n%s", err, cj)
		}
		_, sec, ok := strings.Cut(string(md), "## Does it reproduce?\n")
		if !ok || !strings.HasPrefix(string(md)[strings.Index(string(md), "\n## ")+1:], "## Does it reproduce?") {
			t.Fatalf("report.md does not open with Does it reproduce?:\n%s", md)
		}
		sec, _, _ = strings.Cut(sec, "\n## ")
		return map[string]string{"report.md": "## Does it reproduce?\n" + sec, "claims.json": out}
	})
}

// writeClaimsRun writes a run directory of sp (one repetition) with a
// record for each line of figures.
func writeClaimsRun(t *testing.T, dir string, sp *experiment.Spec, figures string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := &results.Manifest{Format: results.ManifestFormat, ID: "claims", Experiment: sp.Name, File: "exp.hcl",
		ExperimentHash: sp.SHA256, PlanHash: sp.PlanHash(), Vars: sp.Vars, Target: "local", Tool: "wptest test",
		Columns: sp.Columns, Scenarios: sp.Scenarios, Claims: sp.Claims, Repetitions: 1, Points: len(sp.Plan()),
		Start: "2025-01-01T00:00:00Z", End: "2025-01-01T01:00:00Z", Complete: true}
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	s, _, err := results.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, line := range strings.Split(strings.TrimSpace(figures), "\n") {
		if err := s.Append(figureRecord(t, sp, line)); err != nil {
			t.Fatal(err)
		}
	}
}

// figureRecord is one line of figures as a record.
func figureRecord(t *testing.T, sp *experiment.Spec, line string) results.Record {
	line, na, _ := strings.Cut(line, " na=")
	f := strings.Fields(line)
	if len(f) < 3 {
		t.Fatalf("figures: %q: want column scenario step key=value ...", line)
	}
	p := results.Point{Key: "r1/" + f[0] + "/" + f[1] + "/" + f[2], Rep: 1, Profile: f[0], Scenario: f[1], Step: f[2]}
	p.Visitors, _ = strconv.Atoi(strings.TrimPrefix(f[2], "c="))
	for _, sc := range sp.Scenarios {
		if sc.Name == p.Scenario {
			p.Kind = sc.Kind
		}
	}
	rec := results.Record{Point: p, Start: "2025-01-01T00:00:00Z", End: "2025-01-01T00:00:10Z", NotApplicable: na}
	if na != "" {
		return rec
	}
	run := &result.Run{ElapsedMs: 10000, Outcomes: result.Outcomes{OK: 1000}, Attempts: 1000, Latency: result.Latency{Count: 1000}}
	var crowd *result.Crowd
	for _, kv := range f[3:] {
		k, s, _ := strings.Cut(kv, "=")
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("figures: %q: %v", kv, err)
		}
		switch k {
		case "rps":
			run.RPS = v
		case "mean":
			run.Latency.Mean = v
		case "body":
			run.Bytes.Body = int64(v)
		case "cpu":
			rec.Server = &result.Server{CPUMsPerRequest: v}
		case "pss_mb":
			rec.PSSKB = int64(v * 1024)
		case "wait", "gaveup":
			if crowd == nil {
				crowd = &result.Crowd{Probes: make([]result.Probe, 60), Wait: result.Latency{Count: 60}}
			}
			if k == "wait" {
				crowd.Wait.P50 = v
			} else {
				crowd.GaveUp = int64(v)
			}
		default:
			t.Fatalf("figures: unknown key %q", k)
		}
	}
	if crowd != nil {
		rec.Crowd = crowd
	} else {
		rec.Run = run
	}
	return rec
}
