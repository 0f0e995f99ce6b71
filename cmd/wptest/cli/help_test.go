package cli

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/wptest/wptest/internal/golden"
)

// allCommands is every command and every command of a group.
func allCommands() []*command {
	var all []*command
	for _, c := range commands() {
		all = append(all, c)
		all = append(all, c.subs...)
	}
	return all
}

// TestHelpGolden: every command's --help, as testdata/help.txtar holds it
// (go test -update rewrites it: review the diff).
func TestHelpGolden(t *testing.T) {
	a := &txtar.Archive{Comment: []byte("wptest COMMAND --help of every command (TestHelpGolden; go test -update rewrites it)\n")}
	for _, c := range allCommands() {
		code, stdout, stderr := runCLI(t, nil, append(strings.Fields(c.name), "--help")...)
		if code != 0 || stdout != "" {
			t.Errorf("%s --help: exit %d, stdout %q", c.name, code, stdout)
		}
		a.Files = append(a.Files, txtar.File{Name: "wptest " + c.name + " --help", Data: []byte(stderr)})
	}
	golden.Archive(t, filepath.Join("testdata", "help.txtar"), a)
}

// Every command's help (-h as --help) has its usage line, its synopsis,
// at least one example of that command whose flags it takes, and every
// flag with its text as written: nothing taken out of it (Go's flag
// package makes a `quoted` word the flag's placeholder), no Go "Usage of".
func TestHelpOfEveryCommand(t *testing.T) {
	for _, c := range allCommands() {
		for _, h := range []string{"-h", "--help"} {
			code, _, help := runCLI(t, nil, append(strings.Fields(c.name), h)...)
			if code != 0 {
				t.Errorf("%s %s: exit %d", c.name, h, code)
			}
			if !strings.HasPrefix(help, "Usage: wptest "+c.usage+"\n\n"+sentence(c.synopsis)+"\n") || strings.Contains(help, "Usage of") {
				t.Errorf("%s %s: no usage line and synopsis first:\n%s", c.name, h, help)
			}
			if !strings.Contains(help, "\nExamples:\n  wptest "+c.name+" ") && !strings.Contains(help, "\nExamples:\n  wptest "+c.name+"\n") {
				t.Errorf("%s %s: no example of it:\n%s", c.name, h, help)
			}
		}
		_, _, help := runCLI(t, nil, append(strings.Fields(c.name), "-h")...)
		flat := strings.Join(strings.Fields(help), " ")
		if c.subs != nil {
			for _, s := range c.subs {
				if !strings.Contains(help, "\n  "+s.short()+" ") {
					t.Errorf("%s -h does not list %s:\n%s", c.name, s.short(), help)
				}
			}
			continue
		}
		fs, _ := c.flagSet()
		fs.VisitAll(func(f *flag.Flag) {
			left := dashed(f.Name)
			if ty := flagType(f); ty != "" {
				left += " " + ty
			}
			if want := left + " " + strings.Join(strings.Fields(f.Usage), " "); !strings.Contains(flat, want) {
				t.Errorf("%s -h: flag %s is not shown as %q:\n%s", c.name, f.Name, want, help)
			}
		})
		checkExamples(t, c)
	}
}

// checkExamples parses each of c's examples with c's flags: an example
// that names a flag c does not have, or arguments c takes none of, fails.
func checkExamples(t *testing.T, c *command) {
	t.Helper()
	if len(c.examples) == 0 {
		t.Errorf("%s: no example", c.name)
	}
	for _, e := range c.examples {
		words := strings.Fields(e)
		want := append([]string{"wptest"}, strings.Fields(c.name)...)
		if len(words) < len(want) || strings.Join(words[:len(want)], " ") != strings.Join(want, " ") {
			t.Errorf("%s: example %q is not of it", c.name, e)
			continue
		}
		var args []string
		for _, w := range words[len(want):] {
			if w == "<" || w == ">" {
				break // the shell's redirections
			}
			args = append(args, strings.Trim(w, "'"))
		}
		fs, _ := c.flagSet()
		pos, err := parseInterleaved(fs, args)
		if err != nil || (!c.args && len(pos) > 0) {
			t.Errorf("%s: example %q: %v, arguments %q", c.name, e, err, pos)
		}
	}
}

// sentence makes a synopsis a sentence; a flag's help wraps under itself
// within helpWidth, however long a word.
func TestHelpText(t *testing.T) {
	for in, want := range map[string]string{"print the version": "Print the version.", "(internal) run it": "(internal) run it.", "ok.": "Ok.", "": ""} {
		if got := sentence(in); got != want {
			t.Errorf("sentence(%q) = %q, want %q", in, got, want)
		}
	}
	got := wrap("aaa bbb ccc dddddddddd e", 8, "  ")
	if want := "aaa bbb\n  ccc\n  dddddddddd\n  e"; got != want {
		t.Errorf("wrap = %q, want %q", got, want)
	}
}
