package benchgen

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A soft open-file limit below what the run needs is raised to the hard
// limit before any visitor dials.
func TestSoftFileLimitRaisedToHard(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	const visitors = 300
	if lim.Max < uint64(openFiles()+2*visitors+fileReserve) {
		t.Fatalf("hard open-file limit %d: too low for this test's %d connections (both ends in this process)", lim.Max, visitors)
	}
	low := syscall.Rlimit{Cur: 100, Max: lim.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim) })
	s := startFaultServer(t)
	r, err := Run(context.Background(), Config{URL: s.url("/ok"), Visitors: visitors, Requests: visitors, KeepAlive: true, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, r)
	var now syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &now); err != nil {
		t.Fatal(err)
	}
	if now.Cur != lim.Max || r.Outcomes.OK != visitors {
		t.Fatalf("soft limit %d after the run (hard %d); %d of %d answered: %+v %v", now.Cur, lim.Max, r.Outcomes.OK, visitors, r.Outcomes, r.Errors)
	}
}

// A hard limit below the connections asked for: where the process may
// raise it (root with CAP_SYS_RESOURCE) it does and the run runs; elsewhere
// (this machine's containers) the run does not start, and the error says
// how many files are needed and what the limit is. The run is a child
// process started under `ulimit -n`, since a lowered hard limit cannot be
// raised again without the capability.
func TestFileLimitBelowConnectionsIsAClearError(t *testing.T) {
	s := startFaultServer(t)
	const limit, visitors = 150, 300
	cmd := exec.Command("/bin/sh", "-c", `ulimit -n `+strconv.Itoa(limit)+` && exec "$0" -test.run='^$'`, os.Args[0])
	cmd.Env = append(os.Environ(), "BENCHGEN_FILES_CHILD="+s.url("/ok"), "BENCHGEN_FILES_N="+strconv.Itoa(visitors))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	var c filesChild
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatalf("child: %v\n%s\n%s", err, out, stderr.String())
	}
	if c.HardBefore != limit {
		t.Fatalf("the child's hard limit was %d, want %d (ulimit -n)", c.HardBefore, limit)
	}
	if canRaiseHardLimit() {
		if c.Err != "" || c.OK != visitors || c.HardAfter < visitors {
			t.Fatalf("with CAP_SYS_RESOURCE the hard limit is raised and the run runs: error %q, %d ok, hard limit %d", c.Err, c.OK, c.HardAfter)
		}
		return
	}
	for _, want := range []string{fmt.Sprintf("%d connections need ", visitors), fmt.Sprintf("may open only %d ", limit), "ulimit -Hn", "fewer connections"} {
		if !strings.Contains(c.Err, want) {
			t.Fatalf("error %q does not say %q", c.Err, want)
		}
	}
	if c.Attempts != 0 {
		t.Fatalf("a run refused for its file limit still made %d attempts", c.Attempts)
	}
	t.Logf("%s", c.Err)
}

// canRaiseHardLimit: the effective capabilities include CAP_SYS_RESOURCE.
func canRaiseHardLimit() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && caps&(1<<24) != 0 // CAP_SYS_RESOURCE
		}
	}
	return false
}

type filesChild struct {
	HardBefore, HardAfter uint64
	Err                   string
	OK, Attempts          int64
}

// filesChildRun is TestFileLimitBelowConnectionsIsAClearError's child.
func filesChildRun(u string) {
	n, _ := strconv.Atoi(os.Getenv("BENCHGEN_FILES_N"))
	var c filesChild
	var lim syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	c.HardBefore = lim.Max
	r, err := Run(context.Background(), Config{URL: u, Visitors: n, Requests: int64(n), KeepAlive: true, Timeout: 10 * time.Second})
	if err != nil {
		c.Err = err.Error()
	}
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	c.HardAfter, c.OK, c.Attempts = lim.Max, r.Outcomes.OK, r.Attempts
	json.NewEncoder(os.Stdout).Encode(c)
}
