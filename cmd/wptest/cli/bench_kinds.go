package cli

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
)

// benchKind is a scenario kind as `wptest bench` runs it, in this process:
// its defaults, which flags it reads, its load and its text.
type benchKind struct {
	visitors string // -c's default
	noWarmup bool   // no warm-up by default (as ab)
	manyURLs bool   // several --url: one run each
	levels   bool   // reads --levels
	load     func(ctx context.Context, f *benchFlags, rep *result.Report, base benchgen.Config) error
	// text writes rep as text (nil: benchgen.WriteRuns of its runs).
	text func(w io.Writer, rep *result.Report)
	// help is its line of bench's help (continued on further lines).
	help string
	// check refuses the kind's own flags' bad values (nil: none).
	check func(f *benchFlags) error
}

// benchKinds are bench's scenario kinds, in the order its help lists them.
var benchKinds = []struct {
	name string
	kind benchKind
}{
	{"page", benchKind{visitors: "50", load: sweepLoad, help: "N visitors, each its own keep-alive connection, closed loop (default)"}},
	{"static", benchKind{visitors: "10,50,100,200,500,1000", load: sweepLoad, help: "the same over a visitor sweep (default -c 10,50,100,200,500,1000)"}},
	{"compression", benchKind{visitors: "50", load: compressionLoad, help: "as page, with Accept-Encoding: gzip; bytes counted at the connection"}},
	{"crowd", benchKind{visitors: "1000", load: crowdLoad, text: func(w io.Writer, rep *result.Report) { benchgen.WriteCrowd(w, *rep.Crowd) },
		help:  "-c visitors click every --click-every; a new visitor every --probe-every\nopens a fresh connection; no answer within --give-up = gave up",
		check: crowdCheck}},
	{"kit", benchKind{visitors: "50", levels: true, load: kitLoad, text: func(w io.Writer, rep *result.Report) { benchgen.WriteKit(w, *rep.Kit) },
		help: "the Apache kit's metrics: throughput, latency, scaling, keep-alive\neffect, transfer (--transfer-url), errors at 400 without keep-alive,\nstartup (--restart), CPU/memory/workers (--sample-local)"}},
	{"ab", benchKind{visitors: "1", noWarmup: true, manyURLs: true, load: abLoad, text: abText,
		help: "ab's test: -c 5 -n 50000 [-k], one run per --url, ab-style text"}},
}

func benchKindOf(name string) (benchKind, bool) {
	for _, k := range benchKinds {
		if k.name == name {
			return k.kind, true
		}
	}
	return benchKind{}, false
}

// benchKindList is "page, static, ... or ab".
func benchKindList() string {
	n := make([]string, len(benchKinds))
	for i, k := range benchKinds {
		n[i] = k.name
	}
	return strings.Join(n[:len(n)-1], ", ") + " or " + n[len(n)-1]
}

// manyURLKinds are the kinds that take several --url.
func manyURLKinds() string {
	var n []string
	for _, k := range benchKinds {
		if k.kind.manyURLs {
			n = append(n, k.name)
		}
	}
	return strings.Join(n, ", ")
}

func sweepLoad(ctx context.Context, f *benchFlags, rep *result.Report, base benchgen.Config) error {
	var err error
	rep.Runs, err = benchgen.Sweep(ctx, base, f.counts)
	return err
}

func compressionLoad(ctx context.Context, f *benchFlags, rep *result.Report, base benchgen.Config) error {
	base.Header = append([]string{benchgen.AcceptGzip}, base.Header...)
	return sweepLoad(ctx, f, rep, base)
}

func abLoad(ctx context.Context, f *benchFlags, rep *result.Report, base benchgen.Config) error {
	var err error
	rep.Runs, err = f.ab(ctx, base)
	return err
}

func abText(w io.Writer, rep *result.Report) {
	for i, r := range rep.Runs {
		if i > 0 {
			io.WriteString(w, "\n----------------\n")
		}
		benchgen.WriteAB(w, r)
	}
}

func crowdLoad(ctx context.Context, f *benchFlags, rep *result.Report, base benchgen.Config) error {
	if !f.set["duration"] {
		base.Duration = 30 * time.Second
	}
	cc := benchgen.CrowdConfig{Base: base, ProbeURL: *f.probeURL, Visitors: f.counts[0], ClickEvery: *f.clickEvery,
		ProbeEvery: *f.probeEvery, GiveUp: *f.giveUp, Duration: base.Duration}
	if f.set["warmup"] {
		cc.Warmup = *f.warmup
	}
	c, err := benchgen.Crowd(ctx, cc)
	rep.Crowd = &c
	return err
}

func kitLoad(ctx context.Context, f *benchFlags, rep *result.Report, base benchgen.Config) error {
	kc := benchgen.KitConfig{Base: base, TransferURL: *f.transferURL, Concurrency: f.counts[0], Levels: f.lv}
	f.restarter(&kc)
	f.sampler(ctx, &kc)
	k, err := benchgen.Kit(ctx, kc)
	rep.Kit = &k
	return err
}

func crowdCheck(f *benchFlags) error {
	if f.set["click-every"] && *f.clickEvery == 0 || f.set["probe-every"] && *f.probeEvery == 0 || f.set["give-up"] && *f.giveUp == 0 {
		return errors.New("--click-every, --probe-every and --give-up: want a duration > 0")
	}
	return nil
}
