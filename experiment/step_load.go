package experiment

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/wptest/wptest/internal/exitcode"
	"github.com/wptest/wptest/provision/hostmanifest"
	"github.com/wptest/wptest/results"
)

// stepLoad measures the group's points with the sampler running: the
// one place a point's load is made (measure, through runner.load), each
// point's record kept (or not) as it ends.
type stepLoad struct{ noGroupCleanup }

func (stepLoad) Name() string { return "load" }

func (s stepLoad) Run(ctx context.Context, g *colGroup) error {
	r := g.r
	for _, p := range g.todo {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		sc := r.sp.scenario(p.Scenario)
		s.progress(r, p, "")
		var rec results.Record
		var err error
		if why := r.notServed(ctx, g.live, sc); why != "" {
			r.logf("  n/a: %s", why)
			rec = results.Record{Point: p, NotApplicable: why}
		} else if rec, err = s.measure(ctx, r, g.ps, sc, p, g.smp); ctx.Err() != nil {
			return ctx.Err() // a point cut short is not written: --resume measures it again
		} else if err != nil {
			return exitcode.With(exitcode.Load, fmt.Errorf("%s: %w", p.Key, err))
		}
		if err := s.keep(ctx, r, g.ps, sc, p, rec); err != nil {
			return err
		}
	}
	return nil
}

// keep writes point p's record, unless the server it measured is no
// longer the column that was applied (its profile with its variables): on
// a shared machine another process may have swapped it meanwhile; nor when
// it was changed by hand since (driftDuring).
func (stepLoad) keep(ctx context.Context, r *runner, ps results.Column, sc results.Scenario, p results.Point, rec results.Record) error {
	if hm, err := hostmanifest.Read(ctx, r.srv.h); err != nil || !sameApply(hm, r.man.Hosts[ps.ID]) {
		who := "no host manifest"
		if hm != nil {
			who = "the host manifest now says " + hm.Profile
		} else if err != nil {
			who = err.Error()
		}
		return exitcode.With(exitcode.Load, fmt.Errorf("%s: the server changed under the run (%s): another process applied a profile on %s; the point was not kept, --resume measures it again", p.Key, who, r.srv.h.Name()))
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
	r.man.Sessions[r.si].Measured = append(r.man.Sessions[r.si].Measured, p.Key)
	if err := r.man.Write(r.dir); err != nil {
		return err
	}
	stepLoad{}.progress(r, p, headline(rec))
	return nil
}

// progress says which profile, scenario and point run now and the ETA
// (eta.left): while the point is measured on a terminal's live line
// (Busy, figure ""), and once it ends with its own figure, a line kept on
// every output (Point).
func (stepLoad) progress(r *runner, p results.Point, figure string) {
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
	left := r.eta.left(plan, p.Key, r.st.Done, r.since(r.eta.started)).Round(time.Second)
	head := fmt.Sprintf("[%d/%d] rep %d/%d · %s · %s %s", idx, len(plan), p.Rep, r.sp.Repetitions, p.Column, p.Scenario, p.Step)
	if figure == "" {
		r.say(Busy, "%s (%d done) · ETA %s", head, done, left)
		return
	}
	if left == 0 { // the last point: nothing to wait for
		r.say(Point, "%s: %s", head, figure)
		return
	}
	r.say(Point, "%s: %s · ETA %s", head, figure, left)
}

func (s stepLoad) measure(ctx context.Context, r *runner, ps results.Column, sc results.Scenario, p results.Point, smp *sampler) (results.Record, error) {
	rec := results.Record{Point: p, Start: stamp(r.opt.now()), LoadHost: r.lg.Name()}
	pr := s.probe(ctx, r, sc)
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
func (stepLoad) probe(ctx context.Context, r *runner, sc results.Scenario) results.Probe {
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
