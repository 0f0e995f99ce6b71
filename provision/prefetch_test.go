package provision

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

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

// TestChecksReadAhead: an apply's checks are read ahead in batches, and an
// op's apply drops what was read: a file a command op wrote is seen as it
// is now, not as it was before the command ran (an answer read before
// would say "create" and write it again). Twelve ops that need nothing
// are checked in two batches around the command, not twelve commands; a
// plan's in one.
func TestChecksReadAhead(t *testing.T) {
	testenv.NeedRoot(t) // applies root-owned files on this host
	dir := t.TempDir()
	var b strings.Builder
	fmt.Fprintf(&b, `
profile {
  description = "read ahead"
  platforms   = ["debian-12"]
}
platform "debian-12" {
  package_manager = "apt"
}
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
`, dir)
	for i := range 5 {
		fmt.Fprintf(&b, "directory \"d%[2]d\" {\n  path = \"%[1]s/d%[2]d\"\n  mode = \"0755\"\n}\nfile \"f%[2]d\" {\n  path = \"%[1]s/d%[2]d/f\"\n  content = \"%[2]d\"\n  mode = \"0644\"\n}\n", dir, i)
	}
	p, diags := Load(fstest.MapFS{"r/main.hcl": {Data: []byte(b.String())}}, "r", Vars{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	r, diags := p.Render("debian-12")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	h := &countHost{Host: host.NewLocal(nil)}
	ctx := context.Background()
	rep, err := r.Apply(ctx, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := h.runs()
	if got := rep.ops["file.p"].Applied; got {
		t.Errorf("file.p applied after the command wrote its content: its check answered from before the command")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "d4", "f")); string(b) != "4" {
		t.Errorf("d4/f = %q", b)
	}
	// Again: only the command changes (it has no guard): the checks from
	// file.q on are read in one batch, and those after the command again.
	rep, err = r.Apply(ctx, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	again := h.runs()
	if rep.Changes != 1 || rep.ops["file.p"].Applied {
		t.Errorf("second apply: %d changes, file.p applied %v; want the command alone", rep.Changes, rep.ops["file.p"].Applied)
	}
	if again != 3 {
		t.Errorf("second apply ran %d commands for 13 ops (first: %d); want a batch, the command, a batch", again, first)
	}
	// A plan reads every check in one batch.
	if _, err := r.Plan(ctx, h, nil); err != nil {
		t.Fatal(err)
	}
	if n := h.runs(); n != 1 {
		t.Errorf("plan ran %d commands for 12 checks, want 1 batch", n)
	}
}
