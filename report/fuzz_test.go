package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// FuzzReport renders a run whose names and free text are the fuzzer's
// strings and checks what TestReportEscapesHostileStrings checks:
// report.html holds the template's markup alone, every chart is
// well-formed XML, report.md's tables keep their cells. Seeds: the hostile
// string, and the labels, descriptions and names of the shipped
// experiments and of the experiment loader's error goldens.
func FuzzReport(f *testing.F) {
	f.Add(hostile, hostile)
	f.Add("", "")
	f.Add("compression", "Plain server")
	quoted := regexp.MustCompile(`(?m)^\s*(?:label|description)\s*=\s*("(?:[^"\\]|\\.)*")|^(?:scenario|profile|experiment) ("(?:[^"\\]|\\.)*")`)
	files, _ := filepath.Glob("../experiments/*.hcl")
	more, _ := filepath.Glob("../experiment/testdata/errors/*.txtar")
	for _, file := range append(files, more...) {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var names, texts []string
		for _, m := range quoted.FindAllStringSubmatch(string(b), -1) {
			if v, err := strconv.Unquote(m[1] + m[2]); err == nil {
				if m[2] != "" {
					names = append(names, v)
				} else {
					texts = append(texts, v)
				}
			}
		}
		pick := func(l []string, i int) string {
			if len(l) == 0 {
				return ""
			}
			return l[i%len(l)]
		}
		for i := range max(len(names), len(texts)) {
			f.Add(pick(names, i), pick(texts, i))
		}
	}
	f.Fuzz(func(t *testing.T, name, text string) {
		m, recs := hostileRun(name, text)
		md, h, err := newReport("", m, recs).render()
		if err != nil {
			t.Fatalf("render: %v", err)
		}
		for _, b := range checkHTML(h) {
			t.Errorf("report.html: %s", b)
		}
		for _, b := range checkMarkdown(string(md)) {
			t.Errorf("report.md: %s", b)
		}
	})
}
