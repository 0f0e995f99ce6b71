package jsonstyle

import (
	"encoding/json"
	"slices"
	"testing"
)

type inner struct {
	List []string          `json:"list"`
	Opt  []string          `json:"opt,omitempty"`
	Map  map[string][]int  `json:"map"`
	Raw  json.RawMessage   `json:"raw,omitempty"`
	Ptr  *inner            `json:"ptr,omitempty"`
	Any  map[string]any    `json:"any,omitempty"`
	ByID map[string]*inner `json:"by_id"`
}

// Every nil list and map becomes empty, but an omitempty one's and a
// byte slice's; inside pointers, slices and map values too.
func TestLists(t *testing.T) {
	v := struct {
		A  inner   `json:"a"`
		Bs []inner `json:"bs"`
	}{A: inner{Ptr: &inner{}, ByID: map[string]*inner{"x": {}}, Map: map[string][]int{"k": nil}, Any: map[string]any{"s": []string(nil), "n": nil}}, Bs: []inner{{}}}
	Lists(&v)
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":{"list":[],"map":{"k":[]},"ptr":{"list":[],"map":{},"by_id":{}},"any":{"n":null,"s":[]},"by_id":{"x":{"list":[],"map":{},"by_id":{}}}},"bs":[{"list":[],"map":{},"by_id":{}}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		in   string
		data []string
		want []string
	}{
		{`{"a_b":[1],"c":{"d":"x"}}`, nil, nil},
		{`{"ID":1}`, nil, []string{".ID: key with an upper-case letter"}},
		{`{"list":null}`, nil, []string{".list: null"}},
		{`{"pages per second":1,"server-cpu":2,"a__b":3}`, nil, []string{".a__b: key not in snake_case", ".pages per second: key not in snake_case", ".server-cpu: key not in snake_case"}},
		{`{"vars":{"PHP_INI":"x"}}`, []string{".vars"}, nil},
		{`{"vars":{"PHP":null}}`, []string{".vars"}, []string{".vars.*: null"}},
		{"{\"a\":1}\n{\"rows\":[{\"Key\":2}]}\n", nil, []string{".rows[].Key: key with an upper-case letter"}},
		{`{`, nil, []string{"not JSON: unexpected EOF"}},
	} {
		got := Check([]byte(c.in), c.data...)
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("Check(%s) = %q, want %q", c.in, got, c.want)
		}
	}
}

// What an interface holds is filled too: a slice given as any (its
// elements), a struct behind a settable interface.
func TestListsThroughAny(t *testing.T) {
	v := any([]inner{{}})
	Lists(&v)
	w := any(inner{})
	Lists(&w)
	for _, x := range []any{v, w} {
		b, _ := json.Marshal(x)
		if bad := Check(b); len(bad) > 0 {
			t.Errorf("%s: %q", b, bad)
		}
	}
}
