package experiment

import (
	"context"
	"fmt"
	"github.com/wptest/wptest/results"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wptest/wptest/bench/benchgen"
)

// startLead is how far ahead the runner sets a split run's start: time
// for every load generator to get its job over SSH before the agreed start.
const startLead = 3 * time.Second

// lateStart: a share whose window began this much after the agreed time
// (on our clock) is named in the log: its job came late.
const lateStart = 250 * time.Millisecond

// loadGroup is several load generator machines making each load run
// together (scale issue, point 1): the visitors (and a rate or a request
// count) are split between them, they start at a time agreed in advance,
// and their shares, raw histograms included, are joined exactly
// (benchgen.JoinRuns, JoinCrowds, ...: the job's kind joins). A kind that
// does not split (the kit: its sequence of runs is one load tool's view,
// not a load to scale) runs on the first machine alone.
type loadGroup struct {
	gens []*remoteLoad
	r    *runner
}

// Name is the machines' names joined by "+" (Record.LoadHost).
func (g *loadGroup) Name() string {
	n := make([]string, len(g.gens))
	for i, l := range g.gens {
		n[i] = l.name
	}
	return strings.Join(n, "+")
}

func (g *loadGroup) Close() error {
	var first error
	for _, l := range g.gens {
		if err := l.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Do runs j from every load generator at once and joins it (a kind that
// does not split: from the first alone).
func (g *loadGroup) Do(ctx context.Context, j benchgen.Job) (benchgen.JobResult, error) {
	res, _, _, err := g.do(ctx, j)
	return res, err
}

// share is one load generator's part of a load run.
type share struct {
	Visitors int
	Requests int64
	Rate     float64
}

// splitLoad divides visitors (and a request count, a rate) between n load
// generators: equal parts, the remainder one each to the first ones. A
// rate follows the visitors (each visitor's own rate stays the same). Fewer
// visitors (or requests) than generators use only as many generators. The
// text says how, for the log and the record.
func splitLoad(visitors int, requests int64, rate float64, n int) ([]share, string) {
	used := min(n, max(visitors, 1))
	if requests > 0 {
		used = min(used, int(requests))
	}
	sh := make([]share, used)
	vs, rs := make([]string, used), make([]string, used)
	for i := range sh {
		sh[i].Visitors = visitors / used
		if i < visitors%used {
			sh[i].Visitors++
		}
		if requests > 0 {
			sh[i].Requests = requests / int64(used)
			if int64(i) < requests%int64(used) {
				sh[i].Requests++
			}
		}
		if visitors > 0 {
			sh[i].Rate = rate * float64(sh[i].Visitors) / float64(visitors)
		}
		vs[i], rs[i] = strconv.Itoa(sh[i].Visitors), strconv.FormatInt(sh[i].Requests, 10)
	}
	over := fmt.Sprintf("%d load generators", used)
	if used < n {
		over = fmt.Sprintf("%d of %d load generators", used, n)
	}
	text := fmt.Sprintf("%d visitors over %s: %s", visitors, over, strings.Join(vs, " + "))
	if requests > 0 {
		text += fmt.Sprintf("; %d requests: %s", requests, strings.Join(rs, " + "))
	}
	if rate > 0 {
		text += fmt.Sprintf("; %g/s, in proportion", rate)
	}
	return sh, text
}

// do makes one job's load from every load generator at once and joins it
// (its kind splits it: benchgen.Job.Load, Share, Join); the
// per-generator lines and the split's text go in the record. A kind that
// does not split runs on the first load generator alone (no lines, no text).
func (g *loadGroup) do(ctx context.Context, j benchgen.Job) (benchgen.JobResult, []results.GeneratorResult, string, error) {
	visitors, requests, rate, split := j.Load()
	if !split {
		res, err := g.gens[0].Do(ctx, j)
		return res, nil, "", err
	}
	sh, text := splitLoad(visitors, requests, rate, len(g.gens))
	at := g.agree(j.Config.Name, text)
	parts := make([]benchgen.JobResult, len(sh))
	rv := benchgen.NewRendezvous(len(sh), g.holdMargin(len(sh)))
	err := g.each(ctx, len(sh), func(ctx context.Context, i int, l *remoteLoad) error {
		c := j.Share(i, len(sh), benchgen.Share{Visitors: sh[i].Visitors, Requests: sh[i].Requests, Rate: sh[i].Rate})
		c.Config.StartAt, c.Config.Raw = g.r.theirTime(l.name, at), true
		var hold func(ctx context.Context, stage string) error
		if c.Holds() {
			hold = func(ctx context.Context, stage string) error { return rv.Hold(ctx, i, stage) }
		}
		defer rv.Leave(i) // ended: the others go on without it
		var err error
		parts[i], err = l.doHeld(ctx, c, hold)
		return err
	})
	if err != nil {
		return benchgen.JobResult{}, nil, text, err
	}
	joined, err := j.Join(parts)
	if err != nil {
		return benchgen.JobResult{}, nil, text, err
	}
	gens := make([]results.GeneratorResult, len(sh))
	for i := range sh {
		gens[i] = results.GeneratorResult{Host: g.gens[i].name, Visitors: sh[i].Visitors, Requests: sh[i].Requests, Rate: sh[i].Rate, Set: parts[i].Set}
		g.noteLate(g.gens[i].name, at, j.Window(parts[i]))
	}
	return joined, gens, text, nil
}

// holdMargin is how long after the last of n shares came to a stage the
// rendezvous lets them go on (benchgen.Rendezvous): the two largest clock
// uncertainties of the load generators, so that what one share did before
// the stage and another after it stay in that order once each is moved to
// our clock by its own offset.
func (g *loadGroup) holdMargin(n int) time.Duration {
	var a, b time.Duration // the largest two
	for _, l := range g.gens[:n] {
		u := g.r.clockUncertainty(l.name)
		switch {
		case u > a:
			a, b = u, a
		case u > b:
			b = u
		}
	}
	return a + b
}

// agree picks the start, on our clock, and logs it with the split.
func (g *loadGroup) agree(name, split string) time.Time {
	at := time.Now().Add(startLead).Round(0) // wall clock only: it crosses to other machines
	g.r.logf("load %s: %s; all start at %s", name, split, at.UTC().Format("15:04:05.000"))
	return at
}

// each runs fn for the first n load generators at once; the first error
// ends the others' jobs and is the one returned.
func (g *loadGroup) each(ctx context.Context, n int, fn func(ctx context.Context, i int, l *remoteLoad) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(ctx, i, g.gens[i]); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	return first
}

// noteLate logs a share whose window began well after the agreed start
// plus its warm-up (on our clock): its job reached the machine late.
func (g *loadGroup) noteLate(host string, at time.Time, w benchgen.Window) {
	if w.From.IsZero() {
		return
	}
	if late := w.From.Sub(at.Add(w.Warmup)); late > lateStart {
		g.r.say(Keep, "note: %s began %.2fs after the agreed start: its job reached it late (the shares' windows overlap less)", host, late.Seconds())
	}
}

// load runs j from r's load generators; from several, rec gets the split
// and each one's share, and a job that is not split names the one it ran on.
func (r *runner) load(ctx context.Context, j benchgen.Job, rec *results.Record) (benchgen.JobResult, error) {
	g, ok := r.lg.(*loadGroup)
	if !ok {
		return r.lg.Do(ctx, j)
	}
	res, gens, split, err := g.do(ctx, j)
	rec.Split, rec.Generators = split, gens
	if _, _, _, splits := j.Load(); !splits {
		rec.LoadHost = g.gens[0].name
	}
	return res, err
}

// loadMachines are the load generator machines of the run (none when the
// load comes from this process).
func (r *runner) loadMachines() []*remoteLoad {
	switch lg := r.lg.(type) {
	case *remoteLoad:
		return []*remoteLoad{lg}
	case *loadGroup:
		return lg.gens
	}
	return nil
}

// noteLoadMachines records what the load generator machines are in the
// manifest: the first as LoadMachine, and all of them, when several, in
// LoadMachines.
func (r *runner) noteLoadMachines(ctx context.Context) {
	gens := r.loadMachines()
	for i, rl := range gens {
		li := machineInfo(ctx, rl.h, rl.facts)
		li.Host = rl.name
		if i == 0 {
			first := li
			r.man.LoadMachine = &first
		}
		if len(gens) > 1 {
			r.man.LoadMachines = append(r.man.LoadMachines, li)
		}
		if isLoopback(r.srv.addr) {
			r.say(Keep, "note: the server's address %s is a loopback address: load generator %s reaches it only if it is the same machine", r.srv.addr, rl.name)
		}
	}
}
