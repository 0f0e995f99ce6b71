package cloud

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/wptest/wptest/internal/golden"

	"github.com/wptest/wptest/internal/exitcode"
)

// Each testdata/machines/*.txtar holds input.hcl, optionally vars (one
// name=value a line), and want: the decoded block as JSON or the error.
func TestLoadMachinesGolden(t *testing.T) {
	golden.Archives(t, "testdata/machines/*.txtar", func(t *testing.T, ar *txtar.Archive) map[string]string {
		src, _ := golden.Section(ar, "input.hcl")
		v, _ := golden.Section(ar, "vars")
		vm, err := ParseVars(strings.Fields(string(v)))
		var got string
		if err == nil {
			var m Machines
			m, err = LoadMachines("input.hcl", src, vm)
			if err == nil {
				b, _ := json.MarshalIndent(m, "", "  ")
				got = string(b) + "\n"
			}
		}
		if err != nil {
			if exitcode.Of(err) != exitcode.Config {
				t.Errorf("error code %d, want 2: %v", exitcode.Of(err), err)
			}
			got = "error: " + err.Error() + "\n"
		}
		return map[string]string{"want": got}
	})
}

func TestRedactWriterCatchesSplitSecrets(t *testing.T) {
	k, err := NewKeyPair(nil, "h")
	if err != nil {
		t.Fatal(err)
	}
	r := &Redactor{}
	r.Add("tok-123456789abcdef", k.PrivatePEM)
	var out strings.Builder
	w := r.Writer(&out)
	// The token split across writes; the key as it appears JSON-escaped in
	// user_data (one line, "\n" between PEM lines, re-indented).
	escaped := strings.ReplaceAll(CloudInitHostKey(k), "\n", `\n`)
	for _, p := range []string{"Authorization: tok-1234", "56789abcdef\n", `{"user_data":"` + escaped + `"}`, "\n", "tail without newline tok-123456789abcdef"} {
		if _, err := w.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if strings.Contains(got, "tok-123456789abcdef") || strings.Count(got, Mask) < 3 {
		t.Errorf("token not masked: %q", got)
	}
	for _, l := range strings.Split(k.PrivatePEM, "\n") {
		if len(l) > 0 && !strings.HasPrefix(l, "-----") && strings.Contains(got, l) {
			t.Errorf("key line leaked: %q", l)
		}
	}
	if !strings.Contains(got, "ed25519_public: "+k.Public) {
		t.Errorf("the public key should stay readable: %q", got)
	}
}

func TestResolveCredentials(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cli.toml")
	os.WriteFile(cfg, []byte(`active_context = "bench"

[preferences]
  debug = false

[[contexts]]
  name = "other"
  token = "tok-other"

[[contexts]]
  name = "bench"
  token = "tok-bench"
  endpoint = "http://127.0.0.1:1"
  [contexts.preferences]
`), 0o600)
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		env              map[string]string
		path             string
		token, endpoint  string
		errSub, notInErr string
	}{
		{env: map[string]string{"HCLOUD_TOKEN": "tok-env", "HCLOUD_ENDPOINT": "http://e"}, path: cfg, token: "tok-env", endpoint: "http://e"},
		{env: map[string]string{}, path: cfg, token: "tok-bench", endpoint: "http://127.0.0.1:1"},
		{env: map[string]string{"HCLOUD_CONTEXT": "other"}, path: cfg, token: "tok-other"},
		{env: map[string]string{"HCLOUD_CONTEXT": "nope"}, path: cfg, errSub: `no context named "nope"`, notInErr: "tok-"},
		{env: map[string]string{}, path: filepath.Join(dir, "missing.toml"), errSub: "HCLOUD_TOKEN is not set"},
	}
	for i, c := range cases {
		got, err := ResolveCredentials(env(c.env), c.path)
		if c.errSub != "" {
			if err == nil || !strings.Contains(err.Error(), c.errSub) || exitcode.Of(err) != exitcode.Config || (c.notInErr != "" && strings.Contains(err.Error(), c.notInErr)) {
				t.Errorf("%d: err = %v", i, err)
			}
			continue
		}
		if err != nil || got.Token != c.token || got.Endpoint != c.endpoint {
			t.Errorf("%d: got %+v, %v", i, got, err)
		}
	}
}

func TestExpiredRunsAndSelector(t *testing.T) {
	now := mustTime(t, "2026-11-29T12:00:00Z")
	rs := []Resource{
		{Run: "a", Expires: now.Add(-1)}, {Run: "a", Expires: now.Add(-1)},
		{Run: "b", Expires: now.Add(1e9)},
		{Run: "c"}, // no expiry: never collected
		{Run: "d", Expires: now},
	}
	exp, unk := ExpiredRuns(rs, now)
	if strings.Join(exp, ",") != "a,d" || strings.Join(unk, ",") != "c" {
		t.Errorf("expired %v unknown %v", exp, unk)
	}
	for _, s := range []Selector{{}, {Run: "a", AllRuns: true}, {Run: "a,wptest/run"}, {Run: "A"}} {
		if _, err := s.LabelSelector(); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
	if _, err := (Selector{}).LabelSelector(); !errors.Is(err, ErrEmptySelector) {
		t.Errorf("empty selector: %v", err)
	}
	if got, _ := (Selector{Run: "t1"}).LabelSelector(); got != "wptest=1,wptest/run=t1" {
		t.Errorf("got %q", got)
	}
}

func mustTime(t *testing.T, s string) (tm time.Time) {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}
