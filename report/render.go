package report

import (
	"fmt"
	"html"
	"os"
	"regexp"
	"strings"
)

func writeFile(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func mdEscape(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}

func (d *document) markdown(charts map[string]chart) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", d.Title)
	for _, t := range d.Intro {
		if t != "" {
			fmt.Fprintf(&b, "%s\n\n", t)
		}
	}
	for _, s := range d.Sections {
		fmt.Fprintf(&b, "## %s\n\n", s.Title)
		for _, t := range s.Text {
			fmt.Fprintf(&b, "%s\n\n", t)
		}
		for _, t := range s.Tables {
			if t.Caption != "" {
				fmt.Fprintf(&b, "**%s**\n\n", t.Caption)
			}
			b.WriteString("|")
			for _, h := range t.Head {
				fmt.Fprintf(&b, " %s |", mdEscape(h))
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
					fmt.Fprintf(&b, " %s |", mdEscape(c))
				}
				b.WriteString("\n")
			}
			b.WriteString("\n")
		}
		for _, id := range s.Charts {
			if c, ok := charts[id]; ok {
				fmt.Fprintf(&b, "_Chart: %s (in report.html)._\n\n", c.Caption)
			}
		}
	}
	fmt.Fprintf(&b, "```json\n%s\n```\n", d.Manifest)
	return b.String()
}

const css = `body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#1d232b;line-height:1.45}
h1{font-size:1.8em;margin-bottom:.2em}h2{margin-top:2em;border-bottom:1px solid #dde3ea;padding-bottom:.2em}
table{border-collapse:collapse;margin:1em 0;font-size:.92em}caption{text-align:left;font-weight:600;padding:.3em 0}
th,td{border:1px solid #dde3ea;padding:.35em .6em;text-align:right;vertical-align:top}th:first-child,td:first-child{text-align:left}
th{background:#f2f5f8}tr:nth-child(even) td{background:#fafbfc}.PASS{color:#116329;font-weight:600}.FAIL{color:#b3261e;font-weight:600}
figure{margin:1em 0}figcaption{font-size:.9em;color:#555}svg{max-width:100%;height:auto}
td.text{text-align:left}pre{background:#f6f8fa;padding:1em;overflow:auto;font-size:.8em}nav a{margin-right:1em}`

// numeric cells are right-aligned; words are not.
var numeric = regexp.MustCompile(`^[-–0-9.,()% x]+( (PASS|FAIL|info|n/a))?$`)

func (d *document) html(r *Report, charts map[string]chart) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>%s</style></head><body>\n", html.EscapeString(d.Title), css)
	fmt.Fprintf(&b, "<h1>%s</h1>\n", html.EscapeString(d.Title))
	for _, t := range d.Intro {
		if t != "" {
			fmt.Fprintf(&b, "<p>%s</p>\n", inline(t))
		}
	}
	b.WriteString("<nav>")
	for _, s := range d.Sections {
		fmt.Fprintf(&b, "<a href=\"#%s\">%s</a> ", s.ID, html.EscapeString(s.Title))
	}
	b.WriteString("</nav>\n")
	for _, s := range d.Sections {
		fmt.Fprintf(&b, "<section id=\"%s\"><h2>%s</h2>\n", s.ID, html.EscapeString(s.Title))
		for _, t := range s.Text {
			fmt.Fprintf(&b, "<p>%s</p>\n", inline(t))
		}
		for _, t := range s.Tables {
			b.WriteString("<table>")
			if t.Caption != "" {
				fmt.Fprintf(&b, "<caption>%s</caption>", html.EscapeString(t.Caption))
			}
			b.WriteString("<thead><tr>")
			for _, h := range t.Head {
				fmt.Fprintf(&b, "<th>%s</th>", html.EscapeString(h))
			}
			b.WriteString("</tr></thead><tbody>\n")
			for _, row := range t.Rows {
				b.WriteString("<tr>")
				for _, c := range row {
					cls := ""
					switch {
					case strings.HasSuffix(c, " PASS"):
						cls = ` class="PASS"`
					case strings.HasSuffix(c, " FAIL"):
						cls = ` class="FAIL"`
					case !numeric.MatchString(c):
						cls = ` class="text"`
					}
					fmt.Fprintf(&b, "<td%s>%s</td>", cls, html.EscapeString(c))
				}
				b.WriteString("</tr>\n")
			}
			b.WriteString("</tbody></table>\n")
		}
		for _, id := range s.Charts {
			if c, ok := charts[id]; ok {
				fmt.Fprintf(&b, "<figure id=\"chart-%s\">%s<figcaption>%s</figcaption></figure>\n", id, inlineSVG(c.SVG), html.EscapeString(c.Caption))
			}
		}
		b.WriteString("</section>\n")
	}
	fmt.Fprintf(&b, "<details open><summary>manifest.json</summary><pre>%s</pre></details>\n", html.EscapeString(d.Manifest))
	b.WriteString("</body></html>\n")
	return b.String()
}

// inline escapes text and turns `code` spans into <code>.
func inline(s string) string {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			fmt.Fprintf(&b, "<code>%s</code>", html.EscapeString(p))
		} else {
			b.WriteString(html.EscapeString(p))
		}
	}
	return b.String()
}
