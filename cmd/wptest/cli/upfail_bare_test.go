package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wptest/wptest/internal/testenv"
)

// TestBareHostUpLinkCut: the host's link is cut while `up` runs an op (a
// command that holds on the host; the cut comes once the host has said it
// runs). up ends with exit 4, and stdout, not only the error on stderr,
// says what was done and what was not: the op that failed, each op after
// it "not run", the checks "not run", and a last line naming the failed op
// and the ops not run, never "N changed, M unchanged" as if all had run.
func TestBareHostUpLinkCut(t *testing.T) {
	t.Parallel() // most of it is waiting for the dead link to be noticed
	bh := testenv.BareHosts(t, "web")[0]
	agent := testenv.WptestBinary(t)
	dir, err := filepath.Abs("testdata/linkcut")
	if err != nil {
		t.Fatal(err)
	}
	holding := &signalWriter{want: "command.hold: holding", seen: make(chan struct{})}
	var stdout strings.Builder
	done := make(chan int, 1)
	go func() {
		args := []string{"up", "--profile-dir", dir, "--agent", agent, "--verbose",
			"--target", bh.Target, "--known-hosts", bh.KnownHosts, "--identity", bh.Identity}
		done <- Run(context.Background(), &App{Args: args, Stdout: &stdout, Stderr: holding, WorkDir: t.TempDir(), Env: os.Environ()})
	}()
	select {
	case <-holding.seen:
	case code := <-done:
		t.Fatalf("up ended (exit %d) before the hold op ran:\n%s\n%s", code, stdout.String(), holding.String())
	}
	if err := bh.CutLink(); err != nil {
		t.Fatal(err)
	}
	var code int
	select {
	case code = <-done:
	case <-time.After(5 * time.Minute):
		t.Fatalf("up did not end within 5 minutes of the cut:\n%s", holding.String())
	}
	out := stdout.String()
	t.Logf("stdout:\n%s", out)
	if code != 4 {
		t.Fatalf("up: exit %d, want 4\n%s\n%s", code, out, holding.String())
	}
	for _, want := range []string{
		"!  3. command.hold: FAILED: ",
		"   4. file.after1: not run\n",
		"   5. file.after2: not run\n",
		"   6. command.after3: not run\n",
		"apply FAILED at op 3 (command.hold): 2 changed, 0 unchanged, 1 failed, 3 not run (ops 4-6)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout does not say %q", want)
		}
	}
	if strings.Contains(out, "0 changed, 6 unchanged") || strings.Contains(out, ", 6 unchanged") {
		t.Error("stdout counts the ops that never ran as unchanged")
	}
}

// signalWriter keeps what is written and closes seen once it holds want.
type signalWriter struct {
	mu   sync.Mutex
	b    strings.Builder
	want string
	seen chan struct{}
	once sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if strings.Contains(w.b.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
