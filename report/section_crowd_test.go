package report

import (
	"strings"
	"testing"

	"github.com/wptest/wptest/bench/result"
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
