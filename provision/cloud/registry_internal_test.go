package cloud

import (
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
