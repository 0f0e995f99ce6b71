package benchcmd

import (
	"context"
	"testing"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
)

// Kinds are listed in their Order, whatever order they register in; a
// name taken, or a kind without a load, is refused.
func TestRegisterKeepsTheOrderAndRefusesWhatIsTaken(t *testing.T) {
	saved := kinds
	t.Cleanup(func() { kinds = saved })
	kinds = nil
	load := func(context.Context, *Flags, *result.Report, benchgen.Config) error { return nil }
	Register("b", Kind{Order: 20, Load: load})
	Register("c", Kind{Order: 30, Load: load})
	Register("a", Kind{Order: 10, Load: load})
	var got []string
	for _, k := range Kinds() {
		got = append(got, k.Name)
	}
	if len(got) != 3 || got[0] != "a" || got[1] != "b" || got[2] != "c" {
		t.Errorf("kinds %v, want a b c", got)
	}
	for _, k := range []struct {
		name string
		kind Kind
	}{{"a", Kind{Load: load}}, {"d", Kind{}}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s registered", k.name)
				}
			}()
			Register(k.name, k.kind)
		}()
	}
}
