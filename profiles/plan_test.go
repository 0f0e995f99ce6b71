package profiles_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/wptest/wptest/internal/golden"
	"github.com/wptest/wptest/profiles"
	"github.com/wptest/wptest/provision"
)

// TestPlanGolden renders every shipped profile offline for each platform,
// with default variables, and compares the result with
// _golden/<platform>/<profile>.txtar: the op list and every file rendered
// from a template (httpd.conf, the PHP-FPM pool, the Caddyfile...), so a
// reviewer reads exactly what would be written. No host is involved.
func TestPlanGolden(t *testing.T) {
	for _, name := range profiles.Names() {
		for _, platform := range []string{"almalinux-9", "debian-12", "debian-13"} {
			t.Run(name+"/"+platform, func(t *testing.T) {
				p, diags := provision.Load(profiles.FS, name, provision.Vars{})
				if diags.HasErrors() {
					var b bytes.Buffer
					_ = provision.WriteDiagnostics(&b, p.Files(), diags, true)
					t.Fatalf("load: %s", b.String())
				}
				r, diags := p.Render(platform)
				if diags.HasErrors() {
					t.Fatalf("render: %v", diags)
				}
				golden.Archive(t, filepath.Join("_golden", platform, name+".txtar"), planArchive(t, name, platform, r.Offline()))
			})
		}
	}
}

func planArchive(t *testing.T, name, platform string, rep *provision.Report) *txtar.Archive {
	a := &txtar.Archive{Comment: []byte(fmt.Sprintf(
		"wptest plan --profile %s --platform %s, offline, default variables.\n"+
			"Regenerate: go test ./profiles -run TestPlanGolden -update\n", name, platform))}
	var plan strings.Builder
	fmt.Fprintf(&plan, "profile %s on %s\nvariables:\n", rep.Profile, rep.Platform)
	for _, v := range rep.Variables {
		fmt.Fprintf(&plan, "  %s = %s\n", v.Name, jsonText(t, v.Value))
	}
	for _, d := range rep.Deviations {
		fmt.Fprintf(&plan, "deviation: %s\n", d)
	}
	for _, f := range rep.DeviationRules {
		fmt.Fprintf(&plan, "deviation unless %s matches %s: %s\n", f.ID, f.ExpectRegex, f.DeviationText())
	}
	for _, b := range rep.Blocked {
		fmt.Fprintf(&plan, "blocked: %s\n", b)
	}
	fmt.Fprintln(&plan, "ops:")
	var files []txtar.File
	for i, op := range rep.Ops {
		fmt.Fprintf(&plan, "%3d. %s\n", i+1, op.ID)
		keys := make([]string, 0, len(op.Spec))
		for k := range op.Spec {
			if k != "content" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			if s, ok := op.Spec[k].(string); ok && strings.Contains(s, "\n") {
				fmt.Fprintf(&plan, "       %s: |\n", k)
				for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
					fmt.Fprintf(&plan, "         %s\n", line)
				}
				continue
			}
			fmt.Fprintf(&plan, "       %s: %s\n", k, jsonText(t, op.Spec[k]))
		}
		for _, n := range op.Notify {
			fmt.Fprintf(&plan, "       notify: %s\n", n)
		}
		from, _ := op.Spec["from"].(string)
		// Rendered templates, and files copied from the profile except the
		// docroot probes and helper scripts every profile shares.
		if c, ok := op.Spec["content"].(string); ok && (strings.HasPrefix(from, "template ") ||
			strings.HasPrefix(from, "source ") && !strings.HasPrefix(from, "source templates/shared/")) {
			files = append(files, txtar.File{Name: op.Spec["path"].(string), Data: []byte(c)})
		}
	}
	fmt.Fprintln(&plan, "checks:")
	for _, c := range rep.Checks {
		fmt.Fprintf(&plan, "  %s\n", c.ID)
	}
	// What the profile says of itself, for the host manifest.
	fmt.Fprintf(&plan, "site: %s\n", jsonText(t, rep.Site))
	for _, g := range rep.Groups {
		fmt.Fprintf(&plan, "process group: %s\n", jsonText(t, g))
	}
	for _, c := range rep.Teardown {
		fmt.Fprintf(&plan, "teardown: %s\n", c)
	}
	fmt.Fprintf(&plan, "server: %s\n", jsonText(t, rep.Server))
	for _, w := range rep.Watch {
		fmt.Fprintf(&plan, "watch: %s\n", jsonText(t, w))
	}
	for _, w := range rep.Written {
		fmt.Fprintf(&plan, "written: %s\n", jsonText(t, w))
	}
	a.Files = append([]txtar.File{{Name: "plan", Data: []byte(plan.String())}}, files...)
	return a
}

// jsonText is v as JSON without HTML escaping (shell commands stay readable).
func jsonText(t *testing.T, v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
