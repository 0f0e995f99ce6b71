package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"github.com/wptest/wptest/results"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/hostrecord"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// hostile is what an experiment file, a profile, a host or a result could
// put into a string: markup that closes an attribute, an element, the SVG
// or a code span, Markdown that ends a cell, and characters XML forbids.
const hostile = "st\"><script>alert(1)</script>'><img src=x onerror=alert(2)></svg><script>alert(3)</script>" +
	"`</code><iframe src=javascript:alert(4)>` a|b\nc\\| [x](javascript:alert(5)) <!-- ]]> &amp; \x00\x01\x0b\x1b[31m\x7f\u0085\ufffe\xff"

// hostileRun is a run directory's content in which every string the
// report shows is built from name (the scenarios' and profiles' names) or
// s (labels, descriptions, host facts, deviations, variables, errors,
// machines, results): one scenario of each kind, two profile columns and
// one left out.
func hostileRun(name, s string) (*results.Manifest, []results.Record) {
	n := func(i int) string { return fmt.Sprintf("%s%d", name, i) }
	var scs []results.Scenario
	for i, k := range results.Kinds {
		sc := results.Scenario{Name: n(10 + i), Kind: k, Path: "/" + s, Visitors: []int{1, 10}, Proto: s,
			Duration: time.Second, Warmup: time.Second, Requests: 10}
		// The kinds' own settings, hostile where they are text.
		switch k {
		case "crowd":
			results.SetOwn(&sc, map[string]any{"probe_path": "/" + s, "click_every": time.Second, "probe_every": time.Second, "give_up": time.Second})
		case "kit":
			sc.Visitors = []int{10}
			results.SetOwn(&sc, map[string]any{"transfer_path": "/" + s, "levels": []int{1, 10}})
		}
		scs = append(scs, sc)
	}
	profs := []results.Column{{ID: n(1), Profile: n(1), Label: s, Enabled: true, Vars: map[string]string{s: s}},
		{ID: n(2), Profile: s, Label: n(2), Enabled: true}, {ID: n(3), Profile: n(3), Label: s, Reason: s}}
	sp := &testSpec{Name: s, Repetitions: 2, Scenarios: scs, Columns: profs}
	hm := func(p string) *hostmanifest.Manifest {
		return &hostmanifest.Manifest{Profile: s, Host: s, Platform: s, ProfileHash: s, Deviations: []string{s, s},
			Server:   &provision.Server{Shows: []string{"x", "y_version"}},
			Facts:    map[string]string{"x": s + strings.Repeat("é", 40)}, // cut at 60 bytes, inside a character
			Versions: map[string]string{"y": s}}
	}
	mi := &results.MachineInfo{Host: s, OS: s, Platform: s, Arch: s, Kernel: s, CPUs: 2, CPUModel: s, MemKB: 1 << 20, LoadHost: s}
	m := &results.Manifest{Format: results.ManifestFormat, ID: s, Experiment: s, Description: s, File: s, ExperimentHash: s, PlanHash: strings.Repeat("0", 64),
		Vars: map[string]string{s: s}, Target: s, Tool: s, GoVersion: s, Columns: profs, Scenarios: scs, Repetitions: 2, Points: 99,
		Fixture:  &results.FixtureRecord{Profile: s, Seed: 1, Root: s, Pinned: s + "x", Verified: s + "y", Pixels: s, Deviations: []string{s, s}},
		Hosts:    map[string]*hostmanifest.Manifest{n(1): hm(n(1)), n(2): hm(n(2))},
		Machines: []results.Machine{{Name: s, Role: hostrecord.Role(s), Driver: s, ServerType: s, Image: s, ImageID: 1, Location: s}},
		Machine:  mi, LoadMachines: []results.MachineInfo{*mi, *mi}, Start: s, End: s,
		Sessions: []results.Session{{Start: s, End: s, Error: s + "\n" + s}, {Start: s, Resumed: true}}}
	var recs []results.Record
	for _, p := range sp.Plan() {
		f := float64(p.Rep)
		run := &result.Run{Name: s, URL: s, Start: "2026-01-01T00:00:00Z", RPS: 100 * f, Visitors: p.Visitors, Attempts: 10, ElapsedMs: 100,
			Latency: result.Latency{Count: 10, Mean: 5 * f, P50: 4 * f, P95: 8, P99: 9 * f}, Outcomes: result.Outcomes{OK: 10}, Bytes: result.Bytes{WireIn: 1000, Body: 900}}
		srv := &result.Server{Groups: map[string]result.GroupUse{}}
		rec := results.Record{Point: p, Set: result.Set{Run: run}, Server: srv, ServerCPUMsPerReq: 3 * f, WebPHPCPUMsPerReq: 2 * f, DBCPUMsPerReq: f, PSSKB: 2048,
			Probe: &results.Probe{URL: s, Status: 200, ContentEncoding: s, BodyBytes: 900, Server: s, Error: s}, LoadHost: s, Error: s, Split: s,
			Generators: []results.GeneratorResult{{Host: s, Visitors: 1, Set: result.Set{Run: run}}, {Host: s, Visitors: 1, Set: result.Set{Run: run}}}}
		switch p.Kind {
		case "crowd":
			cr := &result.Crowd{Visitors: p.Visitors, Probes: []result.Probe{{Outcome: s}}, Wait: result.Latency{Count: 1, P50: 3 * f, P99: 4 * f}}
			rec.Run, rec.Crowd = nil, cr
			rec.Generators = []results.GeneratorResult{{Host: s, Set: result.Set{Crowd: cr}}, {Host: s, Set: result.Set{Crowd: cr}}}
		case "kit":
			rec.Run, rec.Generators = nil, nil
			rec.Kit = &result.Kit{Throughput: *run, Scaling: []result.Run{*run, *run}, Server: srv}
		}
		if p.Column == n(2) && p.Step == "c=10" {
			rec = results.Record{Point: p, NotApplicable: s}
		}
		recs = append(recs, rec)
	}
	return m, recs
}

// htmlElements are the elements report.html's template writes, and the
// charts' SVG elements: anything else in the page is injected markup.
var htmlElements = map[string]bool{"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "h1": true, "h2": true,
	"p": true, "code": true, "nav": true, "a": true, "section": true, "table": true, "caption": true, "thead": true, "tbody": true, "tr": true,
	"th": true, "td": true, "figure": true, "figcaption": true, "details": true, "summary": true, "pre": true,
	"svg": true, "g": true, "path": true, "text": true}

var idShape = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// checkHTML parses report.html as a browser does and says what in it is
// not the template's own markup: an element or attribute the template does
// not write, an event handler, a link that is not to an id of the page, an
// id not of a name's shape, a character XML forbids; and it parses each
// inline SVG as XML.
func checkHTML(h []byte) []string {
	var bad []string
	doc, err := html.Parse(bytes.NewReader(h))
	if err != nil {
		return []string{err.Error()}
	}
	ids := map[string]bool{}
	var hrefs []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if !htmlElements[n.Data] {
				bad = append(bad, fmt.Sprintf("element <%s>", n.Data))
			}
			for _, a := range n.Attr {
				k := strings.ToLower(a.Key)
				switch {
				case strings.HasPrefix(k, "on") || k == "src" || k == "srcdoc" || k == "formaction" || (k == "href" && n.Data != "a"):
					bad = append(bad, fmt.Sprintf("attribute %s=%q on <%s>", a.Key, a.Val, n.Data))
				case k == "id":
					if !idShape.MatchString(a.Val) || ids[a.Val] {
						bad = append(bad, fmt.Sprintf("id %q", a.Val))
					}
					ids[a.Val] = true
				case k == "href":
					hrefs = append(hrefs, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	for _, h := range hrefs {
		if !strings.HasPrefix(h, "#") || !ids[h[1:]] {
			bad = append(bad, fmt.Sprintf("href %q is not a link to an id of the page", h))
		}
	}
	if i := bytes.IndexFunc(h, func(c rune) bool { return c != '\n' && c != '\t' && badChar(c) }); i >= 0 {
		bad = append(bad, fmt.Sprintf("character %q at byte %d", h[i:min(i+4, len(h))], i))
	}
	if !utf8.Valid(h) {
		bad = append(bad, "invalid UTF-8")
	}
	for i, s := range svgRE.FindAll(h, -1) {
		if err := parseXML(s); err != nil {
			bad = append(bad, fmt.Sprintf("svg %d: %v", i, err))
		}
	}
	return bad
}

var svgRE = regexp.MustCompile(`(?s)<svg\b.*?</svg>`)

// parseXML parses b as one well-formed XML document of chart elements.
func parseXML(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if se, ok := tok.(xml.StartElement); ok && !svgElements[se.Name.Local] {
			return fmt.Errorf("element <%s>", se.Name.Local)
		}
	}
}

// texts are the text of every element named tag (all if ""), as a reader sees it.
func texts(t *testing.T, h []byte, tag string) []string {
	doc, err := html.Parse(bytes.NewReader(h))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode && (tag == "" || n.Parent != nil && n.Parent.Data == tag) {
			out = append(out, n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

// mdCells splits a Markdown table row at its unescaped pipes.
func mdCells(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n
}

// checkMarkdown says where report.md lets a value become Markdown: a
// table row with more or fewer cells than its head, raw HTML or a link
// outside a code span, a control character.
func checkMarkdown(md string) []string {
	var bad []string
	body, _, _ := strings.Cut(md, "```json\n")
	cells := 0
	for i, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "|") {
			if cells == 0 {
				cells = mdCells(l)
			} else if c := mdCells(l); c != cells {
				bad = append(bad, fmt.Sprintf("line %d: %d cells, the head has %d: %s", i+1, c-1, cells-1, l))
			}
		} else {
			cells = 0
		}
		// Outside code spans (single backticks, as mdText keeps them), no
		// < or [ that is not escaped.
		for j, part := range strings.Split(l, "`") {
			if j%2 == 1 && j != len(strings.Split(l, "`"))-1 {
				continue
			}
			for k := 0; k < len(part); k++ {
				switch part[k] {
				case '\\':
					k++
				case '<', '[':
					bad = append(bad, fmt.Sprintf("line %d: unescaped %q: %s", i+1, part[k], l))
				}
			}
		}
		if strings.ContainsFunc(l, badChar) {
			bad = append(bad, fmt.Sprintf("line %d: a control character: %q", i+1, l))
		}
	}
	return bad
}

// Every string a run's files give the report, filled with markup, SVG,
// Markdown and control characters, stays text: report.html parses to the
// template's elements alone, with ids of a name's shape and links to them,
// each chart is well-formed XML with the hostile profile label as the
// legend's text, and every report.md table row keeps its cells.
func TestReportEscapesHostileStrings(t *testing.T) {
	m, recs := hostileRun(hostile, hostile)
	dir := t.TempDir()
	md := writeReport(t, dir, *m, recs)
	h, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range checkHTML(h) {
		t.Errorf("report.html: %s", b)
	}
	for _, b := range checkMarkdown(md) {
		t.Errorf("report.md: %s", b)
	}
	// The values are there, as text: in the heading, the table cells, the
	// charts' legends and the manifest.
	shown := clean(hostile)
	for _, tag := range []string{"title", "h1", "th", "td", "text"} {
		found := false
		for _, s := range texts(t, h, tag) {
			found = found || strings.Contains(s, shown)
		}
		if !found {
			t.Errorf("no <%s> shows the value as text %q", tag, shown)
		}
	}
	if svgs := svgRE.FindAll(h, -1); len(svgs) < 5 {
		t.Errorf("%d charts, want one or more of each kind", len(svgs))
	}
	var man results.Manifest
	pre := strings.Join(texts(t, h, "pre"), "")
	if err := json.Unmarshal([]byte(pre), &man); err != nil || man.Description != inJSON(hostile) {
		t.Errorf("the manifest in report.html is not the run's (%v): description %q", err, man.Description)
	}
	if !strings.Contains(md, mdCell(hostile)) {
		t.Errorf("report.md lacks the value as a cell %q", mdCell(hostile))
	}
}

// inJSON is s as the manifest in report.html gives it back: what
// json.Marshal escapes comes back as it was; invalid UTF-8 and what XML
// forbids but JSON does not escape are U+FFFD.
func inJSON(s string) string {
	return strings.Map(func(c rune) rune {
		if c >= 0x20 && badChar(c) {
			return utf8.RuneError
		}
		return c
	}, strings.ToValidUTF8(s, "\ufffd"))
}
