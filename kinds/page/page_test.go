package page_test

import (
	"os"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/runtest"
	_ "github.com/wptest/wptest/kinds/all"
	"github.com/wptest/wptest/report"
)

// A run with page scenarios opens with "In short" from the first one's
// first step, and each page scenario has its section per step and its
// chart of CPU per page.
func TestInShortAndSection(t *testing.T) {
	dir := runtest.Run{ID: "pages", Reps: 1}.Write(t, t.TempDir())
	out, err := report.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(out.Markdown)
	html, _ := os.ReadFile(out.HTML)
	inShort := strings.Index(string(md), "## In short\n\nAt 2 visitors (page): behind cpanel-apache a WordPress page took 4.00 ms, 1,000 pages per second, 1.20 ms of CPU per page in the web server and PHP; behind corehttpd a WordPress page took 4.00 ms, 1,500 pages per second")
	section := strings.Index(string(md), "## A WordPress page (page)")
	if inShort < 0 || section < inShort || !strings.Contains(string(md), "**page at c=8**") {
		t.Errorf("report.md: In short at %d, the page section at %d, or no table at c=8:\n%s", inShort, section, md)
	}
	if !strings.Contains(string(html), `<figure id="chart-cpu-page"`) {
		t.Errorf("report.html has no chart of CPU per page")
	}
}
