package result

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/hdr"
)

// fill gives every exported field of v a non-zero value, so a field that
// does not survive JSON is seen.
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	case reflect.String:
		v.SetString("s" + string(rune('a'+*n%26)))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		m.SetMapIndex(reflect.ValueOf("h2"), reflect.ValueOf(int64(*n)))
		v.Set(m)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), n)
		v.Set(s)
	case reflect.Pointer:
		if v.Type() == reflect.TypeOf((*hdr.Histogram)(nil)) {
			h := hdr.New()
			h.Record(time.Duration(*n) * time.Millisecond)
			h.RecordN(int64(*n)*1000, 3)
			v.Set(reflect.ValueOf(h))
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), n)
		v.Set(p)
	}
}

// Every field of a browse result, its histograms included, comes back from
// JSON as it went in.
func TestBrowseJSONRoundTrip(t *testing.T) {
	var b Browse
	n := 0
	fill(reflect.ValueOf(&b).Elem(), &n)
	j, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var back Browse
	if err := json.Unmarshal(j, &back); err != nil {
		t.Fatal(err)
	}
	j2, _ := json.Marshal(back)
	if !bytes.Equal(j, j2) {
		t.Fatalf("JSON changed in a round trip:\n%s\n%s", j, j2)
	}
	raw, braw := b.Raw, back.Raw
	b.Raw, back.Raw = nil, nil
	if !reflect.DeepEqual(b, back) {
		t.Fatalf("round trip:\n%+v\n%+v", b, back)
	}
	if raw.PageView.Count() != braw.PageView.Count() || raw.WireIn.Quantile(.5) != braw.WireIn.Quantile(.5) {
		t.Fatalf("histograms: %d/%d values", raw.PageView.Count(), braw.PageView.Count())
	}
	for _, k := range []string{`"page_view":{"count"`, `"negotiated":{"h2"`, `"asset_outcomes":{"ok"`, `"wire_in":{"count"`} {
		if !bytes.Contains(j, []byte(k)) {
			t.Errorf("no %s in %s", k, j)
		}
	}
}
