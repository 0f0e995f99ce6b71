package termsafe

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestLineAndText(t *testing.T) {
	for _, c := range []struct{ in, line, text string }{
		{"plain café", "plain café", "plain café"},
		{"a\x1b[2J\x1b]0;title\x07b", "a\ufffd[2J\ufffd]0;title\ufffdb", "a\ufffd[2J\ufffd]0;title\ufffdb"},
		{"x\ny\r\nz\tw", "x y  z w", "x\ny\nz\tw"},
		{"over\rwrite", "over write", "over write"},
		{"\x9b31m\x7f\x08", "\ufffd31m\ufffd\ufffd", "\ufffd31m\ufffd\ufffd"},
		{"bad \xff byte", "bad \ufffd byte", "bad \ufffd byte"},
		{"rtl \u202eevil\u2066x\u2069", "rtl \ufffdevil\ufffdx\ufffd", "rtl \ufffdevil\ufffdx\ufffd"},
	} {
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
	}
}

// TestJSON: the escaped JSON holds the same values and no character a
// terminal acts on.
func TestJSON(t *testing.T) {
	in := map[string]string{"a\u009b31m": "x\x1b[2J\x7f\u202e\u0085y", "plain": "é"}
	b, err := json.MarshalIndent(in, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	got := JSON(b)
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || !reflect.DeepEqual(back, in) {
		t.Errorf("JSON(%s) = %s: reads back as %q, %v", b, got, back, err)
	}
	if Text(string(got)) != string(got) {
		t.Errorf("JSON left a control character: %q", got)
	}
	if !strings.Contains(string(got), `\u009b`) || !strings.Contains(string(got), `\u007f`) {
		t.Errorf("JSON: %s", got)
	}
}
