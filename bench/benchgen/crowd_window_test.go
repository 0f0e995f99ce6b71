package benchgen

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wptest/wptest/bench/result"
)

// crowdCounter is a real HTTP/1.1 server on loopback that tells the crowd
// (/click, kept connections) from newcomers (/probe, one request each) and
// notes, on its own clock, every connection's accept order, its clicks and
// when it closed, and when each newcomer was answered. Newcomers are
// answered after probeDelay: a server slow to take on new visitors (as a
// full prefork server is), so the last ones end after the probing schedule.
type crowdCounter struct {
	ln         net.Listener
	probeDelay time.Duration
	mu         sync.Mutex
	conns      []*counted
	wg         sync.WaitGroup
}

type counted struct {
	seq      int // accept order: the listen queue is first in, first out
	kind     string
	clicks   []time.Time
	answered time.Time // a probe: when its answer was written
	closed   time.Time // when the client's close was read
}

func startCrowdCounter(t *testing.T, probeDelay time.Duration) *crowdCounter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &crowdCounter{ln: ln, probeDelay: probeDelay}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

func (s *crowdCounter) url(path string) string { return "http://" + s.ln.Addr().String() + path }

func (s *crowdCounter) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		cn := &counted{seq: len(s.conns)}
		s.conns = append(s.conns, cn)
		s.mu.Unlock()
		s.wg.Add(1)
		go s.serve(c, cn)
	}
}

func (s *crowdCounter) serve(c net.Conn, cn *counted) {
	defer s.wg.Done()
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			s.mu.Lock()
			cn.closed = time.Now()
			s.mu.Unlock()
			return
		}
		io.Copy(io.Discard, req.Body)
		if req.URL.Path == "/probe" {
			time.Sleep(s.probeDelay) // the server's own slowness, not a wait for an event
		}
		s.mu.Lock()
		now := time.Now()
		if req.URL.Path == "/probe" {
			cn.kind, cn.answered = "probe", now
		} else {
			cn.kind = "crowd"
			cn.clicks = append(cn.clicks, now)
		}
		s.mu.Unlock()
		if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); err != nil {
			return
		}
	}
}

// The crowd is on the site for the whole probe window: the server counts
// the crowd's connections and clicks from the first newcomer to the last,
// in windows the record's own times define. What the schedule guarantees
// is checked by order (the listen queue, cause and effect), not by
// clock: every crowd connection was accepted before the first newcomer's
// and closed after the last newcomer was answered; the clicks per
// click_every have a loose floor (half the crowd), which a crowd that
// stopped clicking (none) misses whatever the machine's load.
func TestCrowdIsOnTheSiteForTheWholeProbeWindow(t *testing.T) {
	t.Parallel() // waits on its own servers and windows, mostly idle: beside the package's others
	const visitors = 20
	click := time.Second
	srv := startCrowdCounter(t, 2500*time.Millisecond)
	// A warm-up shorter than click_every: the crowd's start-up is its own.
	cr, err := Crowd(context.Background(), CrowdConfig{Base: Config{URL: srv.url("/click")}, ProbeURL: srv.url("/probe"),
		Visitors: visitors, ClickEvery: click, ProbeEvery: 250 * time.Millisecond, GiveUp: 10 * time.Second,
		Warmup: 300 * time.Millisecond, Duration: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if cr.ProbeOutcomes.OK != int64(len(cr.Probes)) || len(cr.Probes) == 0 {
		t.Fatalf("newcomers: %d, outcomes %+v", len(cr.Probes), cr.ProbeOutcomes)
	}
	srv.ln.Close()
	srv.wg.Wait() // every connection closed: the run is over
	var crowd, probes []*counted
	for _, c := range srv.conns {
		switch c.kind {
		case "crowd":
			crowd = append(crowd, c)
		case "probe":
			probes = append(probes, c)
		}
	}
	if len(crowd) != visitors || len(probes) != len(cr.Probes) {
		t.Fatalf("server saw %d crowd connections and %d newcomers; want %d and %d", len(crowd), len(probes), visitors, len(cr.Probes))
	}
	first, lastAnswer := probes[0], probes[0]
	for _, p := range probes {
		if p.seq < first.seq {
			first = p
		}
		if p.answered.After(lastAnswer.answered) {
			lastAnswer = p
		}
	}
	late, gone := 0, 0
	for _, c := range crowd {
		if c.seq > first.seq {
			late++
		}
		if !c.closed.After(lastAnswer.answered) {
			gone++
		}
	}
	if late > 0 {
		t.Errorf("%d of %d crowd connections were accepted after the first newcomer's", late, visitors)
	}
	if gone > 0 {
		t.Errorf("%d of %d crowd connections closed before the last newcomer was answered", gone, visitors)
	}
	var out strings.Builder
	WriteCrowd(&out, cr)
	if !strings.Contains(out.String(), "warm-up raised from 0.3 s to click_every (1 s)") {
		t.Errorf("the summary does not say the warm-up was raised:\n%s", out.String())
	}
	from, to := probeSpan(t, cr)
	t.Logf("crowd window (ms from the crowd's start): %+v", *cr.Window)
	for w := from; !w.Add(click).After(to); w = w.Add(click) {
		n := 0
		for _, c := range crowd {
			for _, at := range c.clicks {
				if !at.Before(w) && at.Before(w.Add(click)) {
					n++
				}
			}
		}
		if n < visitors/2 {
			t.Errorf("clicks in %v..%v (from the first newcomer): %d, want about %d (one per visitor)", w.Sub(from), w.Add(click).Sub(from), n, visitors)
		}
	}
}

// probeSpan is, from the record, the first newcomer's intended start and
// the last newcomer's end; the record also says the crowd was complete
// before the one and stopped after the other, and that the warm-up asked
// for was raised to click_every.
func probeSpan(t *testing.T, cr result.Crowd) (time.Time, time.Time) {
	t.Helper()
	w := cr.Window
	if w == nil {
		t.Fatal("no crowd window in the record")
	}
	if w.WarmupMs != cr.ClickEveryMs || w.WarmupRaisedFromMs != 300 {
		t.Errorf("warm-up %v ms, raised from %v ms: want click_every (%v ms), raised from 300 ms", w.WarmupMs, w.WarmupRaisedFromMs, cr.ClickEveryMs)
	}
	if !(w.CompleteMs <= w.ProbeStartMs && w.ProbeStartMs <= w.FirstProbeMs && w.FirstProbeMs < w.LastProbeEndMs && w.LastProbeEndMs <= w.StoppedMs) {
		t.Errorf("crowd window out of order: %+v", *w)
	}
	start, err := time.Parse(time.RFC3339Nano, cr.Background.Start)
	if err != nil {
		t.Fatal(err)
	}
	origin := start.Add(-time.Duration(cr.Background.WarmupMs * float64(time.Millisecond)))
	at := func(v float64) time.Time { return origin.Add(time.Duration(v * float64(time.Millisecond))) }
	return at(w.FirstProbeMs), at(w.LastProbeEndMs)
}
