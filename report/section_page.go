package report

import (
	"fmt"
	"github.com/wptest/wptest/results"
	"strings"
)

// The page kind: a WordPress page over a sweep of visitors. Its first
// scenario is the post's first paragraph.
var pageReport = reportKind{Section: pageSection, inShort: pageInShort, perRequest: true,
	charts: func(r *Report, sc results.Scenario, add AddChart) error {
		m := fig(sc.Kind, "web_php_cpu_ms")
		p, err := r.bars(sc, m.Label, m.Value)
		return add("cpu-"+sc.Name, "CPU per WordPress page in the web server and PHP, median over repetitions", p, err)
	}}

// inShort is the post's first paragraph: page time, pages/s and CPU per page.
func pageInShort(r *Report, pages []results.Scenario) (Section, bool) {
	if len(pages) == 0 || len(r.Columns) < 2 {
		return Section{}, false
	}
	sc := pages[0]
	step := sc.Steps()[0]
	var parts []string
	for _, p := range r.Columns {
		ms := r.Metric(p, sc.Name, step, fig(sc.Kind, "mean_ms").Value)
		ps := r.Metric(p, sc.Name, step, fig(sc.Kind, "rps").Value)
		cpu := r.Metric(p, sc.Name, step, fig(sc.Kind, "web_php_cpu_ms").Value)
		if ms.N == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("behind %s a WordPress page took %s ms, %s pages per second, %s ms of CPU per page in the web server and PHP",
			r.Labels[p], num(ms.Med), num(ps.Med), num(cpu.Med)))
	}
	if len(parts) == 0 {
		return Section{}, false
	}
	return Section{ID: "in-short", Title: "In short", Text: []string{fmt.Sprintf("At %d visitors (%s): %s.", sc.Visitors[0], sc.Name, strings.Join(parts, "; "))}}, true
}

func pageSection(r *Report, sc results.Scenario) Section {
	ps := r.ColumnsOf(sc)
	s := Section{ID: "page-" + sc.Name, Title: "A WordPress page (" + sc.Name + ")",
		Text: []string{fmt.Sprintf("%s, %s per step after a %s warm-up, each visitor its own keep-alive connection (closed loop)%s.", sc.Path, Amount(sc), sc.Warmup, gzipNote(sc))}}
	for _, st := range sc.Steps() {
		t := Table{Caption: fmt.Sprintf("%s at %s", sc.Name, st), Head: r.Head("", ps)}
		t.Rows = append(t.Rows, r.FigRows("", ps, sc, st, "mean_ms", "rps")...)
		t.Rows = append(t.Rows, r.CPURows("", "page", ps, sc.Name, st)...)
		t.Rows = append(t.Rows, r.FigRows("  of which ", ps, sc, st, "web_php_cpu_ms", "db_cpu_ms")...)
		t.Rows = append(t.Rows, r.FigRows("", ps, sc, st, "pss_mb", "wire_bytes", "error_pct")...)
		enc := []string{"Content-Encoding"}
		for _, p := range ps {
			enc = append(enc, r.Encoding(p, sc.Name, st))
		}
		t.Rows = append(t.Rows, enc)
		s.Tables = append(s.Tables, t)
	}
	if t, ok := r.GeneratorTable(sc); ok {
		s.Tables = append(s.Tables, t)
	}
	s.Charts = []string{"cpu-" + sc.Name}
	return s
}
