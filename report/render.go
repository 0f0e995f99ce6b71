package report

import (
	"bytes"
	"fmt"
	"html/template"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wptest/wptest/results"
)

// writeFile replaces a report file of the run directory: a new file,
// renamed into place, never written through a link someone planted there
// (report.md, report.md.tmp) (results.WriteFileSync).
func writeFile(path string, b []byte) error {
	return results.WriteFileSync(path, b, 0o644)
}

// clean is s as text any reader (and any XML parser) takes: invalid UTF-8
// and the characters XML 1.0 forbids or that move the cursor (control
// characters, U+FFFE/U+FFFF) become U+FFFD; a newline, tab or carriage
// return becomes a space, so a value stays on its line of the report.
func clean(s string) string {
	if !strings.ContainsFunc(s, func(c rune) bool { return c == utf8.RuneError || badChar(c) }) {
		return s
	}
	var b strings.Builder
	for _, c := range s { // ranging over a string gives U+FFFD for invalid UTF-8
		switch {
		case c == '\n' || c == '\r' || c == '\t':
			b.WriteByte(' ')
		case badChar(c):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// badChar: C0 and C1 controls, DEL, and what XML 1.0 leaves out.
func badChar(c rune) bool {
	return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0xfffe || c == 0xffff || !utf8.ValidRune(c)
}

// mdEscaper escapes what would make a value Markdown rather than text: a
// backslash, raw HTML and autolinks (<), links and images ([).
var mdEscaper = strings.NewReplacer(`\`, `\\`, "<", `\<`, "[", `\[`)

// mdCell is a table cell: one line, and no | ends the cell early.
func mdCell(s string) string {
	return strings.ReplaceAll(mdText(s), "|", `\|`)
}

// mdText is a paragraph on one line (a value cannot start a heading or a
// table) with what is not `code` escaped. Code spans are kept where the
// text's backticks are single ones (a Markdown reader pairs them in order,
// as spans does); otherwise every backtick is escaped too.
func mdText(s string) string {
	s = clean(s)
	if strings.Contains(s, "``") {
		return strings.ReplaceAll(mdEscaper.Replace(s), "`", "\\`")
	}
	parts := strings.Split(s, "`")
	for i := range parts {
		if i%2 == 0 || i == len(parts)-1 {
			parts[i] = mdEscaper.Replace(parts[i])
		}
	}
	return strings.Join(parts, "`")
}

func (d *document) markdown(charts map[string]chart) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", mdText(d.Title))
	for _, t := range d.Intro {
		if t != "" {
			fmt.Fprintf(&b, "%s\n\n", mdText(t))
		}
	}
	for _, s := range d.Sections {
		fmt.Fprintf(&b, "## %s\n\n", mdText(s.Title))
		for _, t := range s.Text {
			fmt.Fprintf(&b, "%s\n\n", mdText(t))
		}
		if ls := s.Lines; ls != nil {
			writeLines(&b, ls)
		}
		for _, t := range s.Tables {
			if t.Caption != "" {
				fmt.Fprintf(&b, "**%s**\n\n", mdText(t.Caption))
			}
			b.WriteString("|")
			for _, h := range t.Head {
				fmt.Fprintf(&b, " %s |", mdCell(h))
			}
			b.WriteString("\n|")
			for i := range t.Head {
				if i == 0 {
					b.WriteString("---|")
				} else {
					b.WriteString("---:|")
				}
			}
			b.WriteString("\n")
			for _, r := range t.Rows {
				b.WriteString("|")
				for _, c := range r {
					fmt.Fprintf(&b, " %s |", mdCell(c))
				}
				b.WriteString("\n")
			}
			b.WriteString("\n")
		}
		for _, id := range s.Charts {
			if c, ok := charts[id]; ok {
				fmt.Fprintf(&b, "_Chart: %s (in report.html)._\n\n", mdText(c.Caption))
			}
		}
	}
	// json.Marshal writes <, > and & as \u escapes and every line starts
	// with an indent or a bracket, so nothing in it closes the fence. (No
	// markup folds it here: report.md has none, report.html folds it.)
	fmt.Fprintf(&b, "```json\n%s\n```\n", d.Manifest)
	return b.String()
}

// writeLines is ls as a table of its lines, then each line's fold under
// its badge and first cell.
func writeLines(b *strings.Builder, ls *Lines) {
	b.WriteString("|  |")
	for _, h := range ls.Head {
		fmt.Fprintf(b, " %s |", mdCell(h))
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(ls.Head)) + "\n")
	for _, l := range ls.Lines {
		fmt.Fprintf(b, "| %s |", mdCell(l.Badge))
		for _, c := range l.Cells {
			fmt.Fprintf(b, " %s |", mdCell(c))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	for _, l := range ls.Lines {
		if len(l.Fold) == 0 {
			continue
		}
		fmt.Fprintf(b, "**%s %s**\n\n", mdText(l.Badge), mdText(l.Cells[0]))
		for _, f := range l.Fold {
			fmt.Fprintf(b, "- %s\n", mdText(f))
		}
		b.WriteString("\n")
	}
}

const css = `body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#1d232b;line-height:1.45}
h1{font-size:1.8em;margin-bottom:.2em}h2{margin-top:2em;border-bottom:1px solid #dde3ea;padding-bottom:.2em}
table{border-collapse:collapse;margin:1em 0;font-size:.92em}caption{text-align:left;font-weight:600;padding:.3em 0}
th,td{border:1px solid #dde3ea;padding:.35em .6em;text-align:right;vertical-align:top}th:first-child,td:first-child{text-align:left}
th{background:#f2f5f8}tr:nth-child(even) td{background:#fafbfc}.PASS{color:#116329;font-weight:600}.FAIL{color:#b3261e;font-weight:600}
figure{margin:1em 0}figcaption{font-size:.9em;color:#555}svg{max-width:100%;height:auto}
td.text{text-align:left}pre{background:#f6f8fa;padding:1em;overflow:auto;font-size:.8em}nav a{margin-right:1em}
.lines{margin:1em 0;border-top:1px solid #dde3ea}.lines .row,.lines summary{display:grid;grid-template-columns:1.6em 3fr 1.2fr 2fr 2fr;gap:.8em;padding:.35em .4em;border-bottom:1px solid #dde3ea}
.lines .row{font-weight:600;background:#f2f5f8}.lines summary{cursor:pointer;list-style:none}.lines summary::-webkit-details-marker{display:none}
.lines details[open] summary{background:#f6f8fa}.lines details>div{padding:.2em 1em .6em 2.8em;font-size:.92em;color:#333}
.badge{font-weight:700;text-align:center}.holds .badge{color:#116329}.differs .badge{color:#b3261e}.none .badge{color:#777}
figure svg{width:100%;height:auto}`

// page is report.html. Every value reaches it through html/template's
// contextual escaping; the only markup not written here is the charts'
// SVG, which checkedSVG admits element by element.
var page = template.Must(template.New("report.html").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{{.Title}}</title>
<style>` + css + `</style></head><body>
<h1>{{.Title}}</h1>
{{range .Intro}}<p>{{template "spans" .}}</p>
{{end}}<nav>{{range .Sections}}<a href="#{{.ID}}">{{.Title}}</a> {{end}}</nav>
{{range .Sections}}<section id="{{.ID}}"><h2>{{.Title}}</h2>
{{range .Text}}<p>{{template "spans" .}}</p>
{{end}}{{with .Lines}}<div class="lines"><div class="row"><span></span>{{range .Head}}<span>{{.}}</span>{{end}}</div>
{{range .Lines}}<details class="{{.Class}}"><summary><span class="badge">{{.Badge}}</span>{{range .Cells}}<span>{{.}}</span>{{end}}</summary><div>{{range .Fold}}<p>{{template "spans" .}}</p>{{end}}</div></details>
{{end}}</div>
{{end}}{{range .Tables}}<table>{{if .Caption}}<caption>{{.Caption}}</caption>{{end}}<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td{{with .Class}} class="{{.}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table>
{{end}}{{range .Figures}}<figure id="{{.ID}}">{{.SVG}}<figcaption>{{.Caption}}</figcaption></figure>
{{end}}</section>
{{end}}<details><summary>manifest.json</summary><pre>{{.Manifest}}</pre></details>
</body></html>
{{define "spans"}}{{range .}}{{if .Code}}<code>{{.Text}}</code>{{else}}{{.Text}}{{end}}{{end}}{{end}}`))

type htmlPage struct {
	Title    string
	Intro    [][]span
	Sections []htmlSection
	Manifest string
}

type htmlSection struct {
	ID, Title string
	Text      [][]span
	Lines     *htmlLines
	Tables    []htmlTable
	Figures   []figure
}

type htmlLines struct {
	Head  []string
	Lines []htmlLine
}

type htmlLine struct {
	Badge, Class string
	Cells        []string
	Fold         [][]span
}

type htmlTable struct {
	Caption string
	Head    []string
	Rows    [][]htmlCell
}

type htmlCell struct{ Class, Text string }

type figure struct {
	ID      string
	SVG     template.HTML
	Caption string
}

// span is a run of a paragraph's text: `code` or not.
type span struct {
	Code bool
	Text string
}

// spans splits a paragraph at its backticks.
func spans(s string) []span {
	var out []span
	for i, p := range strings.Split(clean(s), "`") {
		out = append(out, span{Code: i%2 == 1, Text: p})
	}
	return out
}

// numeric cells are right-aligned; words are not.
var numeric = regexp.MustCompile(`^[-–0-9.,()% x]+( (PASS|FAIL|info|n/a))?$`)

func cellClass(c string) string {
	switch {
	case c == results.Holds || strings.HasPrefix(c, results.Holds+" ("):
		return "PASS text"
	case strings.HasPrefix(c, results.Differs+":"):
		return "FAIL text"
	case strings.HasSuffix(c, " PASS"):
		return "PASS"
	case strings.HasSuffix(c, " FAIL"):
		return "FAIL"
	case !numeric.MatchString(c):
		return "text"
	}
	return ""
}

// anchors gives each section and chart an id of the shape of a name, from
// its own (names are checked when the experiment is loaded, but a run
// directory is a file anyone can edit), each once.
type anchors map[string]bool

func (a anchors) id(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if c < utf8.RuneSelf && (unicode.IsLetter(c) || unicode.IsDigit(c) || c == '.' || c == '_' || c == '-') {
			b.WriteRune(c)
		} else {
			b.WriteByte('-')
		}
	}
	id := strings.Trim(b.String(), "-")
	if id == "" {
		id = "s"
	}
	if len(id) > 80 {
		id = id[:80]
	}
	for n, base := 2, id; a[id]; n++ {
		id = fmt.Sprintf("%s-%d", base, n)
	}
	a[id] = true
	return id
}

func (d *document) html(charts map[string]chart) ([]byte, error) {
	// The manifest is indented JSON: its lines stay, and json.Marshal wrote
	// C0 controls as \u escapes, but not C1 controls or U+FFFE.
	p := htmlPage{Title: clean(d.Title), Manifest: strings.Map(func(c rune) rune {
		if c != '\n' && badChar(c) {
			return utf8.RuneError
		}
		return c
	}, d.Manifest)}
	for _, t := range d.Intro {
		if t != "" {
			p.Intro = append(p.Intro, spans(t))
		}
	}
	ids := anchors{}
	for _, s := range d.Sections {
		hs := htmlSection{ID: ids.id(s.ID), Title: clean(s.Title)}
		for _, t := range s.Text {
			hs.Text = append(hs.Text, spans(t))
		}
		if ls := s.Lines; ls != nil {
			hs.Lines = &htmlLines{}
			for _, h := range ls.Head {
				hs.Lines.Head = append(hs.Lines.Head, clean(h))
			}
			for _, l := range ls.Lines {
				hl := htmlLine{Badge: clean(l.Badge), Class: l.Class}
				for _, c := range l.Cells {
					hl.Cells = append(hl.Cells, clean(c))
				}
				for _, f := range l.Fold {
					hl.Fold = append(hl.Fold, spans(f))
				}
				hs.Lines.Lines = append(hs.Lines.Lines, hl)
			}
		}
		for _, t := range s.Tables {
			ht := htmlTable{Caption: clean(t.Caption)}
			for _, h := range t.Head {
				ht.Head = append(ht.Head, clean(h))
			}
			for _, r := range t.Rows {
				var row []htmlCell
				for _, c := range r {
					c = clean(c)
					row = append(row, htmlCell{Class: cellClass(c), Text: c})
				}
				ht.Rows = append(ht.Rows, row)
			}
			hs.Tables = append(hs.Tables, ht)
		}
		for _, id := range s.Charts {
			c, ok := charts[id]
			if !ok {
				continue
			}
			svg, err := checkedSVG(c.SVG)
			if err != nil {
				return nil, fmt.Errorf("chart %s: %w", id, err)
			}
			hs.Figures = append(hs.Figures, figure{ID: ids.id("chart-" + id), SVG: svg, Caption: clean(c.Caption)})
		}
		p.Sections = append(p.Sections, hs)
	}
	var b bytes.Buffer
	if err := page.Execute(&b, p); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
