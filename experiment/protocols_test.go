package experiment

import (
	"testing"

	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// A scenario's protocol is measured only on servers whose profile declares
// it; a profile that declares no protocols is not held to a list.
func TestNotServed(t *testing.T) {
	nginx := &hostmanifest.Manifest{Profile: "nginx", Server: &provision.Server{Protocols: []string{"h1", "h2"}}}
	bare := &hostmanifest.Manifest{Profile: "mine", Server: &provision.Server{}}
	for _, c := range []struct {
		hm    *hostmanifest.Manifest
		proto string
		want  string
	}{
		{nginx, "h1", ""},
		{nginx, "h2", ""},
		{nginx, "h3", "nginx serves h1, h2, not h3"},
		{nginx, "h2c", "nginx serves h1, h2, not h2c"},
		{bare, "h3", ""},
		{&hostmanifest.Manifest{Profile: "old"}, "h3", ""},
	} {
		if got := notServed(c.hm, Scenario{Proto: c.proto}); got != c.want {
			t.Errorf("%s, %s: %q, want %q", c.hm.Profile, c.proto, got, c.want)
		}
	}
}
