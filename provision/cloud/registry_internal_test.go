package cloud

import (
	"reflect"
	"strings"
	"testing"
)

// Two drivers of one name, or two claiming one default, are refused: the
// registry is what the commands trust to pick a driver.
func TestRegistryRefusesClashes(t *testing.T) {
	open := func(OpenOptions) (Cloud, error) { return nil, nil }
	reg := map[string]*Driver{}
	if err := add(reg, Driver{Name: "a", DefaultCloud: true, Open: open}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		d    Driver
		want string
	}{
		{Driver{Name: "a", Open: open}, "registered twice"},
		{Driver{Name: "b", DefaultCloud: true, Open: open}, "both claim a default"},
		{Driver{Name: "c"}, "needs a name and Open"},
		{Driver{Open: open}, "needs a name and Open"},
		// A driver's own attribute is read from Own: one named like a
		// common or a target attribute would never be.
		{Driver{Name: "d", Attributes: []Attribute{{Name: "ttl"}}, Open: open}, "is a common one"},
		{Driver{Name: "e", Attributes: []Attribute{{Name: "known_hosts"}}, Open: open}, "takes targets"},
		{Driver{Name: "f", Capabilities: Capabilities{Targets: true}, Open: open}, "does not list TargetAttributes"},
		{Driver{Name: "g", Capabilities: Capabilities{Targets: true}, Attributes: []Attribute{{Name: "targets"}, {Name: "known_hosts"}}, Open: open}, "only the operator sets it"},
	} {
		if err := add(reg, c.d); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.d.Name, err, c.want)
		}
	}
	if err := add(reg, Driver{Name: "b", DefaultRun: true, Open: open}); err != nil {
		t.Errorf("a run default beside a cloud default: %v", err)
	}
	if len(reg) != 2 {
		t.Errorf("registry holds %d drivers, want 2", len(reg))
	}
}

// A driver's own attributes live in a map that copies of Machines share:
// setting one on a copy (With, -var, a default) leaves the original as it
// was, so a plan computed from one never changes under another's hands.
func TestOwnAttributesAreCopiedOnWrite(t *testing.T) {
	a := Machines{Driver: "x"}.With("image", "debian-12")
	b := a.With("image", "debian-13")
	c := b
	c.unset("image")
	if a.Attr("image") != "debian-12" || b.Attr("image") != "debian-13" || c.Attr("image") != "" {
		t.Errorf("a %q, b %q, c %q: want debian-12, debian-13, none", a.Attr("image"), b.Attr("image"), c.Attr("image"))
	}
	if _, err := a.ApplyVars(map[string]string{"server_type": "ccx33"}); err != nil {
		t.Fatal(err)
	}
	d := a
	if _, err := d.ApplyVars(map[string]string{"server_type": "cx22"}); err != nil {
		t.Fatal(err)
	}
	if a.Attr("server_type") != "ccx33" || d.Attr("server_type") != "cx22" {
		t.Errorf("server_type: original %q, copy %q: want ccx33 and cx22", a.Attr("server_type"), d.Attr("server_type"))
	}
	// An empty value is an attribute not given: the plan (and its hash)
	// is the same as without it.
	if e := b.With("image", ""); e.Own != nil || !reflect.DeepEqual(b.With("image", "").With("server_cpus", ""), Machines{Driver: "x"}) {
		t.Errorf("empty values kept: %v", e.Own)
	}
}
