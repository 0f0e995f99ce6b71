package experiment

import (
	"github.com/wptest/wptest/results"
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
		if got := notServed(c.hm, results.Scenario{Proto: c.proto}); got != c.want {
			t.Errorf("%s, %s: %q, want %q", c.hm.Profile, c.proto, got, c.want)
		}
	}
}

// The load goes to the port the live profile's server block declares for
// the scenario's protocol; a profile that declares none is reached on the
// experiment's ports.
func TestURLUsesDeclaredPorts(t *testing.T) {
	r := &runner{sp: &Spec{HTTPPort: 80, HTTPSPort: 443}, addr: "2001:db8::1"}
	for _, c := range []struct {
		ports map[string]int
		proto string
		want  string
	}{
		{nil, "h1", "http://[2001:db8::1]:80/x"},
		{nil, "h3", "https://[2001:db8::1]:443/x"},
		{map[string]int{"http": 8080, "https": 8443}, "h1", "http://[2001:db8::1]:8080/x"},
		{map[string]int{"http": 8080, "https": 8443}, "h2c", "http://[2001:db8::1]:8080/x"},
		{map[string]int{"http": 8080, "https": 8443}, "h2", "https://[2001:db8::1]:8443/x"},
		{map[string]int{"http": 8080}, "h2", "https://[2001:db8::1]:443/x"},
	} {
		r.ports = c.ports
		if got := r.url("/x", c.proto); got != c.want {
			t.Errorf("ports %v, %s: %s, want %s", c.ports, c.proto, got, c.want)
		}
	}
}
