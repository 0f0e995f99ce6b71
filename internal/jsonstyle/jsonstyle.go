// Package jsonstyle holds what every JSON file and output of wptest has
// in common: an empty list is written [] (and an empty map {}), never
// null, unless its field is omitempty (absent: nothing to say).
package jsonstyle

import (
	"reflect"
	"strings"
)

// Lists sets, in place, every nil slice and map reachable from v (a
// pointer) through exported fields, elements and map values to an empty
// one, but those of omitempty fields (left out of the JSON anyway) and
// byte slices (a RawMessage, a []byte: another reader's JSON or base64).
func Lists(v any) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		fill(rv.Elem(), map[uintptr]bool{})
	}
}

func fill(v reflect.Value, seen map[uintptr]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		fill(v.Elem(), seen)
	case reflect.Interface:
		fillHeld(v, seen)
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || !v.Field(i).CanSet() || skipped(f) {
				continue
			}
			if omitted(f) && v.Field(i).IsZero() {
				continue
			}
			fill(v.Field(i), seen)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		if v.IsNil() {
			if v.CanSet() {
				v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			}
			return
		}
		for i := range v.Len() {
			fill(v.Index(i), seen)
		}
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), seen)
		}
	case reflect.Map:
		if v.IsNil() {
			if v.CanSet() {
				v.Set(reflect.MakeMap(v.Type()))
			}
			return
		}
		fillMap(v, seen)
	}
}

// fillMap fills a map's values: they are not addressable, so each is
// copied, filled and put back.
func fillMap(m reflect.Value, seen map[uintptr]bool) {
	for _, k := range m.MapKeys() {
		e := m.MapIndex(k)
		if e.Kind() == reflect.Interface { // a map[string]any's: what it holds
			if e.IsNil() {
				continue
			}
			e = e.Elem()
		}
		switch e.Kind() {
		case reflect.Pointer:
			fill(e, seen)
		case reflect.Slice, reflect.Map, reflect.Struct, reflect.Array:
			c := reflect.New(e.Type()).Elem()
			c.Set(e)
			fill(c, seen)
			m.SetMapIndex(k, c)
		}
	}
}

func tag(f reflect.StructField) []string { return strings.Split(f.Tag.Get("json"), ",") }

func skipped(f reflect.StructField) bool { return tag(f)[0] == "-" && len(tag(f)) == 1 }

func omitted(f reflect.StructField) bool {
	for _, o := range tag(f)[1:] {
		if o == "omitempty" || o == "omitzero" {
			return true
		}
	}
	return false
}

// fillHeld fills what an interface holds: in place where it can be
// reached (a pointer's target, a slice's elements, a map's values), or
// as a copy put back where the interface can be set.
func fillHeld(v reflect.Value, seen map[uintptr]bool) {
	if v.IsNil() {
		return
	}
	e := v.Elem()
	switch k := e.Kind(); {
	case k == reflect.Pointer, (k == reflect.Slice || k == reflect.Map) && !e.IsNil():
		fill(e, seen)
	case v.CanSet() && (k == reflect.Slice || k == reflect.Map || k == reflect.Struct):
		c := reflect.New(e.Type()).Elem()
		c.Set(e)
		fill(c, seen)
		v.Set(c)
	}
}
