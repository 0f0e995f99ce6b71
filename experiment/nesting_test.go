package experiment

import (
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/exitcode"
)

// deep is a file whose second line nests 100,000 parentheses (200 KB,
// which crashed HCL's parser with a stack dump); the bound is passed at
// 2:261.
func deep(prefix string) []byte {
	return []byte(prefix + "\nb = " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + "\n")
}

// TestLoadDeepNesting: an experiment file nested too deep, and an
// allow_from -var list, are config errors at file:line:col, not a crash.
func TestLoadDeepNesting(t *testing.T) {
	_, err := Load("deep.hcl", deep("# deep"), LoadOptions{})
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "deep.hcl:2:261: Nested too deep") {
		t.Errorf("exit %d: %v", exitcode.Of(err), err)
	}
	if _, err := stringList(strings.Repeat("[", 100000)); err == nil || !strings.Contains(err.Error(), "Nested too deep") {
		t.Errorf("allow_from: %v", err)
	}
}
