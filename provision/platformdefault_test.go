package provision

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wptest/wptest/host"
)

// pdProfile is a profile whose "v" takes a different default per platform
// (none for almalinux-9: its plain default), used by platform blocks, ops
// and a validation rule.
var pdProfile = fstest.MapFS{"p/main.hcl": {Data: []byte(`
profile {
  description = "platform defaults"
  platforms   = ["debian-12", "debian-13", "almalinux-9"]
}
variable "v" {
  type             = string
  default          = "8.x"
  platform_default = { "debian-12" = "8.2", "debian-13" = "8.4" }
  validation {
    condition     = can(regex("^[0-9]+\\.([0-9]+|x)$", var.v))
    error_message = "v must be MAJOR.MINOR or MAJOR.x."
  }
}
platform "debian-12" {
  package_manager = "apt"
  packages        = { php = "php${var.v}-cli" }
}
platform "debian-13" {
  package_manager = "apt"
  packages        = { php = "php${var.v}-cli" }
}
platform "almalinux-9" {
  package_manager = "dnf"
  packages        = { php = "php-cli" }
}
package "php" {
  names = [platform.packages.php]
}
file "version" {
  path    = "/etc/x/version"
  content = "${var.v}\n"
}
`)}}

// TestPlatformDefault: a variable's platform_default is its value on that
// platform (in platform blocks, ops and the report's variables), its
// default elsewhere; a value from -var or a var file wins everywhere; and
// each value is validated, a bad platform_default named with its platform.
func TestPlatformDefault(t *testing.T) {
	for _, tc := range []struct {
		name     string
		vars     Vars
		want     map[string]string // platform -> value of v
		packages map[string]string // platform -> package name
	}{
		{"defaults", Vars{},
			map[string]string{"debian-12": "8.2", "debian-13": "8.4", "almalinux-9": "8.x"},
			map[string]string{"debian-12": "php8.2-cli", "debian-13": "php8.4-cli", "almalinux-9": "php-cli"}},
		{"-var wins on every platform", Vars{Args: []string{"v=8.3"}},
			map[string]string{"debian-12": "8.3", "debian-13": "8.3", "almalinux-9": "8.3"},
			map[string]string{"debian-12": "php8.3-cli", "debian-13": "php8.3-cli", "almalinux-9": "php-cli"}},
		{"a var file wins too", Vars{Files: []VarFile{{Name: "x.hcl", Src: []byte(`v = "7.4"`)}}},
			map[string]string{"debian-12": "7.4", "debian-13": "7.4", "almalinux-9": "7.4"},
			map[string]string{"debian-12": "php7.4-cli", "debian-13": "php7.4-cli", "almalinux-9": "php-cli"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, diags := Load(pdProfile, "p", tc.vars)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			for plat, want := range tc.want {
				r, diags := p.Render(plat)
				if diags.HasErrors() {
					t.Fatalf("%s: %v", plat, diags)
				}
				if got := r.Ops[0].(*PackageOp).Names; len(got) != 1 || got[0] != tc.packages[plat] {
					t.Errorf("%s: package %v, want %s", plat, got, tc.packages[plat])
				}
				if got := string(r.Ops[1].(*FileOp).Body); got != want+"\n" {
					t.Errorf("%s: file says %q, want %q", plat, got, want)
				}
				rep := r.Offline()
				if len(rep.Variables) != 1 || rep.Variables[0].Value != want {
					t.Errorf("%s: report variables %+v, want v = %q", plat, rep.Variables, want)
				}
			}
		})
	}

	// A platform_default that fails the rule is named with its platform;
	// the same value given by -var is refused as coming from -var.
	bad := fstest.MapFS{"p/main.hcl": {Data: bytes.Replace(pdProfile["p/main.hcl"].Data, []byte(`"debian-13" = "8.4"`), []byte(`"debian-13" = "eight"`), 1)}}
	_, diags := Load(bad, "p", Vars{})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "its platform_default on debian-13") || strings.Contains(diags.Error(), "debian-12") {
		t.Errorf("bad platform_default: %v; want one error naming debian-13's platform_default", diags)
	}
	_, diags = Load(pdProfile, "p", Vars{Args: []string{"v=eight"}})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "value from -var") || len(diags) != 1 {
		t.Errorf("-var v=eight: %v; want one error naming -var", diags)
	}
	notObject := fstest.MapFS{"p/main.hcl": {Data: bytes.Replace(pdProfile["p/main.hcl"].Data, []byte(`{ "debian-12" = "8.2", "debian-13" = "8.4" }`), []byte(`"8.2"`), 1)}}
	if _, diags := Load(notObject, "p", Vars{}); !diags.HasErrors() || !strings.Contains(diags.Error(), "platform_default must be an object") {
		t.Errorf("platform_default a string: %v", diags)
	}
	// No default and no platform_default for a platform: required there.
	noDefault := fstest.MapFS{"p/main.hcl": {Data: bytes.Replace(pdProfile["p/main.hcl"].Data, []byte(`default          = "8.x"`), nil, 1)}}
	_, diags = Load(noDefault, "p", Vars{})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), `"v" has no default on almalinux-9`) || strings.Contains(diags.Error(), "on debian") {
		t.Errorf("no default for almalinux-9: %v", diags)
	}
	if _, diags := Load(noDefault, "p", Vars{Args: []string{"v=8.3"}}); diags.HasErrors() {
		t.Errorf("no default, -var given: %v", diags)
	}
}

// TestFactDeviation: a fact with expect_regex adds its deviation (the
// output in place of %s) when the host's output does not match, and none
// when it does; the plan lists the rule before anything ran; a fact with
// only one of the two attributes is refused.
func TestFactDeviation(t *testing.T) {
	profile := func(out string) fstest.MapFS {
		return fstest.MapFS{"p/main.hcl": {Data: []byte(`
profile {
  description = "fact deviation"
  platforms   = ["debian-12"]
}
platform "debian-12" {
  package_manager = "apt"
  deviations      = ["static one"]
}
fact "php_version" {
  run          = "echo ` + out + `"
  expect_regex = "^8\\.4\\."
  deviation    = "PHP %s instead of 8.4"
}
fact "other" {
  run = "echo 1"
}
`)}}
	}
	for out, want := range map[string][]string{
		"8.2.29": {"static one", "PHP 8.2.29 instead of 8.4"},
		"8.4.27": {"static one"},
	} {
		p, diags := Load(profile(out), "p", Vars{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		r, diags := p.Render("debian-12")
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		var plan bytes.Buffer
		if err := r.Offline().WriteText(&plan); err != nil {
			t.Fatal(err)
		}
		// The rule says the output in words: no format verb reaches a reader.
		if !strings.Contains(plan.String(), `deviation unless fact.php_version matches ^8\.4\.: PHP <fact.php_version's output> instead of 8.4`) || strings.Contains(plan.String(), "deviation: PHP") {
			t.Errorf("offline plan does not list the rule (or decided it):\n%s", plan.String())
		}
		if strings.Contains(plan.String(), "%s") {
			t.Errorf("a format verb reached the offline plan:\n%s", plan.String())
		}
		rep, err := r.Apply(context.Background(), host.NewLocal(nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(rep.Deviations, "|") != strings.Join(want, "|") {
			t.Errorf("output %s: deviations %q, want %q", out, rep.Deviations, want)
		}
		var text bytes.Buffer
		if err := rep.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(text.String(), "deviation unless") {
			t.Errorf("the applied report still lists the rule:\n%s", text.String())
		}
	}
	half := fstest.MapFS{"p/main.hcl": {Data: bytes.Replace(profile("8.4.1")["p/main.hcl"].Data, []byte(`  deviation    = "PHP %s instead of 8.4"`+"\n"), nil, 1)}}
	if _, diags := Load(half, "p", Vars{}); !diags.HasErrors() || !strings.Contains(diags.Error(), "expect_regex and deviation go together") {
		t.Errorf("expect_regex without deviation: %v", diags)
	}
}
