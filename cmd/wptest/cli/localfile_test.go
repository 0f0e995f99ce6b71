package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wptest/wptest/internal/exitcode"
)

func quickFile(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../../../experiments/quick.hcl")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func localSource(t *testing.T, body string) (path, sum string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "mod_ruid2.c")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256([]byte(body))
	return path, hex.EncodeToString(s[:])
}

// A local file's plan says where it is here, its hash and size, and where
// it goes on the host; the profile's command reads it there. In an
// experiment's plan the same, and the plan's hash follows the file's bytes.
func TestPlanShowsLocalFile(t *testing.T) {
	src, sum := localSource(t, "/* mod_ruid2 */\n")
	remote := "/var/lib/wptest/uploads/" + sum + "-mod_ruid2.c"
	line := fmt.Sprintf("upload ruid2_source_url: %s (sha256 %s, 16 bytes) -> %s\n", src, sum, remote)
	code, out, errOut := runCLI(t, nil, "plan", "--profile", "cpanel-apache", "--platform", "debian-12",
		"-var", "ruid2_source_url=local+file://"+src, "-var", "ruid2_source_sha256="+sum)
	if code != 0 {
		t.Fatalf("plan: exit %d\n%s", code, errOut)
	}
	if !strings.HasPrefix(out, line) {
		t.Errorf("plan does not start with %q:\n%.400s", line, out)
	}
	if !strings.Contains(out, "\n       | url=file://"+remote+"\n") { // a line of the script
		t.Errorf("the profile's command does not read %s:\n%s", remote, out)
	}

	hashes := map[string]bool{}
	for _, body := range []string{"/* mod_ruid2 */\n", "/* other bytes */\n"} {
		if err := os.WriteFile(src, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut = runCLI(t, nil, "run", quickFile(t), "--plan", "-var", "ruid2_source_url=local+file://"+src)
		if code != 0 {
			t.Fatalf("run --plan: exit %d\n%s", code, errOut)
		}
		s := sha256.Sum256([]byte(body))
		want := fmt.Sprintf("upload ruid2_source_url: %s (sha256 %x, %d bytes) -> /var/lib/wptest/uploads/%x-mod_ruid2.c\n", src, s, len(body), s)
		if !strings.Contains(out, want) {
			t.Errorf("run --plan lacks %q:\n%s", want, out)
		}
		hashes[regexp.MustCompile(`plan_sha256 \S+`).FindString(out)] = true
	}
	if len(hashes) != 2 {
		t.Errorf("the plan's hash is the same for two files: %v", hashes)
	}
}

// A local file that is not there (or not a file) stops plan, up and run
// before anything is touched: exit 2, naming the variable and the path
// (and, in an experiment, where the file sets it).
func TestLocalFileMissingExits2(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no such", "mod_ruid2.c")
	for _, args := range [][]string{
		{"plan", "--profile", "cpanel-apache", "--platform", "debian-12", "-var", "ruid2_source_url=local+file://" + missing},
		{"up", "--profile", "cpanel-apache", "--target", "ssh://root@192.0.2.1:22", "--known-hosts", "/nonexistent", "-var", "ruid2_source_url=local+file://" + missing},
		{"run", quickFile(t), "--plan", "-var", "ruid2_source_url=local+file://" + missing},
		{"run", quickFile(t), "--target", "local", "-var", "ruid2_source_url=local+file://" + filepath.Dir(filepath.Dir(missing))},
	} {
		code, out, errOut := runCLI(t, nil, args...)
		if code != exitcode.Config {
			t.Errorf("%s: exit %d, want %d\n%s%s", args[0], code, exitcode.Config, out, errOut)
		}
		want := []string{"ruid2_source_url", filepath.Dir(filepath.Dir(missing))}
		if args[0] == "run" {
			want = append(want, fmt.Sprintf("quick.hcl:%d:", quickLine(t, "  vars = {")))
		}
		for _, w := range want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", strings.Join(args, " "), w, errOut)
			}
		}
	}
}

// quickLine is the number of quick.hcl's first line that starts with
// prefix: where an error about it points.
func quickLine(t *testing.T, prefix string) int {
	t.Helper()
	b, err := os.ReadFile(quickFile(t))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, prefix) {
			return i + 1
		}
	}
	t.Fatalf("no line of quick.hcl starts with %q", prefix)
	return 0
}
