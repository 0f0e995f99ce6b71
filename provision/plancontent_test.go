package provision

import (
	"fmt"
	"strings"
	"testing"
)

// TestPlanShowsTextNotDownloads: a plan shows a file line by line, bytes
// that are not text among them, and a download-sized file (the site's 1 MB
// file) by its size alone, whose sha256 the spec shows.
func TestPlanShowsTextNotDownloads(t *testing.T) {
	for _, c := range []struct {
		name, content string
		shown         bool
	}{
		{"text", "a line\nanother\n", true},
		{"text at the limit", strings.Repeat("x", maxShownContent-1) + "\n", true},
		{"download-sized", strings.Repeat("0123456789abcdef\n", 4000), false},
		{"not text, small: shown", "PNG\x89\xff\x00", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			writeOpSpec(func(f string, a ...any) { fmt.Fprintf(&b, f, a...) }, &OpReport{Spec: map[string]any{"content": c.content, "size": len(c.content)}})
			out := b.String()
			if got := strings.Contains(out, "| "+strings.SplitN(c.content, "\n", 2)[0]); got != c.shown {
				t.Errorf("content shown: %v, want %v:\n%.300s", got, c.shown, out)
			}
			if want := fmt.Sprintf("--- content: %d bytes, not shown", len(c.content)); !c.shown && !strings.Contains(out, want) {
				t.Errorf("want %q:\n%.300s", want, out)
			}
		})
	}
}
