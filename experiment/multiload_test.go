package experiment

import (
	"reflect"
	"testing"
)

// The load is divided into equal parts, the remainder one each to the
// first generators, and the record's text names the parts.
func TestSplitLoad(t *testing.T) {
	for _, c := range []struct {
		visitors int
		requests int64
		rate     float64
		n        int
		want     []share
		text     string
	}{
		{24, 0, 0, 2, []share{{Visitors: 12}, {Visitors: 12}}, "24 visitors over 2 load generators: 12 + 12"},
		{25, 0, 0, 2, []share{{Visitors: 13}, {Visitors: 12}}, "25 visitors over 2 load generators: 13 + 12"},
		{10, 0, 0, 3, []share{{Visitors: 4}, {Visitors: 3}, {Visitors: 3}}, "10 visitors over 3 load generators: 4 + 3 + 3"},
		{11, 0, 0, 3, []share{{Visitors: 4}, {Visitors: 4}, {Visitors: 3}}, "11 visitors over 3 load generators: 4 + 4 + 3"},
		{1, 0, 0, 2, []share{{Visitors: 1}}, "1 visitors over 1 of 2 load generators: 1"},
		{2, 10, 0, 2, []share{{Visitors: 1, Requests: 5}, {Visitors: 1, Requests: 5}}, "2 visitors over 2 load generators: 1 + 1; 10 requests: 5 + 5"},
		{4, 7, 0, 3, []share{{Visitors: 2, Requests: 3}, {Visitors: 1, Requests: 2}, {Visitors: 1, Requests: 2}},
			"4 visitors over 3 load generators: 2 + 1 + 1; 7 requests: 3 + 2 + 2"},
		{8, 1, 0, 2, []share{{Visitors: 8, Requests: 1}}, "8 visitors over 1 of 2 load generators: 8; 1 requests: 1"},
		{25, 0, 100, 2, []share{{Visitors: 13, Rate: 52}, {Visitors: 12, Rate: 48}}, "25 visitors over 2 load generators: 13 + 12; 100/s, in proportion"},
	} {
		got, text := splitLoad(c.visitors, c.requests, c.rate, c.n)
		if !reflect.DeepEqual(got, c.want) || text != c.text {
			t.Errorf("split(%d, %d, %v, %d) = %+v %q, want %+v %q", c.visitors, c.requests, c.rate, c.n, got, text, c.want, c.text)
		}
		var v int
		var r int64
		for _, s := range got {
			v += s.Visitors
			r += s.Requests
		}
		if v != c.visitors || r != c.requests {
			t.Errorf("split(%d, %d): parts add up to %d visitors, %d requests", c.visitors, c.requests, v, r)
		}
	}
}
