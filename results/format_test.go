package results

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/internal/golden"
)

// theirs says t's format belongs to another package (bench/result's
// measurements, hostmanifest's host manifest).
func theirs(t reflect.Type) bool {
	switch t.PkgPath() {
	case "github.com/wptest/wptest/bench/result", "github.com/wptest/wptest/provision/hostmanifest":
		return true
	}
	return false
}

// The files a run writes keep their bytes: a manifest and a record with
// every field set, written the way the runner writes them, are the golden
// files under testdata (written by package experiment before the schema
// moved here, to prove the move changed no byte).
func TestFormatGolden(t *testing.T) {
	dir := t.TempDir()
	n := 0
	var m Manifest
	golden.Fill(reflect.ValueOf(&m).Elem(), &n, theirs)
	m.Format = ManifestFormat
	m.PlanHash = strings.Repeat("5a", 32) // ReadManifest wants a plan hash's shape
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	var rec Record
	golden.Fill(reflect.ValueOf(&rec).Elem(), &n, theirs)
	rec.Server = &result.Server{}
	rec.Error = "get https://user:secret@example.com/: refused"
	s, _, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Append(rec); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, f := range []string{ManifestFile, ResultsFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		golden.File(t, filepath.Join("testdata", f), b)
	}
	// What was written reads back as it was.
	got, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, m) {
		t.Errorf("manifest read back:\n%+v\nwritten:\n%+v", *got, m)
	}
	recs, err := ReadResults(dir)
	if err != nil || len(recs) != 1 || recs[0].Key != rec.Key || recs[0].Error != "get https://(sensitive)@example.com/: refused" {
		t.Errorf("records read back: %+v, %v", recs, err)
	}
}
