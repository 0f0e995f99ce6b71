package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wptest/wptest/provision/cloud"
)

// wptest machines drivers lists every compiled-in driver with its
// attributes and defaults, its credentials by name (a token in the
// environment is never printed) and its capabilities, as text and JSON.
func TestMachinesDrivers(t *testing.T) {
	env := []string{"HCLOUD_TOKEN=" + cliToken}
	txt := runIn(t.TempDir(), env, "machines", "drivers")
	js := runIn(t.TempDir(), env, "machines", "drivers", "-o", "json")
	for _, r := range []cliRun{txt, js} {
		if r.code != 0 || strings.Contains(r.stdout+r.stderr, cliToken) {
			t.Fatalf("code %d, token printed %v\n%s%s", r.code, strings.Contains(r.stdout+r.stderr, cliToken), r.stdout, r.stderr)
		}
	}
	var got struct {
		Drivers []struct {
			Name       string `json:"name"`
			Attributes []struct {
				Name, Default string
			} `json:"attributes"`
			Credentials []struct {
				Env    string `json:"env"`
				Secret bool   `json:"secret"`
			} `json:"credentials"`
			Capabilities cloud.Capabilities `json:"capabilities"`
		} `json:"drivers"`
		Common []cloud.Attribute `json:"common_attributes"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &got); err != nil {
		t.Fatal(err)
	}
	want := cloud.Drivers()
	if len(got.Drivers) != len(want) || len(got.Common) != len(cloud.Common) {
		t.Fatalf("%d drivers and %d common attributes listed, want %d and %d", len(got.Drivers), len(got.Common), len(want), len(cloud.Common))
	}
	secrets := 0
	for i, d := range want {
		g := got.Drivers[i]
		if g.Name != d.Name || g.Capabilities != d.Capabilities || len(g.Attributes) != len(d.Attributes) || len(g.Credentials) != len(d.Credentials) {
			t.Errorf("json %s: %+v, want %+v", d.Name, g, d)
			continue
		}
		if !strings.Contains(txt.stdout, d.Name+": "+d.Summary+"\n") {
			t.Errorf("text lacks %s's heading", d.Name)
		}
		sec := section(txt.stdout, d.Name+": ")
		for j, a := range d.Attributes {
			if g.Attributes[j].Name != a.Name || g.Attributes[j].Default != a.Default {
				t.Errorf("json %s attribute %+v, want %+v", d.Name, g.Attributes[j], a)
			}
			line := "attribute " + a.Name
			if !strings.Contains(sec, line) || (a.Default != "" && !strings.Contains(lineOf(sec, line), " "+a.Default+" ")) {
				t.Errorf("text: %s of %s (default %q): %q", a.Name, d.Name, a.Default, lineOf(sec, line))
			}
		}
		for j, c := range d.Credentials {
			if g.Credentials[j].Env != c.Env || g.Credentials[j].Secret != c.Secret || !strings.Contains(txt.stdout, "credential "+c.Env) {
				t.Errorf("%s credential %s not listed", d.Name, c.Env)
			}
			if c.Secret {
				secrets++
			}
		}
	}
	if secrets == 0 {
		t.Error("no driver lists a secret credential")
	}
}

// section is the heading line starting with head and its indented lines
// (two drivers may read attributes of one name).
func section(s, head string) string {
	var out []string
	in := false
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, " ") {
			in = strings.HasPrefix(l, head)
		}
		if in {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func lineOf(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// gc, machines list and down refuse a driver that labels nothing, or that
// is not compiled in, before any API call, naming the ones that would do.
func TestGCAndListAskTheRegistry(t *testing.T) {
	var nolabel, labels string
	for _, d := range cloud.Drivers() {
		if d.Capabilities.Labels {
			labels = d.Name
		} else {
			nolabel = d.Name
		}
	}
	for _, args := range [][]string{{"gc", "--driver", nolabel}, {"machines", "list", "--driver", nolabel}} {
		r := runIn(t.TempDir(), nil, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "labels nothing") || !strings.Contains(r.stderr, labels) {
			t.Errorf("%v: code %d stderr %q", args, r.code, r.stderr)
		}
	}
	for _, args := range [][]string{{"gc", "--driver", "aws"}, {"down", "--run", "t1", "--driver", "aws"}} {
		r := runIn(t.TempDir(), nil, args...)
		if r.code != 2 || !strings.Contains(r.stderr, `"aws"`) || !strings.Contains(r.stderr, strings.Join(cloud.Names(), ", ")) {
			t.Errorf("%v: code %d stderr %q", args, r.code, r.stderr)
		}
	}
}
