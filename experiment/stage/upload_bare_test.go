package stage

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
)

// The upload puts the bytes that were hashed when the value was read, not
// what the file on this machine holds by the time of the upload; the same
// bytes again are left alone. Before that, root refuses to write through
// an uploads directory that is a planted link or through a directory
// another user owns, and writes nothing where they lead.
func TestUploadPutsCheckedBytes(t *testing.T) {
	bh := testenv.BareHosts(t, "up")[0]
	ctx := context.Background()
	tg, err := host.ParseTarget(bh.Target)
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Open(ctx, tg, host.Options{Name: bh.Name, KnownHostsFile: bh.KnownHosts, IdentityFile: bh.Identity})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	sh := func(script string) string {
		t.Helper()
		res, err := h.Run(ctx, host.Cmd{Script: script})
		if err != nil {
			t.Fatalf("on the host: %s: %v", script, err)
		}
		return strings.TrimSpace(string(res.Stdout))
	}
	local := filepath.Join(t.TempDir(), "mod_ruid2.c")
	if err := os.WriteFile(local, []byte("checked bytes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := ReadLocalFile("ruid2_source_url", "local+file://"+local)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	st := &State{Host: h, Log: &log}
	up := Upload{Files: []LocalFile{f}}

	sh("useradd -m mallory && install -d -m 0755 /var/lib/wptest && install -d -o mallory /home/mallory/elsewhere")
	for _, plant := range []struct{ name, setup, undo string }{
		{"uploads a link", "ln -s /home/mallory/elsewhere " + UploadDir, "rm " + UploadDir},
		{"wptest another user's", "chown mallory /var/lib/wptest", "chown root /var/lib/wptest"},
		{"wptest writable by others", "chmod 0777 /var/lib/wptest", "chmod 0755 /var/lib/wptest"},
	} {
		sh(plant.setup)
		if err := up.Run(ctx, st); err == nil {
			t.Errorf("%s: upload accepted", plant.name)
		} else if !strings.Contains(err.Error(), "refusing") {
			t.Errorf("%s: error does not say it refused: %v", plant.name, err)
		}
		if got := sh("ls -A /home/mallory/elsewhere; find /var/lib/wptest -mindepth 1 -maxdepth 1 -type f"); got != "" {
			t.Errorf("%s: something was written: %s", plant.name, got)
		}
		sh(plant.undo)
	}

	// This machine's file changes after it was read: the checked bytes go.
	if err := os.WriteFile(local, []byte("other bytes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := up.Run(ctx, st); err != nil {
		t.Fatalf("upload: %v\n%s", err, log.String())
	}
	if got := sh("cat " + f.Remote()); got != "checked bytes" {
		t.Errorf("uploaded %q, want the bytes read when the value was", got)
	}
	if got := sh("sha256sum " + f.Remote() + " | cut -c1-64"); got != f.SHA256 {
		t.Errorf("sha256 on the host %s, want %s", got, f.SHA256)
	}
	if got := sh("stat -c '%U %a' " + UploadDir + " " + f.Remote() + " | tr '\\n' ' '"); got != "root 700 root 600" {
		t.Errorf("owner and mode of the directory and the file: %s", got)
	}
	if !strings.Contains(log.String(), "put "+f.Remote()) {
		t.Errorf("log lacks the put:\n%s", log.String())
	}
	log.Reset()
	if err := up.Run(ctx, st); err != nil || !strings.Contains(log.String(), "up to date") {
		t.Errorf("second upload: %v\n%s", err, log.String())
	}
}
