package experiment

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"github.com/wptest/wptest/results"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/hostmanifest"
)

// runner is a session: its inputs and its record, fixed before its
// steps run (the spec, the options, the run directory, the manifest and
// the results, the fixture, the plan), and what its steps made that later
// ones read (the machines, the server, the load generators, the ETA). It
// is the state multistep passes the session's steps (steps.go); a step
// that made something to undo holds it itself, for its cleanup.
type runner struct {
	sp   *Spec
	opt  Options
	dir  string
	man  *results.Manifest
	st   *results.Store
	fx   *fixture.Fixture
	si   int     // this session's index in man.Sessions
	plan runPlan // what the run measures, computed before its steps

	ms  []cloud.Machine // the run's machines (machineSteps)
	srv *server         // the server, connected (stepConnect)
	lg  loadGen         // where the load comes from (stepLoadGenerators)
	eta *eta
	// last is the last point measured and its headline figure, for the
	// progress line.
	last string
	// succeeded is set by the session's last step: the machines' cleanup
	// keeps them after success only with Keep.
	succeeded bool
}

// server is the run's server as stepConnect opened it, and what later
// steps learn of it.
type server struct {
	h     host.Host
	facts host.Facts
	m     cloud.Machine // the server among the run's machines
	addr  string        // its address as the load generator dials it
	// sources are who may reach its web ports (webSources), the profiles'
	// allow_from: found by the first step that loads a profile.
	sources []string
	ports   map[string]int // where the live profile's server listens (server { ports })
	// live is the column this session applied last ("": none yet).
	live string
}

func (r *runner) logf(format string, v ...any) { fmt.Fprintf(r.opt.Log, format+"\n", v...) }

// since is how long ago t was on the run's clock (Options.Now).
func (r *runner) since(t time.Time) time.Duration { return r.opt.now().Sub(t) }

// url is where the load generator finds path p over proto: on the port the
// live profile's server block declares for it, or else the experiment's.
func (r *runner) url(p string, proto string) string {
	scheme, port := "http", r.sp.HTTPPort
	if provision.PortFor(proto) == "https" {
		scheme, port = "https", r.sp.HTTPSPort
	}
	if n, ok := r.srv.ports[scheme]; ok {
		port = n
	}
	return scheme + "://" + hostPort(r.srv.addr, port) + p
}

func hostPort(h string, p int) string {
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	return h + ":" + strconv.Itoa(p)
}

// progress prints which profile, scenario and point run now, and the ETA
// (eta.left).
func (r *runner) progress(p results.Point) {
	plan := r.plan.points
	idx, done := 0, 0
	for i, q := range plan {
		if q.Key == p.Key {
			idx = i + 1
		}
		if r.st.Done(q.Key) {
			done++
		}
	}
	left := r.eta.left(plan, p.Key, r.st.Done, r.since(r.eta.started))
	last := ""
	if r.last != "" {
		last = " · last " + r.last
	}
	r.say(Point, "[%d/%d] rep %d/%d · %s · %s %s (%d done) · ETA %s%s", idx, len(plan), p.Rep, r.sp.Repetitions, p.Column, p.Scenario, p.Step, done, left.Round(time.Second), last)
}

func (r *runner) baseConfig(sc results.Scenario, visitors int) benchgen.Config {
	cfg := benchgen.Config{Name: fmt.Sprintf("c=%d", visitors), URL: r.url(sc.Path, sc.Proto), Proto: sc.Proto,
		Visitors: visitors, KeepAlive: sc.KeepAlive, Requests: sc.Requests, Duration: sc.Duration, Warmup: sc.Warmup,
		Rate: sc.Rate, Timeout: sc.Timeout, ServerName: "localhost",
		// The profiles' certificate is the host's own self-signed one; the
		// h2/h3 checks of the profile prove it; the load only needs the bytes.
		Insecure: true}
	if sc.Gzip {
		cfg.Header = append(cfg.Header, benchgen.AcceptGzip)
	}
	return cfg
}

func (r *runner) measure(ctx context.Context, ps results.Column, sc results.Scenario, p results.Point, smp *sampler) (results.Record, error) {
	rec := results.Record{Point: p, Start: stamp(r.opt.now()), LoadHost: r.lg.Name()}
	pr := r.probe(ctx, sc)
	rec.Probe = &pr
	j, finish, err := kindOf(sc).job(ctx, r, point{ps: ps, sc: sc, p: p, cfg: r.baseConfig(sc, p.Visitors)})
	if err != nil {
		return rec, err
	}
	res, err := r.load(ctx, j, &rec)
	if err != nil {
		return rec, err
	}
	rec.Set = res.Set
	// The window is on our clock (remoteLoad.Do turned each load
	// machine's into ours); the sampler puts it on the server's.
	w := j.Window(res)
	srv, err := smp.summarize(ctx, w.From, w.To, w.OK)
	if err != nil {
		return rec, err
	}
	rec.Server = srv
	if finish != nil {
		finish(&rec, srv)
	}
	ok := w.OK
	if rec.Server != nil {
		var cpu float64
		for _, g := range results.ServerGroups {
			cpu += rec.Server.Groups[g].CPUMs
		}
		if ok > 0 {
			rec.ServerCPUMsPerReq = cpu / float64(ok)
			db := rec.Server.Groups["db"].CPUMs
			rec.WebPHPCPUMsPerReq = (cpu - db) / float64(ok)
			rec.DBCPUMsPerReq = db / float64(ok)
		}
		for _, g := range results.WebPHPGroups {
			rec.PSSKB += rec.Server.Groups[g].PSSPeakKB
		}
	}
	rec.End = stamp(r.opt.now())
	return rec, nil
}

// probe makes one plain request the way the scenario asks (gzip accepted
// or not) and records what came back: the Content-Encoding is how the
// report knows who compresses. The connection is opened from the server's
// side (its Host's DialContext): a cloud server's firewall lets the web
// ports in only from the run's load generators, not from the machine
// running wptest.
func (r *runner) probe(ctx context.Context, sc results.Scenario) results.Probe {
	u := r.url(sc.Path, sc.Proto)
	pr := results.Probe{URL: u, AcceptGzip: sc.Gzip}
	tr := &http.Transport{DialContext: r.srv.h.DialContext, DisableCompression: true, ForceAttemptHTTP2: sc.Proto == "h2",
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ServerName: "localhost"}}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 60 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		pr.Error = err.Error()
		return pr
	}
	if sc.Gzip {
		req.Header.Set("Accept-Encoding", "gzip, deflate, br")
	}
	resp, err := c.Do(req)
	if err != nil {
		pr.Error = err.Error()
		return pr
	}
	defer resp.Body.Close()
	n, _ := io.Copy(io.Discard, resp.Body)
	pr.Status, pr.Proto, pr.BodyBytes = resp.StatusCode, resp.Proto, n
	pr.ContentEncoding = resp.Header.Get("Content-Encoding")
	pr.Server = resp.Header.Get("Server")
	return pr
}

// restartScript restarts the live web server for the kit's startup metric:
// the restart commands of the services its profile declares as its server
// (host manifest); "" when it declares none.
func (r *runner) restartScript(ps results.Column) string {
	hm := r.man.Hosts[ps.ID]
	if hm == nil || hm.Server == nil {
		return ""
	}
	var cmds []string
	for _, s := range hm.Server.Services {
		cmds = append(cmds, s.Restart)
	}
	return strings.Join(cmds, " && ")
}

// sameApply says whether host manifest a records the same profile with the
// same variables as b (b: what the run's apply wrote; a: read back, its
// numbers decoded from JSON).
func sameApply(a, b *hostmanifest.Manifest) bool {
	if a == nil || b == nil || a.Profile != b.Profile {
		return false
	}
	va, _ := json.Marshal(a.Variables)
	vb, _ := json.Marshal(b.Variables)
	return string(va) == string(vb)
}
