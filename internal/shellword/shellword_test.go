package shellword

import (
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

const marker = "wptinj"

// TestOneWord: the checker itself, on scripts a value of each kind would
// make: it passes only a value that stayed one quoted word.
func TestOneWord(t *testing.T) {
	v := "x'; touch /tmp/" + marker + "; echo '"
	q := "'x'\\''; touch /tmp/" + marker + "; echo '\\'''"
	sub := "$(id)" + marker
	for _, c := range []struct {
		script, value string
		ok            bool
	}{
		{"curl -o f " + q, v, true},
		{"url=" + q + "\ncurl \"$url\"", v, true},
		{"curl -o f '" + v + "'", v, false},                          // the injection
		{"echo \"" + sub + "\"", sub, false},                         // $( inside double quotes
		{"echo '" + sub + "'", sub, true},                            // single quotes keep it
		{"echo x " + marker + "y", "x " + marker + "y", false},       // split by a space
		{"ls /tmp/*" + marker, "/tmp/*" + marker, false},             // glob
		{"ls '/tmp/*'" + marker, "/tmp/*" + marker, true},            // quoted glob
		{"ls /tmp/\\*" + marker, "/tmp/*" + marker, true},            // escaped glob
		{"eval " + marker, marker, false},                            // one word, but run
		{"sh -c '" + marker + "'", marker, false},                    // likewise
		{"echo a # " + marker, marker, false},                        // in a comment
		{"cat <<EOF\n" + sub + "\nEOF\n", sub, false},                // heredoc runs $(
		{"cat <<'EOF'\n" + sub + "\nEOF\n", sub, true},               // quoted heredoc does not
		{"echo '" + marker + "\n'", marker + "\n", true},             // newline quoted
		{"echo " + marker + "\n", marker + "\n", false},              // newline ends the command
		{"echo unrelated", v, true},                                  // not in the script
		{"echo '" + marker, marker, false},                           // does not parse
		{"case x in '" + marker + "*') ;; esac", marker + "*", true}, // pattern quoted
	} {
		err := Check(c.script, syntax.LangPOSIX, c.value, marker)
		if (err == nil) != c.ok {
			t.Errorf("%q with value %q: err %v, want ok=%v", c.script, c.value, err, c.ok)
		}
	}
}
