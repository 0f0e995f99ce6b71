// Package baked gives tests bare hosts made from a baked image of shipped
// profiles (testenv.BareImage): each profile's package ops and bake
// commands (provision.Rendered.Bake) applied once on this machine, so a
// test about seeding, swapping, measuring or the site user's links starts
// where `up` would install nothing and goes on from there. What `up`
// installs is still proved on hosts from the bare rootfs (the tests that
// use testenv.BareHosts with `up`: cmd/wptest/cli TestBareHostUpSeedSwap
// for every shipped web server profile).
//
// It is a package of its own, not testenv's: it loads profiles (provision),
// and provision's own tests import testenv.
package baked

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/profiles"
	"github.com/wptest/wptest/provision"
)

// Ruid2Remote is where the image's bake (and a test's `up`) finds
// mod_ruid2.c on the host: there is no internet there, so the pinned copy
// beside the checkout is put there (-var ruid2_source_url=file://...).
const Ruid2Remote = "/root/mod_ruid2.c"

// Servers are the shipped web server profiles the bare-host tests run
// (every one but corehttpd, whose package is not public): the one image
// most of them start from.
var Servers = []string{"tuned-apache", "cpanel-apache", "caddy", "nginx"}

// Image is the image of the given shipped profiles on the bare hosts'
// release: their bake ops in the order given, cpanel-apache's mod_ruid2
// built from the pinned source. Its key is every profile's BakeKey (package
// names and build commands, as rendered for the platform) and that
// source's SHA-256: a changed profile bakes a new image.
func Image(t testing.TB, names ...string) *testenv.BareImage {
	t.Helper()
	img, err := image(testenv.BarePlatform(testenv.BareSuite(t)), testenv.Ruid2Source(t), names)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// Hosts are bare hosts made from the image of the given profiles.
func Hosts(t testing.TB, names []string, hosts ...string) []*testenv.BareHost {
	t.Helper()
	return testenv.BareHostsFrom(t, Image(t, names...), hosts...)
}

// Warm bakes the image of names in the background (a TestMain calls it
// before m.Run, after flag parsing), so the package's tests that need no
// image run meanwhile; a test that needs it waits on the bake's lock.
// Errors are left for that test to see (it bakes again). Not under -short
// or -run (a few tests chosen: only those that need it bake it).
func Warm(names ...string) {
	suite := os.Getenv(testenv.BareSuiteEnv)
	if suite == "" {
		suite = "bookworm"
	}
	if os.Geteuid() != 0 || testenv.BarePlatform(suite) == "" || testing.Short() {
		return
	}
	if f := flag.Lookup("test.run"); f == nil || f.Value.String() != "" {
		return
	}
	src, err := testenv.FindRuid2Source()
	if err != nil {
		return
	}
	img, err := image(testenv.BarePlatform(suite), src, names)
	if err != nil {
		return
	}
	go testenv.BakeImage(context.Background(), suite, img, io.Discard)
}

func image(platform, ruid2 string, names []string) (*testenv.BareImage, error) {
	src, err := os.ReadFile(ruid2)
	if err != nil {
		return nil, err
	}
	srcSum := sha256.Sum256(src)
	key := sha256.New()
	fmt.Fprintf(key, "%s\nmod_ruid2.c %x\n", platform, srcSum)
	var rs []*provision.Rendered
	for _, n := range names {
		r, err := render(n, platform)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(key, "%s %s\n", n, r.BakeKey())
		rs = append(rs, r)
	}
	bake := func(ctx context.Context, bh *testenv.BareHost, log io.Writer) error {
		h, err := Open(ctx, bh)
		if err != nil {
			return err
		}
		defer h.Close()
		if err := h.Put(ctx, Ruid2Remote, strings.NewReader(string(src)), host.PutOptions{Mode: 0o644}); err != nil {
			return err
		}
		for _, r := range rs {
			start := time.Now()
			progress := func(e provision.Event) { fmt.Fprintf(log, "bake %s: %s: %s\n", r.Profile.Name, e.Op, e.Msg) }
			if err := r.Bake(ctx, h, progress); err != nil {
				return err
			}
			fmt.Fprintf(log, "bake %s: done in %s\n", r.Profile.Name, time.Since(start).Round(100*time.Millisecond))
		}
		_, err = h.Run(ctx, host.Cmd{Script: "rm -f " + Ruid2Remote + " && apt-get clean", Timeout: time.Minute})
		return err
	}
	return &testenv.BareImage{Name: strings.Join(names, "+"), Key: hex.EncodeToString(key.Sum(nil)), Bake: bake}, nil
}

// Open connects to bh as root over SSH, its host key pinned (an image's
// Bake, a test's own commands). Here, not in testenv: host's own tests
// import testenv.
func Open(ctx context.Context, bh *testenv.BareHost) (host.Host, error) {
	tg, err := host.ParseTarget(bh.Target)
	if err != nil {
		return nil, err
	}
	return host.Open(ctx, tg, host.Options{Name: bh.Name, KnownHostsFile: bh.KnownHosts, IdentityFile: bh.Identity})
}

// render loads a shipped profile as a test's `up` does (mod_ruid2 from
// the copy on the host) and renders it for platform.
func render(name, platform string) (*provision.Rendered, error) {
	dir := path.Clean(name)
	p, diags := provision.Load(profiles.FS, dir, provision.Vars{})
	if diags.HasErrors() {
		return nil, fmt.Errorf("profile %s: %s", name, diags.Error())
	}
	if slices.ContainsFunc(p.Variables, func(v *provision.Variable) bool { return v.Name == "ruid2_source_url" }) {
		p, diags = provision.Load(profiles.FS, dir, provision.Vars{Args: []string{"ruid2_source_url=file://" + Ruid2Remote}})
		if diags.HasErrors() {
			return nil, fmt.Errorf("profile %s: %s", name, diags.Error())
		}
	}
	r, diags := p.Render(platform)
	if diags.HasErrors() {
		return nil, fmt.Errorf("profile %s on %s: %s", name, platform, diags.Error())
	}
	return r, nil
}
