package jsonstyle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"unicode"
)

// Check reads one JSON document or several (a .jsonl file, an encoder's
// stream) and names every object key with an upper-case letter and every
// null, by its path (".columns[].id"). The objects at the paths in data
// are maps whose keys are data (variables, HTTP headers, ids), not field
// names: their keys are not checked, their values are.
func Check(b []byte, data ...string) []string {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var bad []string
	for {
		var v any
		err := d.Decode(&v)
		if errors.Is(err, io.EOF) {
			return bad
		}
		if err != nil {
			return append(bad, "not JSON: "+err.Error())
		}
		walk(v, "", data, &bad)
	}
}

func walk(v any, path string, data []string, bad *[]string) {
	switch v := v.(type) {
	case nil:
		*bad = append(*bad, fmt.Sprintf("%s: null", path))
	case []any:
		for _, e := range v {
			walk(e, path+"[]", data, bad)
		}
	case map[string]any:
		keysAreData := slices.Contains(data, path)
		for k, e := range v {
			p := path + "." + k
			if keysAreData {
				p = path + ".*"
			} else if hasUpper(k) {
				*bad = append(*bad, fmt.Sprintf("%s: key with an upper-case letter", p))
			} else if !snake.MatchString(k) {
				*bad = append(*bad, fmt.Sprintf("%s: key not in snake_case", p))
			}
			walk(e, p, data, bad)
		}
	}
}

// snake is a snake_case key: lower-case words of letters and digits
// joined by one underscore.
var snake = regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)*$`)

func hasUpper(s string) bool {
	return slices.ContainsFunc([]rune(s), unicode.IsUpper)
}
