package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/internal/golden"
)

// fill sets every exported field reachable from v (structs, pointers,
// slices and maps of one element) to a value of its own, counting up, so a
// golden file of v shows every field's JSON name and shape. Types of
// bench/result and hostmanifest are left zero (their format is theirs).
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.25)
	case reflect.Pointer:
		if theirs(v.Type().Elem()) {
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), n)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), n)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, n)
		fill(e, n)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		if theirs(v.Type()) || v.Type().PkgPath() == "net/netip" {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	}
}

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
// every field set, written the way the runner writes them, and the plan
// hash of a spec, are the golden files under results/testdata (written
// before the schema moved to package results, to prove the move changed
// no byte).
func TestFormatGolden(t *testing.T) {
	dir := t.TempDir()
	n := 0
	var m Manifest
	fill(reflect.ValueOf(&m).Elem(), &n)
	m.Format = ManifestFormat
	if err := m.write(dir); err != nil {
		t.Fatal(err)
	}
	var rec Record
	fill(reflect.ValueOf(&rec).Elem(), &n)
	rec.Server = &result.Server{}
	rec.Error = "get https://user:secret@example.com/: refused"
	s, _, err := openStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.append(rec); err != nil {
		t.Fatal(err)
	}
	s.close()
	var sp Spec
	sp.Name, sp.Repetitions, sp.Warmup, sp.HTTPPort = "golden", 2, 3*time.Second, 80
	fill(reflect.ValueOf(&sp.Profiles).Elem(), &n)
	fill(reflect.ValueOf(&sp.Scenarios).Elem(), &n)
	fill(reflect.ValueOf(&sp.Fixture).Elem(), &n)
	sp.Profiles[0].Enabled = true
	sp.Scenarios[0].Profiles = nil
	for _, f := range []string{ManifestFile, ResultsFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		golden.File(t, filepath.Join("..", "results", "testdata", f), b)
	}
	golden.File(t, filepath.Join("..", "results", "testdata", "plan_sha256.txt"), []byte(sp.PlanHash()+"\n"))
}
