package golden

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// Fill sets every exported field reachable from v (structs, pointers,
// slices and maps of one element) to a value of its own, counting up from
// *n, so a golden file of v shows every field's name and shape. Values of
// a type skip reports (and of net/netip) are left zero: their format is
// another package's.
func Fill(v reflect.Value, n *int, skip func(reflect.Type) bool) {
	*n++
	if v.Type() == reflect.TypeFor[json.RawMessage]() {
		v.SetBytes(fmt.Appendf(nil, `{"n":%d}`, *n)) // JSON that is some other reader's: one value
		return
	}
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
		if skip(v.Type().Elem()) {
			return
		}
		p := reflect.New(v.Type().Elem())
		Fill(p.Elem(), n, skip)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		Fill(s.Index(0), n, skip)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		Fill(k, n, skip)
		Fill(e, n, skip)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		if skip(v.Type()) || v.Type().PkgPath() == "net/netip" {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				Fill(v.Field(i), n, skip)
			}
		}
	}
}
