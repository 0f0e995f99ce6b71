package cloud_test

import (
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/cloud"
	_ "github.com/wptest/wptest/provision/cloud/drivers"
)

// An unknown driver in a machines block is a config error at the label's
// file:line:col, with the source line, naming every compiled-in driver.
func TestUnknownDriverNamesTheKnownOnes(t *testing.T) {
	src := []byte("scenario \"x\" {}\n\nmachines \"aws\" {\n  load_generators = 2\n}\n")
	_, _, err := cloud.Resolve(cloud.Choice{File: "exp.hcl", Src: src})
	if err == nil || exitcode.Of(err) != exitcode.Config {
		t.Fatalf("err %v (code %d), want a config error", err, exitcode.Of(err))
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "exp.hcl:3:10: Unknown machines driver") || !strings.Contains(msg, `machines "aws" {`) {
		t.Errorf("no file:line:col and line:\n%s", msg)
	}
	names := cloud.Names()
	if len(names) < 3 || !strings.Contains(msg, "use one of "+strings.Join(names, ", ")) {
		t.Errorf("does not list the drivers %v:\n%s", names, msg)
	}
	// The same through --driver and --target, where there is no file.
	for _, c := range []cloud.Choice{{Driver: "aws"}, {Run: true, Target: "aws"}} {
		if _, _, err := cloud.Resolve(c); err == nil || exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), names[0]) {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// strAttr reads a string attribute of m by its HCL name.
func strAttr(m cloud.Machines, name string) (string, bool) {
	switch name {
	case "targets":
		return "", false
	case "known_hosts":
		return m.KnownHosts, true
	case "identity_file":
		return m.IdentityFile, true
	}
	return m.Attr(name), true
}

// Defaults come from the driver that ends up chosen: each driver's own
// attributes get its registered defaults, and one driver's defaults never
// leak into another's machines (a file's block switched by --target,
// a driver without the attribute).
func TestDefaultsComeFromTheDriver(t *testing.T) {
	checked := 0
	for _, d := range cloud.Drivers() {
		m, _, err := cloud.Resolve(cloud.Choice{Driver: d.Name})
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		if m.Driver != d.Name || m.TTL != cloud.DefaultTTL || m.LoadGens() != 1 {
			t.Errorf("%s: driver %q ttl %q load generators %d", d.Name, m.Driver, m.TTL, m.LoadGens())
		}
		own := map[string]bool{}
		for _, a := range d.Attributes {
			own[a.Name] = true
			if got, ok := strAttr(m, a.Name); ok && got != a.Default {
				t.Errorf("%s: %s = %q, want its default %q", d.Name, a.Name, got, a.Default)
			} else if ok && a.Default != "" {
				checked++
			}
		}
		for _, n := range []string{"server_type", "image", "location"} {
			if got, _ := strAttr(m, n); !own[n] && got != "" {
				t.Errorf("%s does not read %s but got %q", d.Name, n, got)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no driver registered a default: nothing was checked")
	}
	// The cloud commands' default is the post's machine.
	def, err := cloud.DefaultDriver(false)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := cloud.Resolve(cloud.Choice{})
	if err != nil || m.Driver != def.Name || m.Attr("server_type") != "ccx23" || m.Attr("location") != "fsn1" {
		t.Errorf("no block: %+v, %v", m, err)
	}
	// A file without a block runs where the run default says; --target
	// with a driver's name switches to it and to its defaults.
	run, _ := cloud.DefaultDriver(true)
	m, _, err = cloud.Resolve(cloud.Choice{File: "e.hcl", Src: []byte(""), Run: true})
	if err != nil || m.Driver != run.Name || m.Attr("server_type") != "" {
		t.Errorf("run, no block: %+v, %v", m, err)
	}
	m, _, err = cloud.Resolve(cloud.Choice{File: "e.hcl", Src: []byte("machines \"" + run.Name + "\" {}\n"), Run: true, Target: def.Name,
		Vars: map[string]string{"location": "nbg1"}})
	if err != nil || m.Driver != def.Name || m.Attr("server_type") != "ccx23" || m.Attr("location") != "nbg1" {
		t.Errorf("--target %s over a %s block: %+v, %v", def.Name, run.Name, m, err)
	}
}

// --target: a driver's name, or a host a driver claims; anything else is
// an error naming every form.
func TestTargetAsksTheRegistry(t *testing.T) {
	m, _, err := cloud.Resolve(cloud.Choice{Run: true, Target: "ssh://root@192.0.2.1:2222", KnownHosts: "/k"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := cloud.Lookup(m.Driver)
	if err != nil || !d.Capabilities.Targets || len(m.Targets) != 1 || m.Targets[0] != "ssh://root@192.0.2.1:2222" || m.KnownHosts != "/k" {
		t.Errorf("ssh target: %+v (%v)", m, err)
	}
	for _, n := range cloud.Names() {
		if d, err := cloud.ForTarget(n); err != nil || d.Name != n {
			t.Errorf("--target %s: %s, %v", n, d.Name, err)
		}
	}
	_, err = cloud.ForTarget("ftp://x")
	if err == nil || exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "ssh://user@host:port") || !strings.Contains(err.Error(), cloud.Names()[0]) {
		t.Errorf("bad target: %v", err)
	}
}
