package cli

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode"
)

// helpWidth is where --help wraps a flag's text.
const helpWidth = 80

// help is c's --help: the usage line, the synopsis, a group's commands,
// more about it, examples and the flags (Terraform's order).
func (c *command) help(w io.Writer) {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: wptest %s\n\n%s\n", c.usage, sentence(c.synopsis))
	if c.subs != nil {
		b.WriteString("\nCommands:\n")
		width := 0
		for _, s := range c.subs {
			width = max(width, len(s.short()))
		}
		indent := strings.Repeat(" ", 2+width+2)
		for _, s := range c.subs {
			fmt.Fprintf(&b, "  %-*s  %s\n", width, s.short(), wrap(s.synopsis, helpWidth-len(indent), indent))
		}
	}
	for _, p := range strings.Split(strings.TrimSpace(c.about), "\n\n") {
		b.WriteString("\n" + paragraph(p) + "\n")
	}
	b.WriteString("\nExamples:\n")
	for _, e := range c.examples {
		b.WriteString("  " + e + "\n")
	}
	if c.subs != nil {
		fmt.Fprintf(&b, "\nEach command's flags: wptest %s COMMAND --help\n", c.name)
	} else {
		fs, _ := c.flagSet()
		b.WriteString("\nFlags:\n")
		writeFlags(&b, fs)
	}
	io.WriteString(w, b.String())
}

// paragraph is p wrapped at helpWidth, unless it is laid out already (a
// line of it indented: a list).
func paragraph(p string) string {
	if p == "" || strings.Contains(p, "\n ") || strings.HasPrefix(p, " ") {
		return p
	}
	return wrap(p, helpWidth, "")
}

// sentence is s with a capital first letter and a full stop.
func sentence(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return s
	}
	r[0] = unicode.ToUpper(r[0])
	if !strings.ContainsRune(".?!", r[len(r)-1]) {
		r = append(r, '.')
	}
	return string(r)
}

// writeFlags lists fs's flags as "--name type  what it does (default X)",
// the text wrapped under itself. Unlike flag.PrintDefaults, a flag's text
// is printed as written: backquotes in it stay quotes, never a placeholder.
func writeFlags(w *strings.Builder, fs *flag.FlagSet) {
	type row struct{ left, text string }
	rows := []row{}
	fs.VisitAll(func(f *flag.Flag) {
		left := dashed(f.Name)
		if t := flagType(f); t != "" {
			left += " " + t
		}
		text := f.Usage
		if d := flagDefault(f); d != "" {
			text += " (default " + d + ")"
		}
		rows = append(rows, row{left, text})
	})
	rows = append(rows, row{"-h, --help", "show this help"})
	width := 0
	for _, r := range rows {
		if len(r.left) <= 24 {
			width = max(width, len(r.left))
		}
	}
	indent := strings.Repeat(" ", 2+width+2)
	for _, r := range rows {
		w.WriteString("  " + r.left)
		if len(r.left) > width {
			w.WriteString("\n" + indent) // too long a name: its text below it
		} else {
			w.WriteString(strings.Repeat(" ", width-len(r.left)+2))
		}
		w.WriteString(wrap(r.text, helpWidth-len(indent), indent) + "\n")
	}
}

// wrap breaks s into lines of at most width characters (a longer word
// stands alone), each after the first starting with indent.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(s) {
		l := len([]rune(word))
		switch {
		case i == 0:
		case n+1+l > width:
			b.WriteString("\n" + indent)
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += l
	}
	return b.String()
}

// flagType is what a flag takes, as its help names it: "" for a switch,
// the Value's Type() where it has one (pflag's convention), else the kind
// of the flag package's own values (string, duration, int, uint, float).
func flagType(f *flag.Flag) string {
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return ""
	}
	if t, ok := f.Value.(interface{ Type() string }); ok {
		return t.Type()
	}
	name := reflect.Indirect(reflect.ValueOf(f.Value)).Type().Name()
	name = strings.TrimSuffix(name, "Value")
	return strings.TrimRight(name, "0123456789")
}

// flagDefault is the default --help shows: none for a zero value, a
// string quoted.
func flagDefault(f *flag.Flag) string {
	switch f.DefValue {
	case "", "0", "false", "0s":
		return ""
	}
	if flagType(f) == "string" {
		return fmt.Sprintf("%q", f.DefValue)
	}
	return f.DefValue
}
