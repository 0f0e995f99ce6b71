package host

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/wptest/wptest/internal/testenv"
)

// A script whose bytes stop short of its header's length (the connection
// died while it was sent) never runs, not even its first lines; a bad
// header is refused the same way. What the remote argv holds is the
// fixed boot script and the tag, never the script.
func TestRemoteBootRunsOnlyWholeScripts(t *testing.T) {
	testenv.NeedRoot(t)
	s := testenv.SSHD(t)
	tg, err := ParseTarget(s.Target)
	if err != nil {
		t.Fatal(err)
	}
	h, err := DialSSH(context.Background(), tg, Options{KnownHostsFile: s.KnownHostsFile, IdentityFile: s.IdentityFile, ConnectTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	mark := filepath.Join(t.TempDir(), "ran")
	script := "touch " + Quote(mark) + "\necho never\n"
	if got := remoteScript(time.Minute, "wptest-run-x"); strings.Contains(got, "touch") || !strings.HasSuffix(got, " wptest-run-x") {
		t.Fatalf("remote argv %q", got)
	}
	for name, stdin := range map[string]string{
		"cut short":  strconv.Itoa(len(script)+10) + "\n" + script,
		"no header":  script,
		"bad header": "12x\n" + script,
		"nothing":    "",
	} {
		sess, err := h.Client().NewSession()
		if err != nil {
			t.Fatal(err)
		}
		w, err := sess.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		var buf strings.Builder
		sess.Stdout, sess.Stderr = &buf, &buf
		if err := sess.Start(remoteScript(time.Minute, "wptest-run-x")); err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, stdin)
		w.Close()
		err = sess.Wait()
		sess.Close()
		var ee *ssh.ExitError
		if !errors.As(err, &ee) || ee.ExitStatus() != 126 {
			t.Errorf("%s: %v, want exit 126\n%s", name, err, buf.String())
		}
		if _, err := os.Stat(mark); err == nil {
			t.Fatalf("%s: the script ran", name)
		}
	}
}
