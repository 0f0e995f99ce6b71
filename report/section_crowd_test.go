package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/internal/runtest"
	"github.com/wptest/wptest/results"
)

// The crowd's section says in one line whether the crowd was on the site
// for each point's whole probe window, from the records' windows; records
// without one (runs from before it was recorded) add no line (the golden
// report, TestReportGolden, is such a run).
func TestCrowdSectionSaysWhenTheCrowdWasOnTheSite(t *testing.T) {
	whole := result.CrowdWindow{WarmupMs: 1000, CompleteMs: 950, ProbeStartMs: 1000, FirstProbeMs: 1000, LastProbeEndMs: 2000, StoppedMs: 2001}
	late := whole
	late.CompleteMs = 1200
	for _, tc := range []struct {
		name       string
		one, other *result.CrowdWindow
		want       string
	}{
		{"old run", nil, nil, ""},
		{"whole", &whole, &whole, "The crowd was on the site for the whole probe window in every point (6): complete at least 0.1 s before the first new visitor"},
		{"one late", &late, &whole, "In 1 of 6 points the crowd was not on the site for the whole probe window (the first: n1, c=1, repetition 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, recs := hostileRun("n", "plain")
			seen := false
			for i := range recs {
				if c := recs[i].Crowd; c != nil {
					w := tc.other
					if !seen {
						w, seen = tc.one, true
					}
					cc := *c
					cc.Window = w
					recs[i].Crowd = &cc
				}
			}
			md, _, err := newReport("", m, recs).render()
			if err != nil {
				t.Fatal(err)
			}
			got := string(md)
			if tc.want == "" {
				if strings.Contains(got, "probe window") {
					t.Errorf("a run without crowd windows says something of them")
				}
				return
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("want %q in the crowd section; got:\n%s", tc.want, got[strings.Index(got, "A crowd keeps"):][:600])
			}
		})
	}
}

// A column whose new visitors all gave up has no wait to draw: its chart
// shows it all the same, at the give-up time, paler, labelled "≥ 10,000:
// none answered", as bars at one crowd size and on its line over several.
// Where no point of the column has a floor either, it is left out.
func TestCrowdChartKeepsTheColumnThatNobodyAnswered(t *testing.T) {
	nobody := func(r *results.Record) {
		if r.Column == "cpanel-apache" && r.Crowd != nil && (r.Step == "c=100" || r.Step == "c=1000") {
			c := *r.Crowd
			c.Wait, c.GaveUp, c.Probes = result.Latency{}, 8, make([]result.Probe, 8)
			r.Crowd = &c
		}
	}
	for _, tc := range []struct {
		name     string
		visitors []int
		edit     func(*results.Record)
		labels   int // floored points: nobody answered at 100 and 1,000
	}{
		{"one size", []int{100}, nobody, 1},
		{"three sizes", []int{100, 300, 1000}, nobody, 2},
		{"answered", []int{100}, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scs := []results.Scenario{{Name: "crowd", Kind: "crowd", Path: "/", Visitors: tc.visitors, Proto: "h1"}}
			r, err := Load(runtest.Run{ID: "crowd", Reps: 2, Scenarios: scs, Edit: tc.edit}.Write(t, t.TempDir()))
			if err != nil {
				t.Fatal(err)
			}
			charts, err := r.charts()
			if err != nil {
				t.Fatal(err)
			}
			svg := string(charts["crowd-crowd"].SVG)
			first, second := rgbHex(columnColor(0)), rgbHex(columnColor(1))
			label := "≥ 10,000: none answered"
			if n := strings.Count(svg, label); n != tc.labels {
				t.Errorf("%d labels %q, want %d", n, label, tc.labels)
			}
			paleFirst := rgbHex(pale(columnColor(0)))
			colours := dataColours(t, charts["crowd-crowd"].SVG)
			want := []string{first, second}
			if tc.labels > 0 && len(tc.visitors) == 1 {
				want = []string{second, paleFirst} // the floored column's bar, pale; the other's as it is
			}
			slices.Sort(want)
			if !slices.Equal(colours, want) {
				t.Errorf("data drawn in %v, want %v", colours, want)
			}
		})
	}
}
