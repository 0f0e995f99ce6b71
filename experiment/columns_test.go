package experiment

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/wptest/wptest/results"
)

// The column block and its short form, the profile block: ids, profiles,
// labels and variables as the file gives them, in file order, the ports
// added to every column, and a scenario's columns = [...].
func TestColumnBlocks(t *testing.T) {
	head := "experiment \"e\" {\n  http_port = 8080\n}\nfixture \"minimal\" { seed = 1 }\n"
	ports := func(kv ...string) map[string]string {
		m := map[string]string{"http_port": "8080", "https_port": "443"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name, blocks string
		want         []results.Column
		plan         []string
	}{
		{"short form", `profile "caddy" {}`,
			[]results.Column{{ID: "caddy", Profile: "caddy", Label: "caddy", Vars: ports(), Enabled: true}},
			[]string{"r1/caddy/s/c=1"}},
		{"two columns of one profile", `
profile "tuned-apache" { label = "Apache tuned" }
column "tuned-400" {
  profile = "tuned-apache"
  label   = "Apache tuned, 400 workers"
  vars    = { max_request_workers = 400 }
}`,
			[]results.Column{{ID: "tuned-apache", Profile: "tuned-apache", Label: "Apache tuned", Vars: ports(), Enabled: true},
				{ID: "tuned-400", Profile: "tuned-apache", Label: "Apache tuned, 400 workers", Vars: ports("max_request_workers", "400"), Enabled: true}},
			[]string{"r1/tuned-apache/s/c=1", "r1/tuned-400/s/c=1"}},
		{"file order across both blocks, an alias, a column left out", `
column "b" {
  profile = "caddy"
}
profile "nginx" {}
column "c" {
  profile = "core"
  enabled = false
  reason  = "not public"
}`,
			[]results.Column{{ID: "b", Profile: "caddy", Label: "b", Vars: ports(), Enabled: true},
				{ID: "nginx", Profile: "nginx", Label: "nginx", Vars: ports(), Enabled: true},
				{ID: "c", Profile: "core", Label: "c", Vars: ports(), Enabled: false, Reason: "not public"}},
			[]string{"r1/b/s/c=1", "r1/nginx/s/c=1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := head + tc.blocks + "\nscenario \"s\" {\n  kind     = \"page\"\n  visitors = [1]\n}\n"
			sp, err := Load("exp.hcl", []byte(src), LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(sp.Columns, tc.want) {
				t.Errorf("columns:\n%+v\nwant:\n%+v", sp.Columns, tc.want)
			}
			var keys []string
			for _, p := range sp.Plan() {
				keys = append(keys, p.Key)
			}
			if strings.Join(keys, " ") != strings.Join(tc.plan, " ") {
				t.Errorf("plan %v, want %v", keys, tc.plan)
			}
		})
	}
}

// A scenario runs on the columns it lists, by id (two of one profile
// apart), and on every column without a list.
func TestScenarioColumns(t *testing.T) {
	src := `experiment "e" {}
fixture "minimal" { seed = 1 }
profile "tuned-apache" {}
column "tuned-400" {
  profile = "tuned-apache"
  vars    = { max_request_workers = 400 }
}
profile "caddy" {}
scenario "page" {
  kind     = "page"
  visitors = [4]
  columns  = ["tuned-apache", "caddy"]
}
scenario "crowd" {
  kind     = "crowd"
  visitors = [300]
  columns  = ["tuned-400"]
}
scenario "static" {
  kind     = "static"
  visitors = [10]
}
`
	sp, err := Load("exp.hcl", []byte(src), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range sp.Plan() {
		got = append(got, fmt.Sprintf("%s=%s", p.Key, p.Profile))
	}
	want := []string{"r1/tuned-apache/page/c=4=tuned-apache", "r1/tuned-apache/static/c=10=tuned-apache",
		"r1/tuned-400/crowd/c=300=tuned-apache", "r1/tuned-400/static/c=10=tuned-apache",
		"r1/caddy/page/c=4=caddy", "r1/caddy/static/c=10=caddy"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
