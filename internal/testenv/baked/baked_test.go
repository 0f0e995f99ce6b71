package baked

import (
	"context"
	"testing"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/provision"
)

// TestServersImageHoldsWhatUpInstalls: on a host made from the image of
// the shipped server profiles, a plan of each of them finds every package
// op and every bake command done (what an up there would install or build
// is there: mod_ruid2 built, for its Apache), and every other op still to
// do (nothing of a profile's configuration is baked in: no site user, no
// config file, no service).
func TestServersImageHoldsWhatUpInstalls(t *testing.T) {
	bh := Hosts(t, Servers, "img")[0]
	ctx := context.Background()
	tg, err := host.ParseTarget(bh.Target)
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Open(ctx, tg, host.Options{KnownHostsFile: bh.KnownHosts, IdentityFile: bh.Identity, ConnectTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, name := range Servers {
		r, err := render(name, bh.Platform)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := r.Plan(ctx, h, nil)
		if err != nil {
			t.Fatalf("plan %s on a host from the image: %v", name, err)
		}
		todo := 0
		for i, op := range r.Ops {
			or := rep.Ops[i]
			if or.ID != op.ID() || or.Change == nil {
				t.Fatalf("plan %s: op %d is %s, want %s with a change", name, i, or.ID, op.ID())
			}
			switch {
			case baked(op) && or.Change.Needed:
				t.Errorf("%s: %s is to do on a host from the image: %s %v", name, or.ID, or.Change.Action, or.Change.Details)
			case !baked(op) && or.Change.Needed:
				todo++
			}
		}
		if todo == 0 {
			t.Errorf("%s: nothing but what is baked left to do: the image holds more than packages and builds", name)
		}
		t.Logf("%s: %d ops, %d to do on a host from the image", name, len(r.Ops), todo)
	}
	// The rootfs's dpkg configuration held for every install (the netns
	// machine's dpkgConfig): apache2's files are there but its manual and
	// docs, the copyright kept.
	res, err := h.Run(ctx, host.Cmd{Script: `for f in /usr/sbin/apache2 /usr/share/man/man8/apache2ctl.8.gz /usr/share/doc/apache2/README.Debian.gz /usr/share/doc/apache2/copyright; do
  if [ -e "$f" ]; then echo "$f yes"; else echo "$f no"; fi; done; dpkg-query -W -f='${Status}' apache2`})
	if err != nil {
		t.Fatal(err)
	}
	want := "/usr/sbin/apache2 yes\n/usr/share/man/man8/apache2ctl.8.gz no\n/usr/share/doc/apache2/README.Debian.gz no\n" +
		"/usr/share/doc/apache2/copyright yes\ninstall ok installed"
	if got := string(res.Stdout); got != want {
		t.Errorf("what the image's installs unpacked:\n%s\nwant\n%s", got, want)
	}
	if got := testenv.BarePlatform(bh.Suite); got != bh.Platform {
		t.Errorf("platform %s, want %s", bh.Platform, got)
	}
}

// baked reports whether op is one Rendered.Bake applies: a package op or a
// command marked bake.
func baked(op provision.Op) bool {
	switch o := op.(type) {
	case *provision.PackageOp:
		return true
	case *provision.CommandOp:
		return o.Bake
	}
	return false
}
