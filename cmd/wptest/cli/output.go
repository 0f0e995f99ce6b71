package cli

import (
	"errors"
	"flag"
)

// Every command that prints data takes the same output flag, -o text|json;
// outputVar adds it, so the name, default, help and check are written once.

// outputUsage is the help line of -o.
const outputUsage = "output: text or json"

// outputValue is -o's flag.Value: it refuses anything but text or json when
// the flag is parsed, so a bad value is a usage error (exit 2) before the
// command does anything.
type outputValue struct{ p *string }

func (o outputValue) String() string {
	if o.p == nil {
		return ""
	}
	return *o.p
}

// Type is what --help shows -o takes.
func (o outputValue) Type() string { return "text|json" }

func (o outputValue) Set(v string) error {
	if v != "text" && v != "json" {
		return errors.New("want text or json")
	}
	*o.p = v
	return nil
}

// outputVar adds -o (default text) to fs, stored in *p.
func outputVar(fs *flag.FlagSet, p *string) {
	*p = "text"
	fs.Var(outputValue{p}, "o", outputUsage)
}

// outputFlag adds -o (default text) to fs and returns where it is stored.
func outputFlag(fs *flag.FlagSet) *string {
	p := new(string)
	outputVar(fs, p)
	return p
}
