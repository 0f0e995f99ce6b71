package hetzner

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/exp/mockutil"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/cloud"
)

// Opened through the registry, the driver reads its token through the
// command's Getenv (never the process environment), sends it to the API,
// hands it to the redactor, and prints it nowhere: not in its progress
// log, not in the registry's description of it.
func TestRegistryOpenReadsCredentials(t *testing.T) {
	d, err := cloud.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	if !d.DefaultCloud || !d.Capabilities.Creates || !d.Capabilities.Labels || !d.Capabilities.Prices {
		t.Errorf("capabilities %+v default %v", d.Capabilities, d.DefaultCloud)
	}
	auth := func(t *testing.T, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "Bearer "+testToken {
			t.Errorf("Authorization %q", got)
		}
	}
	all := "wptest%3D1%2Cwptest%2Frun"
	var reqs []mockutil.Request
	for _, kind := range []string{"servers", "firewalls", "placement_groups", "ssh_keys"} {
		reqs = append(reqs, mockutil.Request{Method: "GET", Path: "/" + kind + "?label_selector=" + all + "&page=1&per_page=50",
			Status: 200, Want: auth, JSON: map[string]any{kind: []any{}}})
	}
	mock := mockutil.NewServer(t, reqs)
	env := map[string]string{"HCLOUD_TOKEN": testToken, "HCLOUD_ENDPOINT": mock.URL, "HOME": t.TempDir()}
	red := &cloud.Redactor{}
	var log bytes.Buffer
	c, err := d.Open(cloud.OpenOptions{Getenv: func(k string) string { return env[k] }, Redactor: red, Log: &log,
		Backoff: func(int) time.Duration { return time.Millisecond }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.List(context.Background(), cloud.Selector{AllRuns: true}); err != nil {
		t.Fatal(err)
	}
	if got := red.String("x " + testToken + " y"); strings.Contains(got, testToken) {
		t.Errorf("the redactor does not know the token: %q", got)
	}
	if strings.Contains(log.String(), testToken) {
		t.Errorf("token in the log: %q", log.String())
	}
	var names []string
	for _, c := range d.Credentials {
		names = append(names, c.Env)
		if strings.Contains(c.Doc, testToken) {
			t.Error("token in the credential's description")
		}
	}
	if strings.Join(names, ",") != "HCLOUD_TOKEN,HCLOUD_ENDPOINT,HCLOUD_CONTEXT,HCLOUD_CONFIG" {
		t.Errorf("credentials %v", names)
	}
}

// Without a token, Open is a config error that says where to put it, and
// nothing is asked of an API; the hcloud CLI config is looked for where
// the command's HOME says.
func TestRegistryOpenWithoutToken(t *testing.T) {
	d, err := cloud.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	_, err = d.Open(cloud.OpenOptions{Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}})
	want := filepath.Join(home, ".config", "hcloud", "cli.toml")
	if err == nil || exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "HCLOUD_TOKEN") || !strings.Contains(err.Error(), want) {
		t.Errorf("err %v (code %d)", err, exitcode.Of(err))
	}
}
