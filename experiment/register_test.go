package experiment

import "testing"

// TestRegisterRefusesATakenName: a kind's package cannot replace another
// kind's block and load.
func TestRegisterRefusesATakenName(t *testing.T) {
	before := scenarioKinds["page"]
	defer func() {
		if recover() == nil || scenarioKinds["page"] != before {
			t.Errorf("the page kind's run half was registered again")
		}
	}()
	Register("page", someKind{})
}

// someKind is a Kind that is not nil (its methods are never called).
type someKind struct{ Kind }
