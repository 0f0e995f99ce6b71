package report

import "testing"

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
