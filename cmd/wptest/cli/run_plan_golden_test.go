package cli

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/wptest/wptest/internal/golden"
)

// run --plan of the post's experiment as people read it (the columns, the
// matrix of columns × scenarios × steps with its totals and the count over
// repetitions, the estimate and why there is no cost) and as JSON (the
// same, snake_case, empty lists as []), without a Hetzner token:
// testdata/run_plan.txtar.
func TestRunPlanGolden(t *testing.T) {
	file, err := filepath.Abs("../../../experiments/corehttpd-vs-cpanel.hcl")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	// What differs between checkouts and runs: where the file and HOME are.
	stable := strings.NewReplacer(file, "experiments/corehttpd-vs-cpanel.hcl", home, "$HOME")
	a := &txtar.Archive{Comment: []byte("wptest run experiments/corehttpd-vs-cpanel.hcl --plan [-o json], without a Hetzner token.\n" +
		"Regenerate: go test ./cmd/wptest/cli -run TestRunPlanGolden -update\n")}
	for _, o := range []string{"text", "json"} {
		code, out, errOut := runCLI(t, []string{"HOME=" + home}, "run", file, "--plan", "-o", o)
		if code != 0 {
			t.Fatalf("run --plan -o %s: exit %d\n%s", o, code, errOut)
		}
		a.Files = append(a.Files, txtar.File{Name: o, Data: []byte(stable.Replace(out))})
		if o == "json" {
			var v any
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatalf("-o json: %v", err)
			}
			checkJSONStyle(t, "", v)
		}
	}
	golden.Archive(t, filepath.Join("testdata", "run_plan.txtar"), a)
}

// checkJSONStyle fails on a key with an upper-case letter and on a null.
func checkJSONStyle(t *testing.T, at string, v any) {
	t.Helper()
	switch x := v.(type) {
	case nil:
		t.Errorf("%s is null", at)
	case []any:
		for i, e := range x {
			checkJSONStyle(t, at+"["+strconv.Itoa(i)+"]", e)
		}
	case map[string]any:
		for k, e := range x {
			if strings.IndexFunc(k, unicode.IsUpper) >= 0 {
				t.Errorf("%s: key %q is not snake_case", at, k)
			}
			checkJSONStyle(t, at+"."+k, e)
		}
	}
}
