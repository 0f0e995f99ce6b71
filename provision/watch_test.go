package provision

import (
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

const watchHead = `profile {
  description = "w"
  platforms   = ["debian-12"]
}
platform "debian-12" {
  package_manager = "apt"
}
variable "secret" {
  type      = string
  default   = "s3cret"
  sensitive = true
}
file "conf" {
  path    = "/etc/w/w.conf"
  content = "Max 150\n"
}
file "pw" {
  path    = "/etc/w/pw"
  content = var.secret
}
`

// The watch blocks and file ops are what the drift record keeps: the
// watched paths cleaned and deduplicated, the written files by path, a file
// whose content is secret marked so.
func TestWatchAndWritten(t *testing.T) {
	r := renderSrc(t, watchHead+`
watch "php-cgi" {
  paths = ["/etc/php/8.4/cgi/php.ini", "/etc/php/8.4/cgi/conf.d/", "/etc/php/8.4/cgi/php.ini"]
}
watch "off" {
  paths = ["/etc/x"]
  when  = false
}
`)
	want := []Watch{{Name: "php-cgi", Paths: []string{"/etc/php/8.4/cgi/php.ini", "/etc/php/8.4/cgi/conf.d"}}}
	if !reflect.DeepEqual(r.Watch, want) {
		t.Errorf("watch = %+v, want %+v", r.Watch, want)
	}
	wantW := []Written{{Path: "/etc/w/pw", Op: "file.pw", Sensitive: true}, {Path: "/etc/w/w.conf", Op: "file.conf"}}
	if got := r.Written(); !reflect.DeepEqual(got, wantW) {
		t.Errorf("written = %+v, want %+v", got, wantW)
	}
}

func TestWatchRefused(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"relative", `watch "a" { paths = ["etc/php.ini"] }`, "Relative path"},
		{"empty", `watch "a" { paths = [] }`, "Empty watch"},
		{"duplicate", "watch \"a\" { paths = [\"/a\"] }\nwatch \"a\" { paths = [\"/b\"] }", "Duplicate watch"},
		{"no name", `watch "" { paths = ["/a"] }`, "Invalid watch name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, diags := Load(fstest.MapFS{"b/main.hcl": {Data: []byte(watchHead + tc.src + "\n")}}, "b", Vars{})
			if !diags.HasErrors() {
				_, diags = p.Render("debian-12")
			}
			if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.want) {
				t.Errorf("diags = %v, want %q", diags, tc.want)
			}
		})
	}
}
