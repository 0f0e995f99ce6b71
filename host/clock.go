package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Clock is how far a host's realtime clock is from this process's.
type Clock struct {
	// Offset is the host's time minus ours.
	Offset time.Duration
	// Uncertainty bounds the error of Offset: half the round trip of the
	// exchange it comes from (the host read its clock somewhere in it).
	Uncertainty time.Duration
	// Rounds is the number of exchanges made.
	Rounds int
}

// clockScript answers each line it reads with the host's realtime clock,
// "SECONDS.NANOSECONDS " (GNU date; no agent needed). One session answers
// every round, so the session's set-up is in none of them; a space, not a
// newline, ends each answer so the host log gets one line of readings, not
// one per round.
const clockScript = `while read -r _; do printf '%s ' "$(date +%s.%N)"; done`

// MeasureClock measures h's clock offset from this process's: rounds
// exchanges over one session, each (t_send, remote, t_recv); offset =
// remote − (t_send+t_recv)/2 of the one with the shortest round trip,
// which has the smallest uncertainty (half its round trip).
func MeasureClock(ctx context.Context, h Host, rounds int) (Clock, error) {
	if rounds < 1 {
		return Clock{}, fmt.Errorf("clock of %s: %d rounds", h.Name(), rounds)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inR, inW := io.Pipe()
	ans := &clockAnswers{c: make(chan clockAnswer, rounds+1)}
	// ended closes once the session is over (runErr set): a closed
	// channel, so both the rounds and the wait below see it (a value sent
	// once, taken by a round that saw the session end, left the wait
	// blocked for ever).
	var runErr error
	ended := make(chan struct{})
	go func() {
		_, runErr = h.Run(ctx, Cmd{Script: clockScript, Stdin: inR, Stdout: ans, Label: "clock", Timeout: time.Minute})
		inR.CloseWithError(errors.New("clock session ended"))
		close(ended)
	}()
	c, err := clockRounds(ctx, inW, ans.c, ended, &runErr, rounds)
	inW.Close() // the remote loop reads EOF and ends
	if err != nil {
		cancel()
		<-ended
		return Clock{}, fmt.Errorf("clock of %s: %w", h.Name(), err)
	}
	if <-ended; runErr != nil {
		return Clock{}, fmt.Errorf("clock of %s: %w", h.Name(), runErr)
	}
	return c, nil
}

// clockRounds makes the exchanges and keeps the fastest.
func clockRounds(ctx context.Context, in io.Writer, answers <-chan clockAnswer, ended <-chan struct{}, runErr *error, rounds int) (Clock, error) {
	best := Clock{Rounds: rounds, Uncertainty: -1}
	for i := 0; i < rounds; i++ {
		sent := time.Now()
		if _, err := io.WriteString(in, "\n"); err != nil {
			return Clock{}, fmt.Errorf("round %d: send: %w", i+1, err)
		}
		var a clockAnswer
		select {
		case a = <-answers:
		case <-ended:
			return Clock{}, fmt.Errorf("round %d: the session ended before its answer: %v", i+1, *runErr)
		case <-ctx.Done():
			return Clock{}, fmt.Errorf("round %d: %w", i+1, ctx.Err())
		}
		if a.err != nil {
			return Clock{}, fmt.Errorf("round %d: %w", i+1, a.err)
		}
		rtt := a.at.Sub(sent) // monotonic
		if best.Uncertainty < 0 || rtt/2 < best.Uncertainty {
			mid := sent.Add(rtt / 2)
			best.Offset = a.remote.Sub(mid.Round(0)) // wall clocks
			best.Uncertainty = rtt / 2
		}
	}
	return best, nil
}

// clockAnswer is one reading of the host's clock and when it arrived.
type clockAnswer struct {
	remote time.Time
	at     time.Time
	err    error
}

// clockAnswers is the session's stdout: it stamps each answer as it
// arrives (the SSH transport's goroutine calls Write), so the round trip
// has no scheduling of a reader of ours in it.
type clockAnswers struct {
	mu      sync.Mutex
	partial []byte
	c       chan clockAnswer
}

func (w *clockAnswers) Write(p []byte) (int, error) {
	at := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		s := strings.TrimLeft(string(w.partial), " \n")
		tok, rest, ok := strings.Cut(s, " ")
		if !ok {
			w.partial = []byte(s)
			return len(p), nil
		}
		w.partial = []byte(rest)
		remote, err := parseClock(tok)
		select {
		case w.c <- clockAnswer{remote: remote, at: at, err: err}:
		default: // more answers than questions: not ours to read
		}
	}
}

// parseClock reads date's "SECONDS.NANOSECONDS" exactly (a float64 would
// lose the nanoseconds).
func parseClock(s string) (time.Time, error) {
	sec, ns, ok := strings.Cut(s, ".")
	if !ok || len(ns) != 9 {
		return time.Time{}, fmt.Errorf("the host's date printed %q for +%%s.%%N: it needs GNU date (nanoseconds)", s)
	}
	a, err1 := strconv.ParseInt(sec, 10, 64)
	b, err2 := strconv.ParseInt(ns, 10, 64)
	if err1 != nil || err2 != nil {
		return time.Time{}, fmt.Errorf("the host's date printed %q for +%%s.%%N", s)
	}
	return time.Unix(a, b), nil
}
