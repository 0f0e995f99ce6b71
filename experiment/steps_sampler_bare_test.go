package experiment

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/multistep"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/hostmanifest"
	"github.com/wptest/wptest/results"
)

// srvstatPIDs lists the srvstat agents running on h (its own PID
// namespace: a bare host's processes only).
const srvstatPIDs = `for p in /proc/[0-9]*; do tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -q '^` + AgentPath + ` srvstat ' && echo "${p#/proc/}"; done; true`

// A column group's sampler step starts srvstat on the server, and its
// cleanup stops it there when a later step of the group fails: the agent
// process is gone from the bare host, the sampler's reader has ended, and
// the error names the failed step.
func TestSamplerStepStoppedWhenALaterStepFails(t *testing.T) {
	exe := buildExe(t)
	hs := testenv.BareHosts(t, "server")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	srv := openBare(t, hs[0])
	if _, err := stage.InstallAgent(ctx, srv, exe); err != nil {
		t.Fatal(err)
	}
	err := hostmanifest.Write(ctx, srv, &hostmanifest.Manifest{Schema: hostmanifest.Schema, Profile: "sampler-test",
		Groups: []provision.ProcessGroup{{Name: "burn", Exe: []string{"yes"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var log testenv.SyncBuffer
	r := &runner{sp: &Spec{}, opt: Options{Exe: exe, Log: &log}, dir: t.TempDir(),
		man: &results.Manifest{Format: results.ManifestFormat, Sessions: []results.Session{{}}}, srv: &server{h: srv}}
	g := &colGroup{r: r, ps: results.Column{ID: "c"}}
	var sampler groupStep
	for _, s := range groupSteps(r.sp) {
		if s.(interface{ Name() string }).Name() == "sampler" {
			sampler = s
		}
	}
	if sampler == nil {
		t.Fatal("the group has no sampler step")
	}
	running := ""
	boom := errors.New("the load generator went away")
	err = runGroup(ctx, g, []groupStep{sampler, multistep.Func[*colGroup]{Name: "load", Do: func(ctx context.Context, _ *colGroup) error {
		running = pids(ctx, t, srv)
		return boom
	}}.Step()})
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "load: ") {
		t.Fatalf("steps: %v, want the load step's error, named", err)
	}
	if running == "" {
		t.Fatalf("no srvstat agent ran on the server while the load step did\nlog:\n%s", log.String())
	}
	select {
	case <-g.smp.done:
	default:
		t.Errorf("the sampler's reader still runs after the steps returned")
	}
	// The agent ends once its SSH session is closed: an event on the
	// server, waited for.
	testenv.WaitFor(t, time.Minute, "the srvstat agent on the server to end", func() bool { return pids(ctx, t, srv) == "" })
	if !strings.Contains(log.String(), "==> cleanup: sampler") {
		t.Errorf("the log does not show the sampler's cleanup:\n%s", log.String())
	}
}

func pids(ctx context.Context, t *testing.T, h host.Host) string {
	t.Helper()
	res, err := h.Run(ctx, host.Cmd{Script: srvstatPIDs, Label: "srvstat processes"})
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(res.Stdout))
}
