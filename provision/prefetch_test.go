package provision

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
)

// countHost counts the commands that reach the host.
type countHost struct {
	host.Host
	mu     sync.Mutex
	labels []string
}

func (c *countHost) Run(ctx context.Context, cmd host.Cmd) (host.Result, error) {
	c.mu.Lock()
	c.labels = append(c.labels, cmd.Label)
	c.mu.Unlock()
	return c.Host.Run(ctx, cmd)
}

func (c *countHost) runs() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.labels)
	c.labels = nil
	return n
}

// aheadHead is the read-ahead tests' profile, before its ops.
const aheadHead = "profile {\n  description = \"read ahead\"\n  platforms = [\"debian-12\"]\n}\nplatform \"debian-12\" {\n  package_manager = \"apt\"\n}\n"

// dirs are n directory ops, d0 to d(n-1) in dir.
func dirs(dir string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "directory \"d%[2]d\" {\n  path = \"%[1]s/d%[2]d\"\n  mode = \"0755\"\n}\n", dir, i)
	}
	return b.String()
}

// TestChecksReadAhead: an apply's checks are read ahead in batches, and an
// op's apply drops what was read: a file a command op wrote is seen as it
// is now, not as it was before the command ran (an answer read before
// would say "create" and write it again). Twenty directories that need
// nothing are checked in a few batches (windows doubling), not twenty
// commands, and when each needs creating, read-ahead wastes at most a
// batch or two.
func TestChecksReadAhead(t *testing.T) {
	testenv.NeedRoot(t) // applies root-owned files on this host
	dir := t.TempDir()
	ctx := context.Background()
	render := func(src string) *Rendered { return renderSrc(t, aheadHead+src) }
	h := &countHost{Host: host.NewLocal(nil)}

	// file.q's window reads file.p's check before the command writes p.
	r := render(fmt.Sprintf(`
file "q" {
  path    = "%[1]s/q"
  content = "q"
  mode    = "0644"
}
command "write" {
  run = "printf two > %[1]s/p"
}
file "p" {
  path    = "%[1]s/p"
  content = "two"
  mode    = "0644"
}
`, dir))
	rep, err := r.Apply(ctx, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ops["file.p"].Applied {
		t.Errorf("file.p applied after the command wrote its content: its check answered from before the command")
	}

	const n = 20
	r = render(dirs(dir, n))
	h.runs()
	if _, err := r.Apply(ctx, h, nil); err != nil {
		t.Fatal(err)
	}
	// A check and an apply each, and a batch that a change made useless
	// now and then (the first window's).
	if got := h.runs(); got > 2*n+2 {
		t.Errorf("first apply ran %d commands for %d directories to create, want at most %d", got, n, 2*n+2)
	}
	batches := 0
	for i, w := 0, readAheadFirst; i < n; i, w = i+w, min(2*w, readAheadMax) {
		batches++
	}
	rep, err = r.Apply(ctx, h, nil)
	if err != nil || rep.Changes != 0 {
		t.Fatalf("second apply: %d changes, %v", rep.Changes, err)
	}
	if got := h.runs(); got != batches {
		t.Errorf("second apply ran %d commands for %d directories that need nothing, want %d batches", got, n, batches)
	}
	if _, err := r.Plan(ctx, h, nil); err != nil {
		t.Fatal(err)
	}
	if got := h.runs(); got != batches {
		t.Errorf("plan ran %d commands for %d checks, want %d batches", got, n, batches)
	}
}

// failBatches fails every batch of checks read ahead, as one that timed
// out would, and counts them.
type failBatches struct {
	countHost
	batches int
}

func (f *failBatches) Run(ctx context.Context, cmd host.Cmd) (host.Result, error) {
	if strings.HasPrefix(cmd.Label, "checks ahead") {
		f.batches++
		return host.Result{Exit: -1}, &host.TimeoutError{Host: f.Name(), Label: cmd.Label, Timeout: readAheadTimeout}
	}
	return f.countHost.Run(ctx, cmd)
}

// TestFailedBatchEndsReadingAhead: a batch that fails (a check hanging
// until the batch's timeout) is not tried again at the next op: the plan
// goes on one check at a time, and answers as without reading ahead.
func TestFailedBatchEndsReadingAhead(t *testing.T) {
	testenv.NeedRoot(t)
	dir := t.TempDir()
	const n = 12
	r := renderSrc(t, aheadHead+dirs(dir, n))
	h := &failBatches{countHost: countHost{Host: host.NewLocal(nil)}}
	rep, err := r.Plan(context.Background(), h, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h.batches != 1 || h.runs() != n || rep.Changes != n {
		t.Errorf("plan with a failing batch: %d batches, %d changes; want 1 batch, then the %d checks one by one", h.batches, rep.Changes, n)
	}
}
