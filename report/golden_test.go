package report

import (
	"path/filepath"
	"testing"

	"github.com/wptest/wptest/internal/golden"
)

// A run with a scenario of every kind, split between two load generators,
// renders to the same bytes as the golden files (written before the kinds'
// report halves were types of their own, and kept since): the sections'
// order, their tables and the charts.
func TestReportGolden(t *testing.T) {
	m, recs := hostileRun("n", "plain")
	md, h, err := newReport("", m, recs).render()
	if err != nil {
		t.Fatal(err)
	}
	golden.File(t, filepath.Join("testdata", "kinds.md"), md)
	golden.File(t, filepath.Join("testdata", "kinds.html"), h)
}
