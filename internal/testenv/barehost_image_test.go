package testenv_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/testenv"
)

// TestBareHostsFromAnImage bakes an image (a package installed through
// the apt proxy, a file written, leftovers the image must not keep) and
// makes hosts from it: each has what the bake installed and nothing of the
// baking machine's own (its host keys, root's authorized keys, its
// downloaded .deb files, its /tmp); each has host keys of its own; what one
// host changes, the next host from the image does not see; asked again,
// the image is not baked again, and another key bakes another one.
func TestBareHostsFromAnImage(t *testing.T) {
	nonce := make([]byte, 4)
	rand.Read(nonce)
	key := "test " + hex.EncodeToString(nonce) // a new image for every run of the test
	bakes := 0
	var made []string // removed after every host from them is gone
	t.Cleanup(func() {
		for _, d := range made {
			os.RemoveAll(d)
			os.Remove(d + ".lock")
		}
	})
	var bakeKey string
	img := &testenv.BareImage{Name: "hello", Key: key, Bake: func(ctx context.Context, bh *testenv.BareHost, _ io.Writer) error {
		bakes++
		h := openBare(t, bh)
		bakeKey = run(t, h, "cat /etc/ssh/ssh_host_ed25519_key.pub")
		run(t, h, `set -e
apt-get -q update >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get -q install -y --download-only hello >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get -q install -y hello >/dev/null
echo baked >/etc/wptest-baked
echo leftover >/tmp/bake-leftover`)
		return nil
	}}
	hs := testenv.BareHostsFrom(t, img, "one", "two")
	dir, err := testenv.BakeImage(context.Background(), hs[0].Suite, img, testWriter{t})
	if err != nil || bakes != 1 {
		t.Fatalf("asked again: %v, %d bakes, want the one image", err, bakes)
	}
	made = append(made, dir)
	t.Logf("image %s", dir)
	keys := map[string]bool{}
	for _, bh := range hs {
		h := openBare(t, bh)
		if got := run(t, h, "hello; cat /etc/wptest-baked; ls -A /tmp | wc -l; ls /var/cache/apt/archives | grep -c '[.]deb$'; cat /root/.ssh/authorized_keys | wc -l"); got != "Hello, world!\nbaked\n0\n0\n1" {
			t.Errorf("%s from the image: %q, want hello, the baked file, no /tmp file or .deb, one authorized key (its set's)", bh.Name, got)
		}
		k := run(t, h, "cat /etc/ssh/ssh_host_ed25519_key.pub")
		if k == bakeKey || keys[k] {
			t.Errorf("%s has the host key of the baking machine or of another host: %s", bh.Name, k)
		}
		keys[k] = true
	}
	run(t, openBare(t, hs[0]), "echo changed >/etc/wptest-baked && rm /usr/bin/hello")
	again := testenv.BareHostsFrom(t, img, "three")
	if got := run(t, openBare(t, again[0]), "hello; cat /etc/wptest-baked"); got != "Hello, world!\nbaked" || bakes != 1 {
		t.Errorf("a host made after another changed its root: %q (%d bakes), want the image as baked", got, bakes)
	}
	other := *img
	other.Key += " another"
	other.Bake = func(ctx context.Context, bh *testenv.BareHost, _ io.Writer) error { bakes++; return nil }
	odir, err := testenv.BakeImage(context.Background(), hs[0].Suite, &other, testWriter{t})
	made = append(made, odir)
	if err != nil || odir == dir || bakes != 2 {
		t.Errorf("another key: %s (%v), %d bakes; want another image, baked", odir, err, bakes)
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}
