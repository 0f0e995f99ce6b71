package cli

// The file's name sorts it before the package's tests that take long:
// these take this machine's server (testenv.LockLocalServer) in the first
// seconds, before experiment's TestQuickLocalKillResume holds it for
// minutes (go test runs the two packages side by side).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/provision/hostmanifest"
	"github.com/wptest/wptest/results"
)

// localRun is `wptest run` in this process against --target local, with
// the real wptest binary as the agent.
type localRun struct {
	code           int
	stderr, logTxt string
	runDir         string
}

func needLocalRunStack(t *testing.T) {
	testenv.Integration(t)
	testenv.NeedRoot(t)
	for _, b := range []string{"apache2ctl", "php-fpm8.2", "php-cgi8.2", "caddy", "mariadb", "php", "go"} {
		testenv.NeedBinary(t, b)
	}
	_, err := os.Stat("/usr/share/wordpress/wp-includes/version.php")
	testenv.Need(t, err == nil, "Debian's wordpress package")
	testenv.LockLocalServer(t)
}

// buildAgent is the real wptest (built once for the package's tests).
func buildAgent(t *testing.T) string {
	t.Helper()
	return testenv.WptestBinary(t)
}

func runLocal(t *testing.T, agent, file string, extra ...string) localRun {
	t.Helper()
	wd := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	args := append([]string{"run", file, "--target", "local", "--agent", agent}, extra...)
	var out, errb bytes.Buffer
	// The host's commands run in this process's working directory (the
	// package's): nothing they start may leave a file there (caddy
	// validated as root made its PKI in ./caddy).
	before := dirNames(t, ".")
	code := Run(ctx, &App{Args: args, Stdout: &out, Stderr: &errb, WorkDir: wd, Env: []string{"USER=tester"}})
	for _, n := range dirNames(t, ".") {
		if !slices.Contains(before, n) {
			t.Errorf("the run on --target local left %s in the directory it was started from", n)
		}
	}
	r := localRun{code: code, stderr: errb.String()}
	if ds, _ := filepath.Glob(filepath.Join(wd, "runs", "*")); len(ds) == 1 {
		r.runDir = ds[0]
		b, _ := os.ReadFile(filepath.Join(ds[0], results.LogFile))
		r.logTxt = string(b)
	}
	return r
}

// dirNames are the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// smallRun is a run of one profile and one scenario: quick, for what
// needs a run but not the main job's; on ports 8080/8443 unless given.
const smallRun = `
experiment "small" {
  repetitions = 1
  warmup      = "0s"
  http_port   = %d
  https_port  = %d
}
machines "local" {}
fixture "minimal" { seed = 1 }
profile "caddy" {}
scenario "static" {
  kind     = "static"
  path     = "/wptest-probe.js"
  visitors = [5]
  duration = "500ms"
  warmup   = "100ms"
}
`

func smallFile(t *testing.T, httpPort, httpsPort int) string {
	p := filepath.Join(t.TempDir(), "small.hcl")
	if err := os.WriteFile(p, []byte(fmt.Sprintf(smallRun, httpPort, httpsPort)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// --verbose brings the whole stream back on stderr: host commands and
// their output, and each point's lines once (as it starts, and as it ends
// with its figure).
func TestRunVerboseRestoresTheStream(t *testing.T) {
	needLocalRunStack(t)
	r := runLocal(t, buildAgent(t), smallFile(t, 8080, 8443), "--verbose")
	if r.code != 0 {
		t.Fatalf("run: code %d\n%s", r.code, host.Tail([]byte(r.stderr), 40))
	}
	for _, w := range []string{"[local] $ facts", "[local] facts: WPTEST_ARCH=", "[local] $ host manifest", "preflight on local"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("--verbose stderr lacks %q", w)
		}
	}
	// The point's line as it starts (the log's: a terminal shows it live)
	// and as it ends with its figure, each once.
	if n := strings.Count(r.stderr, "[1/1] rep 1/1 · caddy · static c=5 (0 done)"); n != 1 {
		t.Errorf("--verbose: the point's starting line %d times, want once", n)
	}
	if n := strings.Count(r.stderr, "[1/1] rep 1/1 · caddy · static c=5: "); n != 1 {
		t.Errorf("--verbose: the point's line with its figure %d times, want once", n)
	}
	if !strings.Contains(r.logTxt, "[local] $ facts") {
		t.Error("--verbose: log.txt lacks the host commands")
	}
}

// A step that fails still shows, on stderr, the host, the step and what
// its command printed, and where the whole log is: here Caddy's port is
// taken by a listener that answers nothing, so Caddy cannot start.
func TestRunFailedStepOnStderr(t *testing.T) {
	needLocalRunStack(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	go func() {
		for {
			c, err := taken.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	httpsPort := free.Addr().(*net.TCPAddr).Port
	free.Close()
	agent := buildAgent(t)
	// The server as the failed run will find it: caddy on 8080/8443,
	// applied and finished (whatever ran on this machine before), so what
	// the failed apply writes differs from its drift record.
	up := func() (int, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // the lock is held meanwhile
		defer cancel()
		var out, errb bytes.Buffer
		args := []string{"up", "--target", "local", "--profile", "caddy", "--agent", agent, "-var", "http_port=8080", "-var", "https_port=8443"}
		code := Run(ctx, &App{Args: args, Stdout: &out, Stderr: &errb, WorkDir: t.TempDir(), Env: []string{"USER=tester"}})
		return code, out.String() + errb.String()
	}
	// The failed apply wrote Caddy's config before the start failed: the
	// next run on this machine (another package's test) would find it
	// changed since the last apply and refuse. Put back what the last
	// successful run applied (caddy on 8080/8443), while the lock is held.
	marked := false // the failed run left its mark (checked below)
	t.Cleanup(func() {
		code, out := up()
		if code != 0 {
			t.Errorf("up caddy after the failed run: code %d\n%s", code, out)
		} else if marked && !strings.Contains(out, "finished by this apply (profile caddy): the last apply (profile caddy") {
			t.Errorf("up after the failed apply does not say it finished it:\n%s", out)
		}
		var sout, serr bytes.Buffer
		if code := Run(context.Background(), &App{Args: []string{"status", "--target", "local"}, Stdout: &sout, Stderr: &serr, WorkDir: t.TempDir(), Env: []string{"USER=tester"}}); code != 0 || strings.Contains(sout.String(), "did not finish") {
			t.Errorf("status after up: code %d; the finished apply's mark is still there:\n%s", code, sout.String())
		}
	})
	file := smallFile(t, taken.Addr().(*net.TCPAddr).Port, httpsPort)
	if code, out := up(); code != 0 {
		t.Fatalf("up caddy before the run: code %d\n%s", code, out)
	}
	r := runLocal(t, agent, file)
	if r.code != 4 {
		t.Fatalf("run: code %d, want 4 (provisioning)\n%s", r.code, r.stderr)
	}
	t.Logf("stderr:\n%s", r.stderr)
	// The command's own output follows the step, and says why: the
	// service wrapper waits until Caddy serves or has died, and then
	// prints the end of Caddy's log.
	if !strings.Contains(r.stderr, "bind: address already in use") {
		t.Errorf("stderr lacks the failed command's output, Caddy's own reason")
	}
	for _, w := range []string{"[local] service.caddy", "exit status", "the whole log: " + filepath.Join("runs", filepath.Base(r.runDir), results.LogFile), "--resume"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q", w)
		}
	}
	if !strings.Contains(r.logTxt, "[local] $ service.caddy") {
		t.Errorf("log.txt lacks the failed step's command")
	}
	// The failed apply left its mark, with what it runs as this host runs
	// it (the next apply retires that); status says the last apply did not
	// finish, and the next run refuses the part-applied server as that,
	// not as a server changed by hand (what differs is the apply's own
	// Caddy config).
	var mark hostmanifest.Unfinished
	if b, err := os.ReadFile(hostmanifest.UnfinishedPath); err != nil || json.Unmarshal(b, &mark) != nil || mark.Profile != "caddy" ||
		len(mark.Services) == 0 || mark.Services[0].Stop == "" || mark.Services[0].Status == "" {
		t.Errorf("the failed apply's mark: %+v (%v), want profile caddy with its services' stop and status", mark, err)
	} else {
		marked = true
	}
	var out, errb bytes.Buffer
	if code := Run(context.Background(), &App{Args: []string{"status", "--target", "local"}, Stdout: &out, Stderr: &errb, WorkDir: t.TempDir(), Env: []string{"USER=tester"}}); code != 0 ||
		!strings.Contains(out.String(), "apply:    the last apply (profile caddy") || !strings.Contains(out.String(), "did not finish") {
		t.Errorf("status after the failed apply: code %d, want it to say the apply did not finish:\n%s%s", code, out.String(), errb.String())
	}
	again := runLocal(t, agent, file)
	if again.code != 4 || !strings.Contains(again.stderr, "the last apply (profile caddy") || !strings.Contains(again.stderr, "did not finish") ||
		!strings.Contains(again.stderr, "apply profile caddy there with wptest up") || strings.Contains(again.stderr, "changed by hand") {
		t.Errorf("run after the failed apply: code %d, want 4 and the server said part-applied, not changed by hand:\n%s", again.code, again.stderr)
	}
	if strings.Contains(again.logTxt, "[local] $ service.caddy") {
		t.Errorf("the refused run applied anyway:\n%s", again.logTxt)
	}
}
