package hetzner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/exitcode"
)

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
