package report

import (
	"testing"

	"github.com/wptest/wptest/results"
)

// TestRegisterRefusesATakenName: a kind's package cannot replace another
// kind's section.
func TestRegisterRefusesATakenName(t *testing.T) {
	n := len(reportKinds)
	defer func() {
		if recover() == nil || len(reportKinds) != n {
			t.Errorf("the page kind's report half was registered again (%d kinds, had %d)", len(reportKinds), n)
		}
	}()
	Register("page", Kind{})
}

// TestRegisterRefusesAKindTheSectionsCannotRead: a kind per request
// without the figures the cost and ratio sections read, or without a
// section, is refused.
func TestRegisterRefusesAKindTheSectionsCannotRead(t *testing.T) {
	for _, k := range []Kind{{Section: func(*Report, results.Scenario) Section { return Section{} }, PerRequest: true}, {}} {
		n := len(reportKinds)
		func() {
			defer func() {
				if recover() == nil || len(reportKinds) != n {
					t.Errorf("kind %+v registered", k)
				}
			}()
			Register("no-figures", k)
		}()
	}
}
