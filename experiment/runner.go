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
	"github.com/wptest/wptest/bench/srvstat"
	"github.com/wptest/wptest/experiment/stage"
	"github.com/wptest/wptest/fixture"
	"github.com/wptest/wptest/host"
	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision"
	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/provision/hostmanifest"
)

type runner struct {
	sp  *Spec
	opt Options
	dir string
	man *results.Manifest
	st  *results.Store
	fx  *fixture.Fixture
	si  int // this session's index in man.Sessions

	ms    []cloud.Machine // the run's machines (machineSteps)
	sm    cloud.Machine   // the server among them
	lease *stage.Lease    // a new run's machines, until released; nil: a resumed run's
	plan  runPlan         // what the run measures, computed before its steps
	// succeeded is set by the session's last step: the machines' cleanup
	// keeps them after success only with Keep.
	succeeded bool

	h       host.Host
	facts   host.Facts
	lg      loadGen        // where the load comes from (loadgen.go)
	addr    string         // the server's address as the load generator dials it
	ports   map[string]int // where the live profile's server listens (server { ports })
	sources []string       // who may reach the web ports (webSources): the profiles' allow_from
	// liveColumn is the column this session applied last ("": none yet).
	liveColumn string
	started    time.Time // when measuring began, for the ETA
	eta        *eta
	last       string // the last point measured and its headline figure, for the progress line
}

func (r *runner) logf(format string, v ...any) { fmt.Fprintf(r.opt.Log, format+"\n", v...) }

// since is how long ago t was on the run's clock (Options.Now).
func (r *runner) since(t time.Time) time.Duration { return r.opt.now().Sub(t) }

// connect opens the server and reads its facts.
func (r *runner) connect(ctx context.Context, sm cloud.Machine) error {
	var err error
	if r.h, err = hostOf(ctx, r.dir, sm, r.opt.Log); err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	r.addr = "127.0.0.1"
	if !sm.Local {
		r.addr = sm.Address
	}
	if r.facts, err = r.h.Facts(ctx); err != nil {
		return exitcode.With(exitcode.Provision, fmt.Errorf("facts of %s: %w", r.h.Name(), err))
	}
	return nil
}

// site: on a fresh run, the fixture is seeded once into the site the
// first column's profile declares (applyFirst made it ready) and verified,
// files, rows and every page over HTTP; a resumed run verifies what the
// first session seeded.
func (r *runner) site(ctx context.Context) error {
	site, decl, err := stage.HostSite(ctx, r.h)
	if err != nil {
		return exitcode.With(exitcode.Provision, err)
	}
	if r.opt.Redactor != nil {
		r.opt.Redactor.Add(site.DB.Password)
	}
	if r.man.Fixture.Verified == "" {
		return r.seed(ctx, site, decl)
	}
	return r.verify(ctx, site, false)
}

// measurePlan measures the points not measured yet, one (repetition,
// column) group at a time: one swap and one sampler for each, their steps
// undone before the next group's (groupSteps).
func (r *runner) measurePlan(ctx context.Context) error {
	r.started = r.opt.now()
	plan := r.plan.points
	for i := 0; i < len(plan); {
		j := i
		for j < len(plan) && plan[j].Rep == plan[i].Rep && plan[j].Column == plan[i].Column {
			j++
		}
		group := plan[i:j]
		i = j
		var todo []results.Point
		for _, p := range group {
			if !r.st.Done(p.Key) {
				todo = append(todo, p)
			}
		}
		if len(todo) == 0 {
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.eta.group(group[0].Profile)
		if err := r.runSteps(ctx, r.groupSteps(&colGroup{ps: r.sp.column(group[0].Column), todo: todo})); err != nil {
			return err
		}
	}
	return nil
}

// preflight prints, before anything on the server changes, what the
// server is and what profile ps, the first the run applies, will change
// there (provision's preflight, as `wptest up` prints it).
func (r *runner) preflight(ctx context.Context, ps results.Column) error {
	p, err := loadProfile(ps, r.sources)
	if err != nil {
		return err
	}
	stage.WriteLocalFiles(keepWriter{r}, r.sp.Uploads)
	return stage.Run(ctx, r.state(), stage.Render{Profile: p, Refuse: true}, stage.Preflight{Out: keepWriter{r}})
}

// url is where the load generator finds path p over proto: on the port the
// live profile's server block declares for it, or else the experiment's.
func (r *runner) url(p string, proto string) string {
	scheme, port := "http", r.sp.HTTPPort
	if provision.PortFor(proto) == "https" {
		scheme, port = "https", r.sp.HTTPSPort
	}
	if n, ok := r.ports[scheme]; ok {
		port = n
	}
	return scheme + "://" + hostPort(r.addr, port) + p
}

func hostPort(h string, p int) string {
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	return h + ":" + strconv.Itoa(p)
}

// measurePoints measures g's points with the sampler running: the one
// place a point's load is made (measure, through runner.load).
func (r *runner) measurePoints(ctx context.Context, g *colGroup) error {
	for _, p := range g.todo {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		sc := r.sp.scenario(p.Scenario)
		r.progress(p)
		var rec results.Record
		var err error
		if why := r.notServed(ctx, g.live, sc); why != "" {
			r.logf("  n/a: %s", why)
			rec = results.Record{Point: p, NotApplicable: why}
		} else if rec, err = r.measure(ctx, g.ps, sc, p, g.smp); ctx.Err() != nil {
			return ctx.Err() // a point cut short is not written: --resume measures it again
		} else if err != nil {
			return exitcode.With(exitcode.Load, fmt.Errorf("%s: %w", p.Key, err))
		}
		if err := r.keep(ctx, g.ps, sc, p, rec); err != nil {
			return err
		}
	}
	return nil
}

// keep writes point p's record, unless the server it measured is no
// longer the column that was applied (its profile with its variables): on
// a shared machine another process may have swapped it meanwhile; nor when
// it was changed by hand since (driftDuring).
func (r *runner) keep(ctx context.Context, ps results.Column, sc results.Scenario, p results.Point, rec results.Record) error {
	if hm, err := hostmanifest.Read(ctx, r.h); err != nil || !sameApply(hm, r.man.Hosts[ps.ID]) {
		who := "no host manifest"
		if hm != nil {
			who = "the host manifest now says " + hm.Profile
		} else if err != nil {
			who = err.Error()
		}
		return exitcode.With(exitcode.Load, fmt.Errorf("%s: the server changed under the run (%s): another process applied a profile on %s; the point was not kept, --resume measures it again", p.Key, who, r.h.Name()))
	}
	broken, err := r.driftDuring(ctx, ps, sc, p)
	if err != nil {
		return err
	}
	rec.Broken = broken
	rec.BenchLimit, _ = results.BenchLimit(rec, r.man.Machine)
	if err := r.st.Append(rec); err != nil {
		return fmt.Errorf("write %s: %w", results.ResultsFile, err)
	}
	r.eta.point(sc, p, rec)
	r.last = fmt.Sprintf("%s %s %s: %s", p.Column, p.Scenario, p.Step, headline(rec))
	r.man.Sessions[r.si].Measured = append(r.man.Sessions[r.si].Measured, p.Key)
	return r.man.Write(r.dir)
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
	left := r.eta.left(plan, p.Key, r.st.Done, r.since(r.started))
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
	tr := &http.Transport{DialContext: r.h.DialContext, DisableCompression: true, ForceAttemptHTTP2: sc.Proto == "h2",
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

// machineInfo reads what the server is: kernel, CPUs, memory, and (srvstat's
// CgroupProbe) whether it is a cgroup namespace of its own whose CPU its
// cgroup counts, its cpuset and its memory limit.
func machineInfo(ctx context.Context, h host.Host, f host.Facts) results.MachineInfo {
	mi := results.MachineInfo{Host: h.Name(), OS: strings.TrimSpace(f.OSID + " " + f.OSVersion), Platform: f.Platform, Arch: f.Arch}
	res, err := h.Run(ctx, host.Cmd{Label: "machine info", Timeout: time.Minute,
		Script: srvstat.CgroupProbe + "uname -r; nproc; awk '/^MemTotal:/{print $2}' /proc/meminfo; cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo; awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo"})
	if err != nil {
		return mi
	}
	var l []string
	limitKB := int64(0)
	for _, line := range strings.Split(strings.TrimSpace(string(res.Stdout)), "\n") {
		switch k, v, _ := strings.Cut(line, " "); k {
		case "wptest-cpu-from":
			mi.CPUFrom = v
		case "wptest-cpuset":
			mi.CPUSet = v
		case "wptest-mem-limit":
			n, _ := strconv.ParseInt(v, 10, 64) // "max": none
			limitKB = n >> 10
		default:
			l = append(l, line)
		}
	}
	if len(l) >= 3 {
		mi.Kernel = l[0]
		mi.CPUs, _ = strconv.Atoi(l[1])
		mi.MemKB, _ = strconv.ParseInt(l[2], 10, 64)
	}
	if limitKB > 0 && limitKB < mi.MemKB {
		mi.MemKB = limitKB // a machine's memory is its cgroup's limit
	}
	if len(l) >= 4 {
		mi.BootID = strings.TrimSpace(l[3])
	}
	if len(l) >= 5 {
		mi.CPUModel = l[4]
	}
	return mi
}
