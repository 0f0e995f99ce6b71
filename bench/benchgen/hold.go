package benchgen

import (
	"context"
	"strings"
	"sync"
	"time"
)

// The stages at which the shares of a crowd split between load generators
// wait for each other (CrowdConfig.Hold): each share's newcomers need the
// whole crowd, every share's visitors, on the site from before the first
// newcomer on any share to after the last one.
const (
	// HoldComplete: this share's visitors have all clicked once; its
	// newcomers wait until every share's have.
	HoldComplete = "complete"
	// HoldProbed: this share's newcomers have all been answered or given
	// up; its crowd keeps clicking until every share's have.
	HoldProbed = "probed"
)

// Holds says whether j's shares wait for each other (a crowd split
// between load generators: CrowdConfig.Hold). The job runner then gives
// the job JobOptions.Hold, and the caller answers it (Rendezvous).
func (j Job) Holds() bool {
	c := specOf[CrowdJob](j)
	return j.Kind == JobCrowd && c != nil && c.ProbeSlots > 1
}

// holdPrefix marks a share's line on its job's stderr saying it waits at
// a stage; the controller answers on the job's stdin with releasePrefix
// and the stage (`wptest bench-job`, experiment's load group).
const (
	holdPrefix    = "wptest-hold "
	releasePrefix = "wptest-release "
)

// HoldLine is the stderr line of a share waiting at stage.
func HoldLine(stage string) string { return holdPrefix + stage + "\n" }

// ParseHold is the stage a HoldLine names (line with or without its
// newline); ok false: another line.
func ParseHold(line string) (stage string, ok bool) {
	return strings.CutPrefix(strings.TrimRight(line, "\r\n"), holdPrefix)
}

// ReleaseLine is the stdin line that lets a share waiting at stage go on.
func ReleaseLine(stage string) string { return releasePrefix + stage + "\n" }

// ParseRelease is the stage a ReleaseLine names.
func ParseRelease(line string) (stage string, ok bool) {
	return strings.CutPrefix(strings.TrimRight(line, "\r\n"), releasePrefix)
}

// Rendezvous is where n shares of a job wait for each other, stage by
// stage: Hold returns once every share has come to the stage (or its job
// ended: Leave), plus Margin. Margin covers the clocks: each share's times
// are read on its own machine's clock and moved to the controller's by a
// measured offset, good to its uncertainty, so events a margin apart stay
// in order once joined.
type Rendezvous struct {
	n      int
	margin time.Duration
	mu     sync.Mutex
	left   map[int]bool
	stages map[string]*rendezvousStage
}

type rendezvousStage struct {
	came map[int]bool
	all  chan struct{} // closed when every share came or left, plus the margin
	done bool
}

// NewRendezvous is a rendezvous of n shares, released margin after the last came.
func NewRendezvous(n int, margin time.Duration) *Rendezvous {
	return &Rendezvous{n: n, margin: margin, left: map[int]bool{}, stages: map[string]*rendezvousStage{}}
}

// Hold says share i came to stage and waits for the others (ctx's error
// if it ended first).
func (r *Rendezvous) Hold(ctx context.Context, i int, stage string) error {
	r.mu.Lock()
	s := r.stage(stage)
	s.came[i] = true
	r.check(s)
	r.mu.Unlock()
	select {
	case <-s.all:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Leave says share i's job ended: no stage waits for it any more.
func (r *Rendezvous) Leave(i int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.left[i] = true
	for _, s := range r.stages {
		r.check(s)
	}
}

func (r *Rendezvous) stage(name string) *rendezvousStage {
	s, ok := r.stages[name]
	if !ok {
		s = &rendezvousStage{came: map[int]bool{}, all: make(chan struct{})}
		r.stages[name] = s
	}
	return s
}

// check releases s once every share came to it or left (r.mu held).
func (r *Rendezvous) check(s *rendezvousStage) {
	if s.done {
		return
	}
	for i := range r.n {
		if !s.came[i] && !r.left[i] {
			return
		}
	}
	s.done = true
	time.AfterFunc(r.margin, func() { close(s.all) })
}
