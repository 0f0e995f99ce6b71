package experiment

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/results"
)

// Each point's line carries its own figure once it ends (the last
// point's too), never the previous point's; while it is measured, only a
// terminal's live line shows it begun (Busy), with no figure.
func TestPointLineCarriesItsOwnFigure(t *testing.T) {
	sp, err := Load("est.hcl", []byte(fmt.Sprintf(estimateHCL, "4s")), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := results.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var lines []Progress
	r := &runner{sp: sp, st: st, plan: planOf(sp), eta: newETA(sp),
		opt: Options{Log: io.Discard, Now: func() time.Time { return t0 }, Progress: func(p Progress) { lines = append(lines, p) }}}
	r.eta.started = t0
	for i, p := range r.plan.points {
		stepLoad{}.progress(r, p, "")
		rps := 1000 * float64(i+1) / 7 // 142.857..., 285.714...: whole at 3 digits and above
		rec := results.Record{Point: p, ServerCPUMsPerReq: 0.15312 * float64(i+1), Set: result.Set{Run: &result.Run{RPS: rps / 10}}}
		if err := st.Append(rec); err != nil {
			t.Fatal(err)
		}
		stepLoad{}.progress(r, p, headline(rec))
	}
	n := len(r.plan.points)
	if len(lines) != 2*n {
		t.Fatalf("%d lines for %d points: %v", len(lines), n, lines)
	}
	for i, p := range r.plan.points {
		begun, ended := lines[2*i], lines[2*i+1]
		head := fmt.Sprintf("[%d/%d] rep %d/2 · %s · %s %s", i+1, n, p.Rep, p.Column, p.Scenario, p.Step)
		if begun.Kind != Busy || !strings.HasPrefix(begun.Text, head+" (") || strings.Contains(begun.Text, "req/s") {
			t.Errorf("point %d begun: %v %q, want Busy %q without a figure", i+1, begun.Kind, begun.Text, head)
		}
		want := head + ": " + results.Num(1000*float64(i+1)/70) + " req/s, " + results.Num(0.15312*float64(i+1)) + " ms CPU/req"
		if ended.Kind != Point || !strings.HasPrefix(ended.Text, want) {
			t.Errorf("point %d ended: %v %q, want Point %q", i+1, ended.Kind, ended.Text, want)
		}
	}
	if last := lines[2*n-1].Text; !strings.Contains(last, "req/s") {
		t.Errorf("the last point's line has no figure: %q", last)
	}
}

// A point's figures read to 3 significant digits, not rounded to whole
// requests.
func TestPointFigureThreeDigits(t *testing.T) {
	for _, c := range []struct {
		rec  results.Record
		want string
	}{
		{results.Record{Set: result.Set{Run: &result.Run{RPS: 16.349}}}, "16.3 req/s"},
		{results.Record{Set: result.Set{Run: &result.Run{RPS: 4.567}}, ServerCPUMsPerReq: 0.15312}, "4.57 req/s, 0.153 ms CPU/req"},
		{results.Record{Set: result.Set{Run: &result.Run{RPS: 876.4}}, ServerCPUMsPerReq: 12.345}, "876 req/s, 12.3 ms CPU/req"},
		{results.Record{Set: result.Set{Kit: &result.Kit{Throughput: result.Run{RPS: 0.8123}}}}, "0.812 req/s"},
		{results.Record{Set: result.Set{Browse: &result.Browse{PageViewsPerSec: 3.14159}}}, "3.14 page views/s"},
	} {
		if got := headline(c.rec); got != c.want {
			t.Errorf("headline %q, want %q", got, c.want)
		}
	}
}

// The line that counts an apply's deviations names them, with no "(s)".
func TestDeviationsNoteNamesThem(t *testing.T) {
	for _, c := range []struct {
		changes int
		devs    []string
		want    string
	}{
		{0, nil, "0 changes, no deviation"},
		{1, []string{"WordPress from Debian's package"}, "1 change; 1 deviation: WordPress from Debian's package"},
		{3, []string{"a", "b"}, "3 changes; 2 deviations: a; b"},
		{2, []string{"a", "b", "c", "d"}, "2 changes; 4 deviations: a; b; and 2 more"},
	} {
		if got := deviationsNote(c.changes, c.devs); got != c.want {
			t.Errorf("deviationsNote(%d, %q) = %q, want %q", c.changes, c.devs, got, c.want)
		}
	}
}
