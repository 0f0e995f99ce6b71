package results

import (
	"strings"
	"testing"
)

// Each figure is declared once, as readers see it: a key and a label of
// its own within its kind, a unit a claim can be written in, and every
// kind has figures for compare (Headline) and the repetitions section
// (Noise), so neither names a kind to show it.
func TestMetricsVocabulary(t *testing.T) {
	keys, labels := map[string]bool{}, map[string]bool{}
	for _, m := range Metrics {
		if _, ok := KindOf(m.Kind); !ok {
			t.Errorf("%s %s: no registered kind %q", m.Kind, m.Name, m.Kind)
		}
		if m.Name == "" || strings.ContainsAny(m.Name, " /()") || m.Label == "" || m.Value == nil {
			t.Errorf("%s %+v: want a key (no spaces), a label and a reader", m.Kind, m)
		}
		if _, ok := units[m.Unit]; !ok {
			t.Errorf("%s %s: unit %q is none a claim can be written in", m.Kind, m.Name, m.Unit)
		}
		if k := m.Kind + " " + m.Name; keys[k] {
			t.Errorf("%s: declared twice", k)
		} else {
			keys[k] = true
		}
		if l := m.Kind + " " + m.Label; labels[l] {
			t.Errorf("%s %s: label %q is another figure's too", m.Kind, m.Name, m.Label)
		} else {
			labels[l] = true
		}
	}
	for _, k := range Kinds {
		var head, noise int
		for _, m := range MetricsOf(k) {
			if m.Headline {
				head++
			}
			if m.Noise {
				noise++
			}
		}
		if head == 0 || noise == 0 {
			t.Errorf("kind %s: %d headline and %d noise figures; want some of each", k, head, noise)
		}
	}
}
