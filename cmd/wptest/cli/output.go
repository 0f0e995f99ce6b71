package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"io"
	"reflect"

	"github.com/wptest/wptest/internal/jsonstyle"
	"github.com/wptest/wptest/internal/termsafe"
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

// writeJSON writes v as every -o json output is written: empty lists as
// [] (jsonstyle.Lists), indented when indent (a document for a person or
// jq; one line for what another process reads line by line), no control
// character a terminal acts on, a newline at the end.
func writeJSON(w io.Writer, v any, indent bool) error {
	p := reflect.New(reflect.TypeOf(v))
	p.Elem().Set(reflect.ValueOf(v))
	jsonstyle.Lists(p.Interface())
	var b []byte
	var err error
	if indent {
		b, err = json.MarshalIndent(p.Elem().Interface(), "", "  ")
	} else {
		b, err = json.Marshal(p.Elem().Interface())
	}
	if err != nil {
		return err
	}
	_, err = w.Write(append(termsafe.JSON(b), '\n'))
	return err
}
