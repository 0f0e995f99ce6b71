package report

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/runtest"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/results"
)

// measure is the script the layout test adds to report.html: for each
// chart, the page boxes (left, top, right, bottom in CSS pixels, as
// Chromium laid them out) of the SVG, the plot area, the legend's marks
// and words, the tick labels and the data, and the text's font families,
// written as JSON into <pre id="layout"> for --dump-dom.
const measure = `<script>
const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
const all = (svg, q) => [...svg.querySelectorAll(q)];
// A legend entry is its thumbnail's marks and the text after them.
const entries = svg => {
  const es = [];
  let open = true;
  for (const e of svg.querySelectorAll('g.legend path, g.legend text')) {
    if (open) es.push({marks: [], text: ''});
    const cur = es[es.length - 1];
    if (e.tagName == 'text') { cur.text = e.textContent; cur.box = box(e); }
    else cur.marks.push(box(e));
    open = e.tagName == 'text';
  }
  return es.map(en => en.marks.concat(en.box ? [en.box] : []).reduce((a, b) =>
    [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])]));
};
const out = [];
for (const fig of document.querySelectorAll('figure')) {
  const svg = fig.querySelector('svg.chart');
  if (!svg) continue;
  const area = svg.querySelector('g.plot-area path');
  out.push({id: fig.id, svg: box(svg), area: area ? box(area) : null,
    legend: all(svg, 'g.legend text, g.legend path').map(box), entries: entries(svg),
    legendText: all(svg, 'g.legend text').map(e => e.textContent),
    ticks: all(svg, 'g.ticks text').map(e => ({box: box(e), text: e.textContent})),
    data: all(svg, 'g.data path, g.data text').map(box),
    fonts: [...new Set(all(svg, 'text').map(e => getComputedStyle(e).fontFamily))]});
}
const pre = document.createElement('pre');
pre.id = 'layout';
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>`

// markRadius (CSS pixels): a line's marks at the plot area's edge reach
// out of it by their radius (3pt), as in most charts.
const markRadius = 4.5

type rect [4]float64 // left, top, right, bottom

// meets: the two boxes share more than a hair (tol pixels) of area.
func (a rect) meets(b rect, tol float64) bool {
	return a[0] < b[2]-tol && b[0] < a[2]-tol && a[1] < b[3]-tol && b[1] < a[3]-tol
}

func (a rect) within(b rect, tol float64) bool {
	return a[0] >= b[0]-tol && a[1] >= b[1]-tol && a[2] <= b[2]+tol && a[3] <= b[3]+tol
}

type tick struct {
	Box  rect
	Text string
}

type chartLayout struct {
	ID         string
	SVG        rect
	Area       *rect
	Legend     []rect
	Entries    []rect
	LegendText []string
	Ticks      []tick
	Data       []rect
	Fonts      []string
}

// layoutIn renders the report of dir in headless Chromium with measure
// added and returns what it measured.
func layoutIn(t *testing.T, chromium, dir string) []chartLayout {
	t.Helper()
	h, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "layout.html")
	if err := os.WriteFile(page, bytes.Replace(h, []byte("</body>"), []byte(measure+"</body>"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	// A guard against a hung browser, not a measurement.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+t.TempDir(),
		"--window-size=1200,900", "--dump-dom", "file://"+page)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v\n%s", err, stderr.Bytes())
	}
	m := regexp.MustCompile(`(?s)<pre id="layout">(.*?)</pre>`).FindSubmatch(dom)
	if m == nil {
		t.Fatalf("chromium's DOM has no measurements (the script did not run?):\n%.2000s\n%s", dom, stderr.Bytes())
	}
	var out []chartLayout
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &out); err != nil {
		t.Fatalf("measurements: %v\n%s", err, m[1])
	}
	return out
}

// The charts of a run's report, as Chromium lays them out: every chart
// has a plot area, two or more labelled ticks on each axis (tick labels
// apart from each other), data inside the plot area, a legend that does
// not touch the plot area (one naming every column where lines need it;
// none where a single step is drawn as bars named on the axis), every box
// inside its SVG, and sans-serif text.
func TestChartLayoutInChromium(t *testing.T) {
	testenv.Integration(t)
	chromium := testenv.NeedBinary(t, "chromium")
	scs := append(append([]results.Scenario(nil), runtest.Scenarios...),
		results.Scenario{Name: "static", Kind: "static", Path: "/wptest-probe.js", Visitors: []int{10, 50}, Proto: "h1", KeepAlive: true})
	dir := runtest.Run{ID: "layout", Reps: 2, Jitter: []float64{-2, 3}, Scenarios: scs}.Write(t, t.TempDir())
	if _, err := Write(dir); err != nil {
		t.Fatal(err)
	}
	got := map[string]chartLayout{}
	for _, c := range layoutIn(t, chromium, dir) {
		got[c.ID] = c
		checkLayout(t, c)
	}
	// Lines with a legend of the columns; the crowd's one step as bars.
	for id, legend := range map[string]bool{"chart-rps-static": true, "chart-p99-static": true, "chart-crowd-crowd": false, "chart-cpu-page": false} {
		c, ok := got[id]
		if !ok {
			t.Errorf("no chart %s in report.html (charts: %v)", id, keys(got))
			continue
		}
		if want := runtest.Columns; !legend {
			if len(c.Legend) > 0 {
				t.Errorf("%s: a legend %q where the bars are named on the axis", id, c.LegendText)
			}
			for _, col := range want {
				if !hasTick(c, col) {
					t.Errorf("%s: no bar named %q on the x axis (ticks %v)", id, col, c.Ticks)
				}
			}
		} else if strings.Join(c.LegendText, "|") != strings.Join(want, "|") {
			t.Errorf("%s: legend %q, want the columns %q", id, c.LegendText, want)
		}
	}
}

func keys(m map[string]chartLayout) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func hasTick(c chartLayout, s string) bool {
	for _, tk := range c.Ticks {
		if tk.Text == s {
			return true
		}
	}
	return false
}

// checkLayout checks one chart's boxes.
func checkLayout(t *testing.T, c chartLayout) {
	t.Helper()
	if c.Area == nil {
		t.Errorf("%s: no plot area", c.ID)
		return
	}
	area := *c.Area
	for _, l := range c.Legend {
		if l.meets(area, 0) {
			t.Errorf("%s: legend box %v intersects the plot area %v", c.ID, l, area)
		}
	}
	for i, a := range c.Entries {
		for _, b := range c.Entries[i+1:] {
			if a.meets(b, 0) {
				t.Errorf("%s: legend entries %v and %v overlap", c.ID, a, b)
			}
		}
	}
	var x, y []tick
	for _, tk := range c.Ticks {
		switch {
		case tk.Box[1] >= area[3]-1:
			x = append(x, tk)
		case tk.Box[2] <= area[0]+1:
			y = append(y, tk)
		default:
			t.Errorf("%s: tick label %q at %v is inside the plot area %v", c.ID, tk.Text, tk.Box, area)
		}
	}
	for axis, ts := range map[string][]tick{"x": x, "y": y} {
		if len(ts) < 2 {
			t.Errorf("%s: %d labelled tick(s) on the %s axis %v, want two or more", c.ID, len(ts), axis, ts)
		}
		for i, a := range ts {
			for _, b := range ts[i+1:] {
				if a.Box.meets(b.Box, 0.5) {
					t.Errorf("%s: %s tick labels %q and %q overlap", c.ID, axis, a.Text, b.Text)
				}
			}
		}
	}
	for _, d := range c.Data {
		if !d.within(area, markRadius) {
			t.Errorf("%s: data box %v outside the plot area %v", c.ID, d, area)
		}
	}
	for _, b := range append(append(append([]rect{}, c.Legend...), c.Data...), area) {
		if !b.within(c.SVG, 1) {
			t.Errorf("%s: box %v outside the chart %v", c.ID, b, c.SVG)
		}
	}
	for _, f := range c.Fonts {
		if !strings.HasPrefix(f, `"Liberation Sans"`) && !strings.HasPrefix(f, "Liberation Sans") || !strings.HasSuffix(f, "sans-serif") {
			t.Errorf("%s: text in font %s, want the sans-serif Liberation Sans (Arial's metrics)", c.ID, f)
		}
	}
}
