package experiment

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/testenv"
	"github.com/wptest/wptest/results"
)

// A crowd split between two load generators, each a real `wptest
// bench-job` process (started through host.Local, its job on stdin, its
// holds on stderr answered on stdin, as over SSH), against a real HTTP
// server: the joined window has the whole crowd on the site for the whole
// joint probe window. The first generator's last newcomer is one slot
// before the second's, so without the rendezvous its crowd stops first.
// Only the order is checked: the rendezvous makes it so whatever the
// machine's load.
func TestSplitCrowdStaysUntilEveryGeneratorProbed(t *testing.T) {
	exe := buildExe(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) }))
	defer srv.Close()
	var log testenv.SyncBuffer
	r := &runner{opt: Options{Log: &log}, man: &results.Manifest{}}
	g := &loadGroup{r: r}
	for _, name := range []string{"lg1", "lg2"} {
		g.gens = append(g.gens, &remoteLoad{h: host.NewLocal(nil), name: name, exe: exe, log: &log})
	}
	j, err := benchgen.NewCrowdJob(benchgen.CrowdConfig{Base: benchgen.Config{Name: "c=7", URL: srv.URL + "/"}, Visitors: 7,
		ClickEvery: 200 * time.Millisecond, ProbeEvery: 100 * time.Millisecond, GiveUp: 5 * time.Second,
		Warmup: 200 * time.Millisecond, Duration: 600 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, gens, split, err := g.do(ctx, j)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if split != "7 visitors over 2 load generators: 4 + 3" || len(gens) != 2 || res.Crowd == nil || len(res.Crowd.Probes) != 6 {
		t.Fatalf("split %q, %d generators, crowd %+v", split, len(gens), res.Crowd)
	}
	w := res.Crowd.Window
	if w == nil {
		t.Fatalf("no joined window\n%s", log.String())
	}
	if !(w.CompleteMs <= w.ProbeStartMs && w.ProbeStartMs <= w.FirstProbeMs && w.FirstProbeMs < w.LastProbeEndMs && w.LastProbeEndMs <= w.StoppedMs) {
		t.Errorf("joined crowd window out of order: %+v\ngenerators: %+v, %+v", *w, *gens[0].Crowd.Window, *gens[1].Crowd.Window)
	}
	if strings.Contains(log.String(), "wptest-hold") || !strings.Contains(log.String(), "[lg2] bench-job crowd c=7: done after") {
		t.Errorf("the log has the holds or lacks the generators' lines:\n%s", log.String())
	}
}
