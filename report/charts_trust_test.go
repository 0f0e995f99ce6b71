package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/runtest"
	"github.com/wptest/wptest/results"
)

// Every chart of a figure says which way is better, and a point whose
// repetitions differ is drawn with its range (a thin bar with caps in the
// column's colour) beside its median; where they agree there is none.
func TestChartsShowRangesAndWhichWayIsBetter(t *testing.T) {
	dir := t.TempDir()
	ranges := regexp.MustCompile(`style="fill:none;stroke:#555555"`)              // the ranges over the bars
	lineRanges := regexp.MustCompile(`style="fill:none;stroke:#(0072B2|E69F00)"`) // beside the lines' marks, in the columns' colours
	scs := []results.Scenario{runtest.Scenarios[0], {Name: "static", Kind: "static", Path: "/s.css", Visitors: []int{1, 10}, Proto: "h1", KeepAlive: true}}
	count := func(jitter []float64) (string, int) {
		run := runtest.Run{ID: "j" + strings.Repeat("x", len(jitter)), Reps: 3, Jitter: jitter, Scenarios: scs}.Write(t, dir)
		if _, err := Write(run); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(run, "report.html"))
		if err != nil {
			t.Fatal(err)
		}
		at := strings.Index(string(b), `<figure id="chart-cpu-page"`)
		if at < 0 {
			t.Fatal("no chart of the page's CPU")
		}
		page, _, _ := strings.Cut(string(b)[at:], "</figure>")
		at = strings.Index(string(b), `<figure id="chart-rps-static"`)
		if at < 0 {
			t.Fatal("no chart of the static file's rate")
		}
		lines, _, _ := strings.Cut(string(b)[at:], "</figure>")
		return page, len(ranges.FindAllString(page, -1)) + len(lineRanges.FindAllString(lines, -1))
	}
	steady, none := count(nil)
	if !strings.Contains(steady, "(/): lower is better</text>") {
		t.Error("the page's CPU chart does not say lower is better")
	}
	_, some := count([]float64{-10, 0, 10})
	// Two columns: two bars and four marks on lines, each with a range and
	// its two caps.
	if some-none != 6*3 {
		t.Errorf("%d range strokes with the repetitions apart, %d without: want 18 more", some, none)
	}
}
