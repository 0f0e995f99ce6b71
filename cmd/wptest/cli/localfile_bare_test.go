package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/internal/testenv"
)

// `up` with a local file on a fresh Debian host: the file arrives in
// root's uploads directory, the profile reads it there as a download and
// checks its SHA-256; an upload tampered with on the host is refused by
// that check (exit 4, nothing installed), and the next `up` puts the
// checked bytes back.
func TestBareHostUpLocalFile(t *testing.T) {
	bh := testenv.BareHosts(t, "web")[0]
	_, conn, sh := bareHost(t, bh)
	profile, err := filepath.Abs("../../../experiment/stage/testdata/localfile")
	if err != nil {
		t.Fatal(err)
	}
	agent := filepath.Join(t.TempDir(), "agent")
	os.WriteFile(agent, []byte("#!/bin/sh\n"), 0o755)
	src, sum := localSource(t, "the package's bytes\n")
	remote := "/var/lib/wptest/uploads/" + sum + "-mod_ruid2.c"
	up := append([]string{"up", "--profile-dir", profile, "--agent", agent,
		"-var", "src=local+file://" + src, "-var", "src_sha256=" + sum}, conn...)

	code, out, errOut := runCLIArgs(up...)
	if code != 0 {
		t.Fatalf("up: exit %d\n%s%s", code, out, errOut)
	}
	for _, w := range []string{"upload src: " + src + " (sha256 " + sum + ", 20 bytes) -> " + remote, "put " + remote} {
		if !strings.Contains(errOut, w) {
			t.Errorf("up: stderr lacks %q:\n%s", w, errOut)
		}
	}
	if got := sh("cat /root/installed"); got != "the package's bytes" {
		t.Errorf("installed %q", got)
	}
	if got := sh("sha256sum " + remote + " | cut -c1-64"); got != sum {
		t.Errorf("upload's sha256 on the host %s, want %s", got, sum)
	}

	// Tampered with on the host, between the upload and the profile's read.
	sh("echo tampered >>" + remote + " && rm /root/installed /root/installed.sha256")
	code, out, errOut = runCLIArgs(append([]string{"apply", "--profile-dir", profile,
		"-var", "src=file://" + remote, "-var", "src_sha256=" + sum}, conn...)...)
	if code != exitcode.Provision {
		t.Errorf("apply of a tampered upload: exit %d, want %d\n%s%s", code, exitcode.Provision, out, errOut)
	}
	if !strings.Contains(out+errOut, "want "+sum) {
		t.Errorf("apply of a tampered upload: no hash mismatch named:\n%s%s", out, errOut)
	}
	if got := sh("ls /root/installed /root/installed.sha256 2>/dev/null || true"); got != "" {
		t.Errorf("a tampered upload was installed: %s", got)
	}

	code, out, errOut = runCLIArgs(up...)
	if code != 0 || !strings.Contains(errOut, "put "+remote) {
		t.Fatalf("up after the tamper: exit %d (want 0, the upload put again)\n%s%s", code, out, errOut)
	}
	if got := sh("cat /root/installed"); got != "the package's bytes" {
		t.Errorf("installed after the second up: %q", got)
	}
}
