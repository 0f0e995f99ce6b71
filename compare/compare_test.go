package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/runtest"
	"github.com/wptest/wptest/results"
)

var jitter = []float64{0, 1, -1, 2, -2}

// doubled doubles the rate of one point: cpanel-apache, page, c=8.
func doubled(r *results.Record) {
	if r.Column == "cpanel-apache" && r.Scenario == "page" && r.Step == "c=8" {
		r.Run.RPS *= 2
	}
}

func TestSameDistributionsAllTilde(t *testing.T) {
	dir := t.TempDir()
	// Every kind runtest writes, browse too: compare names none of them.
	scs := append(slices.Clip(runtest.Scenarios), results.Scenario{Name: "browse", Kind: "browse", Path: "/", Visitors: []int{10}, Proto: "h1"})
	a := runtest.Run{ID: "a", Reps: 5, Jitter: jitter, Scenarios: scs}.Write(t, dir)
	// The same samples in another repetition order.
	b := runtest.Run{ID: "b", Reps: 5, Jitter: []float64{2, -2, 0, -1, 1}, Scenarios: scs}.Write(t, dir)
	c, err := Dirs(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) == 0 {
		t.Fatal("no rows")
	}
	metrics := map[string]bool{}
	for _, r := range c.Rows {
		metrics[r.Kind+" "+r.Metric] = true
		if m, _ := results.MetricOf(r.Kind, r.Metric); r.Label != m.Label || !m.Headline {
			t.Errorf("%s %s: label %q; want the registry's headline figure's %q", r.Kind, r.Metric, r.Label, m.Label)
		}
		if r.Significant || r.Change() != "~" || r.P != 1 || len(r.A) != 5 || len(r.B) != 5 || r.TooFew {
			t.Errorf("%+v: want ~ with p=1 over 5+5 samples", r)
		}
		if r.MedianA != r.MedianB {
			t.Errorf("%s %s %s: medians %v and %v of the same samples", r.Column, r.Step, r.Metric, r.MedianA, r.MedianB)
		}
	}
	for _, m := range []string{"page rps", "page p50_ms", "page p99_ms", "page error_pct", "page server_cpu_ms",
		"page web_php_cpu_ms", "page pss_mb", "crowd wait_p50_ms", "crowd gave_up", "kit rps", "kit keep_alive_x",
		"browse view_p50_ms", "browse views_per_sec", "browse wire_bytes_per_view", "crowd server_cpu_ms", "crowd web_php_cpu_ms",
		"browse server_cpu_ms", "browse pss_mb", "kit server_cpu_ms"} {
		if !metrics[m] {
			t.Errorf("no row for %q", m)
		}
	}
	if len(c.Differences) != 0 || c.Note != "" {
		t.Errorf("differences %q, note %q: want none", c.Differences, c.Note)
	}
	// A valid test's chance of p < 0.05 when nothing differs is at most
	// 0.05 a row; rows of one value throughout (no errors) have none.
	var distinct int
	for _, r := range c.Rows {
		if r.MedianA != 0 || r.MedianB != 0 {
			distinct++
		}
	}
	if c.Significant != 0 || c.ByChance <= 0 || c.ByChance > float64(distinct)*0.05+1e-9 {
		t.Errorf("significant %d, by chance %v: want 0 and (0, %d × 0.05]", c.Significant, c.ByChance, distinct)
	}
}

func TestDoubledRateSignificant(t *testing.T) {
	dir := t.TempDir()
	a := runtest.Run{ID: "a", Reps: 5, Jitter: jitter}.Write(t, dir)
	b := runtest.Run{ID: "b", Reps: 5, Jitter: []float64{-1, 0, 2, 1, -2}, Edit: doubled,
		Vars: map[string]string{"note": "doubled"}}.Write(t, dir)
	c, err := Dirs(a, b)
	if err != nil {
		t.Fatal(err)
	}
	sig := 0
	for _, r := range c.Rows {
		if r.Column == "cpanel-apache" && r.Scenario == "page" && r.Step == "c=8" && r.Metric == "rps" {
			sig++
			if !r.Significant || r.P >= 0.05 || r.Change() != "+100.0%" || *r.ChangePct != 100 {
				t.Errorf("doubled point: %+v (change %s), want significant +100.0%%", r, r.Change())
			}
			if r.P != 2.0/252 { // every B sample above every A sample
				t.Errorf("p = %v, want 2/252", r.P)
			}
			continue
		}
		if r.Significant || r.Change() != "~" {
			t.Errorf("%s %s %s %s: %s p=%v, want ~", r.Column, r.Scenario, r.Step, r.Metric, r.Change(), r.P)
		}
	}
	if sig != 1 || c.Significant != 1 {
		t.Errorf("%d rows for the doubled point, %d significant: want 1 and 1", sig, c.Significant)
	}
	if want := `var note: unset → "doubled"`; len(c.Differences) != 1 || c.Differences[0] != want {
		t.Errorf("differences %q, want [%s]", c.Differences, want)
	}
	var out bytes.Buffer
	if err := c.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"differs: var note: unset → \"doubled\"", "\npage (page)\n", "\ncrowd (crowd)\n", "\nkit (kit)\n",
		"+100.0%", "p=0.008 n=5+5", "p=1.000 n=5+5",
		fmt.Sprintf("\n1 of %d lines are significant; were nothing different between the runs, about %.1f would be by chance alone", len(c.Rows), c.ByChance)} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	// Exactly one line says a change; the rest say ~.
	changed := 0
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "%  ") && strings.Contains(l, "p=") {
			changed++
			if !strings.HasPrefix(l, "c=8 ") || !strings.Contains(l, "cpanel-apache") || !strings.Contains(l, "pages per second") {
				t.Errorf("changed line %q is not the doubled point", l)
			}
		}
	}
	if changed != 1 {
		t.Errorf("%d changed lines, want 1:\n%s", changed, text)
	}
}

// With 2 repetitions a side no difference can reach p < 0.05 (the best is
// 1/3): even the doubled point is ~, and the output says why once.
func TestTooFewRepetitions(t *testing.T) {
	dir := t.TempDir()
	a := runtest.Run{ID: "a", Reps: 2, Jitter: jitter}.Write(t, dir)
	b := runtest.Run{ID: "b", Reps: 2, Jitter: jitter, Edit: doubled}.Write(t, dir)
	c, err := Dirs(a, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Rows {
		if r.Significant || !r.TooFew || r.Change() != "~" {
			t.Errorf("%+v: want ~ (too few)", r)
		}
		if r.Metric == "rps" && r.Step == "c=8" && r.Column == "cpanel-apache" && (r.P != 1.0/3 || *r.ChangePct != 100) {
			t.Errorf("doubled point with 2+2: p=%v change=%v, want 1/3 and +100", r.P, *r.ChangePct)
		}
	}
	want := "n=2+2: the smallest possible p is 0.333, not below 0.05, so no difference there can be significant " +
		"and those lines read ~ whatever they show; p < 0.05 needs at least 4 repetitions per run (A has 2, B has 2)"
	if c.Note != want {
		t.Errorf("note %q\nwant %q", c.Note, want)
	}
	if c.ByChance != 0 || c.Chance() != "" {
		t.Errorf("by chance %v (%q): want 0 and no line where no row can be significant", c.ByChance, c.Chance())
	}
	var out bytes.Buffer
	c.WriteText(&out)
	if n := strings.Count(out.String(), "the smallest possible p is"); n != 1 || !strings.Contains(out.String(), "\n"+want+"\n") {
		t.Errorf("the note appears %d times, want once on a line of its own:\n%s", n, out.String())
	}
}

// A point that lost repetitions to errors can be too small where the rest
// are not: the note names its sample sizes alone, and its doubled rate
// stays ~ while the same doubling elsewhere is significant.
func TestTooFewSamplesAtOnePoint(t *testing.T) {
	dir := t.TempDir()
	a := runtest.Run{ID: "a", Reps: 5, Jitter: jitter}.Write(t, dir)
	b := runtest.Run{ID: "b", Reps: 5, Jitter: jitter, Edit: func(r *results.Record) {
		doubled(r)
		if r.Column == "corehttpd" && r.Scenario == "page" && r.Step == "c=8" {
			r.Run.RPS *= 2
			if r.Rep > 2 {
				r.Error = "apply corehttpd on local: exit status 1"
			}
		}
	}}.Write(t, dir)
	c, err := Dirs(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var other, cpanel *Row
	for i, r := range c.Rows {
		if r.Scenario == "page" && r.Step == "c=8" && r.Metric == "rps" {
			switch r.Column {
			case "corehttpd":
				other = &c.Rows[i]
			case "cpanel-apache":
				cpanel = &c.Rows[i]
			}
		}
		if r.TooFew != (r.Column == "corehttpd" && r.Scenario == "page" && r.Step == "c=8") {
			t.Errorf("%s %s %s %s: too few %v over n=%d+%d", r.Column, r.Scenario, r.Step, r.Metric, r.TooFew, len(r.A), len(r.B))
		}
	}
	if other == nil || cpanel == nil {
		t.Fatal("no page c=8 req/s rows for other and cpanel-apache")
	}
	if other.Change() != "~" || len(other.B) != 2 || cpanel.Change() != "+100.0%" {
		t.Errorf("other %s over n=%d+%d, cpanel-apache %s: want ~ over 5+2 and +100.0%%", other.Change(), len(other.A), len(other.B), cpanel.Change())
	}
	if want := "n=5+2: the smallest possible p is 0.095, not below 0.05,"; !strings.HasPrefix(c.Note, want) ||
		!strings.HasSuffix(c.Note, "(A has 5, B has 5)") {
		t.Errorf("note %q, want it to start %q", c.Note, want)
	}
}

// The ~ rule: significant only with p < α and samples that can reach it.
func TestTildeRule(t *testing.T) {
	for _, c := range []struct {
		a, b []float64
		want string
	}{
		{[]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, "+166.7%"}, // medians 3 → 8, p = 0.0079
		{[]float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, "+160.0%"},        // 2.5 → 6.5, p = 0.029
		{[]float64{1, 2, 3}, []float64{4, 5, 6}, "~"},                    // p = 0.1: too few
		{[]float64{1, 2, 3}, []float64{4, 5, 6, 7}, "~"},                 // p = 0.057: too few
		{[]float64{1, 2, 3}, []float64{4, 5, 6, 7, 8}, "+200.0%"},        // 2 → 6, p = 0.036
		{[]float64{1, 2, 3, 4, 5}, []float64{2, 3, 4, 5, 6}, "~"},        // p = 0.42
		{[]float64{10, 9, 8, 7, 6}, []float64{1, 2, 3, 4, 5}, "-62.5%"},
		{[]float64{0, 0, 0, 0}, []float64{1, 1, 1, 1}, "from 0"},
		{[]float64{0, 0, 0, 0}, []float64{0, 0, 0, 0}, "~"},
	} {
		rows := rowsOf(t, c.a, c.b)
		if got := rows.Change(); got != c.want {
			t.Errorf("%v vs %v: %s (p=%v), want %s", c.a, c.b, got, rows.P, c.want)
		}
	}
}

// rowsOf compares one point whose req/s samples are a and b.
func rowsOf(t *testing.T, a, b []float64) Row {
	t.Helper()
	dir := t.TempDir()
	mk := func(id string, vs []float64) string {
		rep := 0
		return runtest.Run{ID: id, Reps: len(vs), Edit: func(r *results.Record) {
			if r.Column == "cpanel-apache" && r.Scenario == "page" && r.Step == "c=2" {
				r.Run.RPS = vs[rep]
				rep++
			}
		}}.Write(t, dir)
	}
	c, err := Dirs(mk("a", a), mk("b", b))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Rows {
		if r.Column == "cpanel-apache" && r.Scenario == "page" && r.Step == "c=2" && r.Metric == "rps" {
			return r
		}
	}
	t.Fatal("no row")
	return Row{}
}

func TestDifferencesAndErrors(t *testing.T) {
	dir := t.TempDir()
	a := runtest.Run{ID: "a", Reps: 4, Vars: map[string]string{"php": "8.2", "gone": "x"}}.Write(t, dir)
	b := runtest.Run{ID: "b", Reps: 5, Vars: map[string]string{"php": "8.3"}}.Write(t, dir)
	// B's manifest: another experiment, a changed scenario.
	m, err := results.ReadManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	m.Experiment = "quick-opcache"
	m.Scenarios[0].Proto = "h2"
	m.PlanHash = strings.Repeat("ef", 32)
	if err := m.Write(b); err != nil {
		t.Fatal(err)
	}
	c, err := Dirs(a, b)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`experiment: "quick" → "quick-opcache"`, "plan: cdcdcdcdcdcd → efefefefefef",
		`var gone: "x" → unset`, `var php: "8.2" → "8.3"`, "scenario page Proto: h1 → h2", "repetitions: 4 → 5"}
	if strings.Join(c.Differences, "\n") != strings.Join(want, "\n") {
		t.Errorf("differences:\n%s\nwant:\n%s", strings.Join(c.Differences, "\n"), strings.Join(want, "\n"))
	}

	// No point in common: an error, not an empty table.
	other := filepath.Join(dir, "other")
	runtest.Run{ID: "other", Reps: 1, Edit: func(r *results.Record) { r.Scenario = "else" }}.Write(t, dir)
	if _, err := Dirs(a, other); !errors.Is(err, ErrNothingInCommon) {
		t.Errorf("no common point: %v, want ErrNothingInCommon", err)
	}
	// A missing run names which.
	if _, err := Dirs(filepath.Join(dir, "nope"), b); err == nil || !strings.Contains(err.Error(), "run A") {
		t.Errorf("missing A: %v", err)
	}
	os.WriteFile(filepath.Join(b, results.ResultsFile), []byte("{bad\n"), 0o644)
	if _, err := Dirs(a, b); err == nil || !strings.Contains(err.Error(), "run B") {
		t.Errorf("unreadable B: %v", err)
	}
}

// Server CPU per request is the report's figure: the whole machine's for a
// server that had a machine of its own, the process groups' otherwise; two
// runs that count it differently say so.
func TestServerCPUAsTheRunCountsIt(t *testing.T) {
	dir := t.TempDir()
	own := &results.MachineInfo{OwnMachine: true}
	a := runtest.Run{ID: "a", Reps: 5, Machine: own}.Write(t, dir)
	b := runtest.Run{ID: "b", Reps: 5, Machine: own}.Write(t, dir)
	shared := runtest.Run{ID: "shared", Reps: 5, Machine: &results.MachineInfo{SharedWith: "the load generator"}}.Write(t, dir)
	medians := func(c *Comparison) (float64, float64) {
		for _, r := range c.Rows {
			if r.Metric == "server_cpu_ms" {
				return r.MedianA, r.MedianB
			}
		}
		t.Fatal("no server CPU/req row")
		return 0, 0
	}
	c, err := Dirs(a, b)
	if err != nil {
		t.Fatal(err)
	}
	// runtest writes the machine-wide figure as 2 ms and the groups' as 1.8.
	if ma, mb := medians(c); ma != 2 || mb != 2 {
		t.Errorf("own machines: server CPU/req medians %v, %v; want the machine-wide 2, 2", ma, mb)
	}
	for _, d := range c.Differences {
		if strings.Contains(d, "CPU") {
			t.Errorf("same scope, yet a difference: %q", d)
		}
	}
	c, err = Dirs(a, shared)
	if err != nil {
		t.Fatal(err)
	}
	if ma, mb := medians(c); ma != 2 || mb != 1.8 {
		t.Errorf("own vs shared machine: medians %v, %v; want 2 (whole machine), 1.8 (process groups)", ma, mb)
	}
	want := `server CPU per request (server_cpu_ms) counts: "whole machine" → "web server + PHP + database processes"`
	if !slices.Contains(c.Differences, want) {
		t.Errorf("differences %q lack %q", c.Differences, want)
	}
}

// Two runs that state their load generators' link differently mark
// different points as having measured the link: compare says so.
func TestStatedLinkDiffers(t *testing.T) {
	dir := t.TempDir()
	a := runtest.Run{ID: "a", Reps: 2, Machine: &results.MachineInfo{OwnMachine: true, LoadGenLinkMbps: 1000}}.Write(t, dir)
	b := runtest.Run{ID: "b", Reps: 2, Machine: &results.MachineInfo{OwnMachine: true}}.Write(t, dir)
	c, err := Dirs(a, b)
	if err != nil {
		t.Fatal(err)
	}
	want := `the load generators' stated link (load_generator_link_mbps): "1000 Mbit/s" → "none stated"`
	if !slices.Contains(c.Differences, want) {
		t.Errorf("differences %q lack %q", c.Differences, want)
	}
	if c, err := Dirs(a, a); err != nil || len(c.Differences) != 0 {
		t.Errorf("a run against itself: %q, %v", c.Differences, err)
	}
}

// A kind's own settings are compared by name and value: a run written
// before they were its own (every scenario carried the crowd's durations,
// in Go's names) differs from a run of the same file now in nothing, and
// a setting that changed is named with both values.
func TestDifferencesInAKindsOwnSettings(t *testing.T) {
	dir := t.TempDir()
	scs := []results.Scenario{
		{Name: "page", Kind: "page", Path: "/", Visitors: []int{2}, Proto: "h1", KeepAlive: true},
		{Name: "crowd", Kind: "crowd", Path: "/", Visitors: []int{100}, Proto: "h1",
			Own: json.RawMessage(`{"click_every":10000000000,"probe_every":500000000,"give_up":30000000000}`)},
	}
	a := runtest.Run{ID: "a", Reps: 1, Scenarios: scs}.Write(t, dir)
	old := func(id string, click int64) string {
		d := runtest.Run{ID: id, Reps: 1, Scenarios: scs}.Write(t, dir)
		p := filepath.Join(d, results.ManifestFile)
		var m map[string]any
		b, _ := os.ReadFile(p)
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		m["format"] = "wptest-run-manifest/1"
		for _, s := range m["scenarios"].([]any) {
			s := s.(map[string]any)
			delete(s, "own") // /1 had no own settings: the kinds' were beside the common ones
			for k, v := range map[string]any{"ProbePath": "", "TransferPath": "", "ClickEvery": click, "ProbeEvery": 500000000,
				"GiveUp": 30000000000, "Levels": nil, "ErrorClients": 0} {
				s[k] = v
			}
		}
		b, _ = json.MarshalIndent(m, "", "  ")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, c := range []struct {
		b    string
		want []string
	}{
		{old("same", 10000000000), nil},
		{old("slower", 5000000000), []string{"scenario crowd click_every: 10000000000 → 5000000000"}},
	} {
		got, err := Dirs(a, c.b)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Differences, c.want) {
			t.Errorf("%s: differences %q, want %q", filepath.Base(c.b), got.Differences, c.want)
		}
	}
}
