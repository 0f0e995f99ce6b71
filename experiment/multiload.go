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
	"github.com/wptest/wptest/bench/result"
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
// (benchgen.JoinRuns). The kit runs on the first machine alone: its
// sequence of runs is one load tool's (ab's) view, not a load to scale.
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

func (g *loadGroup) Run(ctx context.Context, cfg benchgen.Config) (result.Run, error) {
	run, _, _, err := g.run(ctx, cfg)
	return run, err
}

func (g *loadGroup) Crowd(ctx context.Context, cc benchgen.CrowdConfig) (result.Crowd, error) {
	c, _, _, err := g.crowd(ctx, cc)
	return c, err
}

func (g *loadGroup) Kit(ctx context.Context, kc benchgen.KitConfig) (result.Kit, error) {
	return g.gens[0].Kit(ctx, kc)
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

// run makes one load run from every load generator at once and joins it;
// the per-generator lines and the split's text go in the record.
func (g *loadGroup) run(ctx context.Context, cfg benchgen.Config) (result.Run, []results.GeneratorResult, string, error) {
	sh, text := splitLoad(cfg.Visitors, cfg.Requests, cfg.Rate, len(g.gens))
	at := g.agree(cfg.Name, text)
	parts := make([]result.Run, len(sh))
	err := g.each(ctx, len(sh), func(ctx context.Context, i int, l *remoteLoad) error {
		c := cfg
		c.Visitors, c.Requests, c.Rate = sh[i].Visitors, sh[i].Requests, sh[i].Rate
		c.StartAt, c.Raw = g.r.theirTime(l.name, at), true
		var err error
		parts[i], err = l.Run(ctx, c)
		return err
	})
	if err != nil {
		return result.Run{}, nil, text, err
	}
	joined, err := benchgen.JoinRuns(parts)
	if err != nil {
		return result.Run{}, nil, text, err
	}
	joined.Raw = nil // stored once: in each generator's line
	gens := make([]results.GeneratorResult, len(sh))
	for i := range sh {
		gens[i] = results.GeneratorResult{Host: g.gens[i].name, Visitors: sh[i].Visitors, Requests: sh[i].Requests, Rate: sh[i].Rate, Set: result.Set{Run: &parts[i]}}
		g.noteLate(g.gens[i].name, at, parts[i])
	}
	return joined, gens, text, nil
}

// crowd is run for the crowd scenario: the background visitors split, the
// newcomers sent by the generators in turns (one every ProbeEvery in all).
func (g *loadGroup) crowd(ctx context.Context, cc benchgen.CrowdConfig) (result.Crowd, []results.GeneratorResult, string, error) {
	sh, text := splitLoad(cc.Visitors, 0, 0, len(g.gens))
	at := g.agree(cc.Base.Name, text)
	parts := make([]result.Crowd, len(sh))
	err := g.each(ctx, len(sh), func(ctx context.Context, i int, l *remoteLoad) error {
		c := cc
		c.Visitors, c.ProbeSlot, c.ProbeSlots = sh[i].Visitors, i, len(sh)
		c.Base.StartAt, c.Base.Raw = g.r.theirTime(l.name, at), true
		var err error
		parts[i], err = l.Crowd(ctx, c)
		return err
	})
	if err != nil {
		return result.Crowd{}, nil, text, err
	}
	joined, err := benchgen.JoinCrowds(parts)
	if err != nil {
		return result.Crowd{}, nil, text, err
	}
	joined.Raw, joined.Background.Raw = nil, nil // stored once: in each generator's line
	gens := make([]results.GeneratorResult, len(sh))
	for i := range sh {
		gens[i] = results.GeneratorResult{Host: g.gens[i].name, Visitors: sh[i].Visitors, Set: result.Set{Crowd: &parts[i]}}
		g.noteLate(g.gens[i].name, at, parts[i].Background)
	}
	return joined, gens, text, nil
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
func (g *loadGroup) noteLate(host string, at time.Time, part result.Run) {
	began, err := time.Parse(time.RFC3339Nano, part.Start)
	if err != nil {
		return
	}
	if late := began.Sub(at.Add(time.Duration(part.WarmupMs * float64(time.Millisecond)))); late > lateStart {
		g.r.logf("note: %s began %.2fs after the agreed start: its job reached it late (the shares' windows overlap less)", host, late.Seconds())
	}
}

// loadRun is r.lg.Run; from several load generators, rec gets the split
// and each one's share.
func (r *runner) loadRun(ctx context.Context, cfg benchgen.Config, rec *results.Record) (result.Run, error) {
	g, ok := r.lg.(*loadGroup)
	if !ok {
		return r.lg.Run(ctx, cfg)
	}
	run, gens, split, err := g.run(ctx, cfg)
	rec.Split, rec.Generators = split, gens
	return run, err
}

// loadCrowd is loadRun for the crowd scenario.
func (r *runner) loadCrowd(ctx context.Context, cc benchgen.CrowdConfig, rec *results.Record) (result.Crowd, error) {
	g, ok := r.lg.(*loadGroup)
	if !ok {
		return r.lg.Crowd(ctx, cc)
	}
	c, gens, split, err := g.crowd(ctx, cc)
	rec.Split, rec.Generators = split, gens
	return c, err
}

// kitHost is where the kit's load comes from: the first of several load
// generators (loadGroup.Kit).
func (r *runner) kitHost() string {
	if g, ok := r.lg.(*loadGroup); ok {
		return g.gens[0].name
	}
	return r.lg.Name()
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
		if isLoopback(r.addr) {
			r.logf("note: the server's address %s is a loopback address: load generator %s reaches it only if it is the same machine", r.addr, rl.name)
		}
	}
}
