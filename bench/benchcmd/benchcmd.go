// Package benchcmd is what `wptest bench` knows of a scenario kind: its
// default visitors, which of bench's flags it reads, how it runs its load
// in this process and how it prints it. Each kind's package registers its
// own from its init (Register), beside its halves in results, experiment
// and report; the command lists the registered kinds in their Order.
package benchcmd

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
)

// Flags are bench's flags as a kind reads them (the command parses them):
// at Load, checked and with their defaults; at Check, parsed but for
// --levels, before the warm-up's and the duration's defaults.
type Flags struct {
	// URLs are --url, in order (a kind with ManyURLs runs one each).
	URLs []string
	// Visitors are -c's counts.
	Visitors []int
	// Levels are --levels (a kind with Levels).
	Levels []int
	// Given says whether the flag called name was given ("duration").
	Given func(name string) bool
	// Requests is -n; KeepAlive -k; HTTP10 --http1.0.
	Requests          int64
	KeepAlive, HTTP10 bool
	// The crowd's and the kit's.
	ProbeURL, TransferURL          string
	ClickEvery, ProbeEvery, GiveUp time.Duration
	// Kit gives a kit its startup's restart (--restart, run here) and its
	// in-process sampler (--sample-local).
	Kit func(ctx context.Context, kc *benchgen.KitConfig)
}

// Kind is a scenario kind as `wptest bench` runs it.
type Kind struct {
	// Order is where bench's help lists it (lowest first; page 10 to
	// transfer 80, as results.Kind's).
	Order int
	// Visitors is -c's default.
	Visitors string
	// NoWarmup: no warm-up by default (as ab).
	NoWarmup bool
	// ManyURLs: several --url, one run each.
	ManyURLs bool
	// Levels: it reads --levels.
	Levels bool
	// Load runs its load in this process into rep.
	Load func(ctx context.Context, f *Flags, rep *result.Report, base benchgen.Config) error
	// Text writes rep as text (nil: benchgen.WriteRuns of its runs).
	Text func(w io.Writer, rep *result.Report)
	// Help is its line of bench's help (continued on further lines).
	Help string
	// Check refuses its own flags' bad values (nil: none).
	Check func(f *Flags) error
}

// Named is a registered kind and its name.
type Named struct {
	Name string
	Kind Kind
}

var kinds []Named

// Register adds the kind called name. Two of one name, or one without a
// load, are a programming error: it panics.
func Register(name string, k Kind) {
	if _, ok := Of(name); ok || k.Load == nil {
		panic(fmt.Sprintf("benchcmd: kind %q registered twice or without a load", name))
	}
	at := slices.IndexFunc(kinds, func(n Named) bool { return n.Kind.Order > k.Order })
	if at < 0 {
		at = len(kinds)
	}
	kinds = slices.Insert(kinds, at, Named{name, k})
}

// Kinds are the registered kinds, in their Order.
func Kinds() []Named { return kinds }

// Of is the kind called name.
func Of(name string) (Kind, bool) {
	for _, n := range kinds {
		if n.Name == name {
			return n.Kind, true
		}
	}
	return Kind{}, false
}

// Sweep is a kind's load as one run per visitor count (-c 10,50,100).
func Sweep(ctx context.Context, f *Flags, rep *result.Report, base benchgen.Config) error {
	var err error
	rep.Runs, err = benchgen.Sweep(ctx, base, f.Visitors)
	return err
}
