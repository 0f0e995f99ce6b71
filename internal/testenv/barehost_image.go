package testenv

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/wptest/wptest/provision/cloud/netns/machine"
)

// BareImage is what a test's bare hosts start from instead of the bare
// rootfs (BareHostsFrom): a baked image of the netns driver
// (machine.EnsureImage), made once on this machine by Bake on a bare host
// of its own and kept in the cache beside the rootfs, named by Key. A test
// about something other than installing starts from one, so the suite
// installs each package set once instead of once per test; what installs
// it (a profile's `up` on a fresh host) is proved on bare hosts from the
// rootfs.
type BareImage struct {
	// Name says what it holds ("tuned-apache+caddy"): [a-z0-9+.-].
	Name string
	// Key is a digest of everything that goes into it: another Key, another image.
	Key string
	// Bake installs it on h, a fresh bare host of the release, telling
	// its progress to log.
	Bake func(ctx context.Context, h *BareHost, log io.Writer) error
}

// BakeImage returns the directory of img's image of suite, baking it
// first if no process has yet (others wanting it wait for that bake).
// Without a testing.TB: a TestMain can bake in the background while the
// package's first tests run.
func BakeImage(ctx context.Context, suite string, img *BareImage, log io.Writer) (string, error) {
	dir, err := os.MkdirTemp("", "wptest-bake-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	identity, authorized, err := bareIdentity(dir)
	if err != nil {
		return "", err
	}
	r := machine.Recipe{Suite: suite, Name: img.Name, Key: img.Key, Authorized: string(authorized), Log: log,
		Bake: func(ctx context.Context, m *machine.Host) error {
			hs, err := wrapHosts([]*machine.Host{m}, dir, identity)
			if err != nil {
				return err
			}
			if err := img.Bake(ctx, hs[0], log); err != nil {
				return fmt.Errorf("%w\nits log:\n%s", err, lastLines(m.Log(), 20))
			}
			return nil
		}}
	return machine.EnsureImage(ctx, r)
}
