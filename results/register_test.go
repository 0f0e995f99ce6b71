package results

import "testing"

// TestRegisterRefusesWhatIsTaken: a kind's package cannot take a kind's
// name, give a figure's key or label twice, or a figure no reader or a
// unit claims cannot be written in; nothing is registered then.
func TestRegisterRefusesWhatIsTaken(t *testing.T) {
	rps := Metric{Name: "rps", Label: "files per second", Unit: "req/s", Value: RPS, Headline: true, Noise: true}
	for _, c := range []struct {
		name string
		k    Kind
		ms   []Metric
	}{
		{"a taken name", Kind{Name: "page"}, []Metric{rps}},
		{"no name", Kind{}, []Metric{rps}},
		{"a key twice", Kind{Name: "t1"}, []Metric{rps, {Name: "rps", Label: "other", Unit: "req/s", Value: RPS}}},
		{"a label twice", Kind{Name: "t2"}, []Metric{rps, {Name: "other", Label: "files per second", Unit: "req/s", Value: RPS}}},
		{"no reader", Kind{Name: "t3"}, []Metric{rps, {Name: "mb_s", Label: "x", Unit: "MB/s"}}},
		{"an unknown unit", Kind{Name: "t4"}, []Metric{rps, {Name: "mb", Label: "x", Unit: "furlongs", Value: RPS}}},
		{"a key with a space", Kind{Name: "t5"}, []Metric{rps, {Name: "mb s", Label: "x", Unit: "MB/s", Value: RPS}}},
		{"no label", Kind{Name: "t6"}, []Metric{rps, {Name: "mb_s", Unit: "MB/s", Value: RPS}}},
		{"no headline figure", Kind{Name: "t7"}, []Metric{{Name: "rps", Label: "x", Unit: "req/s", Value: RPS, Noise: true}}},
		{"no noise figure", Kind{Name: "t8"}, []Metric{{Name: "rps", Label: "x", Unit: "req/s", Value: RPS, Headline: true}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			n, m := len(Registered), len(Metrics)
			defer func() {
				if recover() == nil {
					t.Errorf("registered")
				}
				if len(Registered) != n || len(Metrics) != m || len(Kinds) != n {
					t.Errorf("a refused kind left %d kinds, %d figures (had %d, %d)", len(Registered), len(Metrics), n, m)
				}
			}()
			Register(c.k, c.ms)
		})
	}
}
