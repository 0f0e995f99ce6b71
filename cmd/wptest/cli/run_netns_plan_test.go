package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/experiment"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/cloud/netns"
)

// The cPanel vs corehttpd post on bare hosts (scripts/post-on-bare-hosts.sh)
// runs its file, whose machines block is Hetzner's, with --target netns:
// the plan is on the netns driver's own image, says which of the block's
// attributes it left, and the script's -var image and load_generators
// reach the driver; a -var the netns driver does not read is refused.
func TestRunPlanPostOnNetns(t *testing.T) {
	file, err := filepath.Abs("../../../experiments/corehttpd-vs-cpanel.hcl")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, nil, "run", file, "--target", netns.Name, "--plan")
	if code != 0 {
		t.Fatalf("run --target netns --plan: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{
		"\nmachines netns: image \"" + netns.DefaultImage + "\", load_generators 1, ttl \"6h\", user \"root\"\n",
		"\nmachines not carried: --target netns chose the netns driver: the file's machines \"hetzner\" block's " +
			`server_type "ccx23", image "alma-9", location "fsn1" are for hetzner, not used` + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, head(out, 8))
		}
	}
	code, out, errOut = runCLI(t, nil, "run", file, "--target", netns.Name, "--plan", "-var", "load_generators=2", "-var", "image=debian-12")
	if code != 0 || !strings.Contains(out, "\nmachines netns: image \"debian-12\", load_generators 2,") {
		t.Errorf("-var image, load_generators: exit %d\n%s%s", code, head(out, 8), errOut)
	}
	code, _, errOut = runCLI(t, nil, "run", file, "--target", netns.Name, "--plan", "-var", "server_type=ccx33")
	if code != 2 || !strings.Contains(errOut, "-var server_type: the netns driver does not read it") {
		t.Errorf("-var server_type on netns: exit %d, want 2 saying so:\n%s", code, errOut)
	}
	// The driver's own plan (which needs root and its programs) takes what
	// the post's script resolves to.
	t.Run("driver", func(t *testing.T) {
		testenv.NeedRoot(t)
		for _, b := range []string{"ip", "nsenter", "chroot", "mount", "mknod", "debootstrap", "apt-cacher-ng"} {
			testenv.NeedBinary(t, b)
		}
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := experiment.Load(file, src, experiment.LoadOptions{Target: netns.Name, Vars: []string{"load_generators=2", "image=debian-13"}})
		if err != nil {
			t.Fatal(err)
		}
		d, err := cloud.Lookup(sp.Machines.Driver)
		if err != nil {
			t.Fatal(err)
		}
		c, err := d.Open(cloud.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.Plan(context.Background(), cloud.Spec{Machines: sp.Machines, Run: cloud.Run{ID: "post", Dir: t.TempDir()}})
		if err != nil {
			t.Fatalf("netns plan of the post's file: %v", err)
		}
		if len(p.Machines) != 3 || p.Machines[0].Image != testenv.BarePlatform("trixie") {
			t.Errorf("planned %+v, want a server and two load generators on Debian 13", p.Machines)
		}
	})
}

// head is s's first n lines, for messages.
func head(s string, n int) string {
	l := strings.SplitN(s, "\n", n+1)
	if len(l) > n {
		l = l[:n]
	}
	return strings.Join(l, "\n")
}
