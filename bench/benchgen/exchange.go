package benchgen

import (
	"context"
	"time"
)

// exchanger is a hand-written HTTP connection (h1, h2) as runAttempt drives
// it: what differs between the versions is how a request is sent and its
// answer read, not when a connection is made, kept or given up.
type exchanger interface {
	connected() bool
	// unusable: the kept connection must not carry the next request (found
	// before anything is sent, so it counts as a keep-alive close).
	unusable(now time.Time) bool
	dial(ctx context.Context, deadline time.Time) error
	// exchange sends a's request on the connection and reads its answer,
	// setting a.end once it is read. unsent: the kept connection was found
	// closed before the request left (retried on a new one); ph: the phase
	// err failed in. The connection may be closed after a good answer.
	exchange(a *attempt, deadline, now time.Time) (unsent bool, ph phase, err error)
	close()
	release(always bool) // readBuf's
}

// runAttempt makes attempt a on c: on its kept connection, unless that one
// is unusable or turns out closed before the request left (a keep-alive
// close, and the attempt goes out on a new connection), else on a new one.
// A failed attempt closes the connection. The read buffer goes back to
// the pool after the answer, unless it holds bytes nobody asked for.
func runAttempt(c exchanger, ctx context.Context, deadline time.Time, a *attempt) {
	defer c.release(false)
	now := time.Now()
	if c.connected() && c.unusable(now) {
		c.close()
		a.kaCloseBefore = true
	}
	for {
		if !c.connected() {
			t0 := time.Now()
			if err := c.dial(ctx, deadline); err != nil {
				a.fail(err, phaseDial)
				return
			}
			a.newConn, a.connect = true, time.Since(t0)
		} else {
			a.reused = true
		}
		unsent, ph, err := c.exchange(a, deadline, now)
		if unsent && !a.newConn {
			c.close()
			a.kaCloseBefore, a.reused, a.end = true, false, time.Time{}
			continue
		}
		if err != nil {
			a.fail(err, ph)
			c.close()
			return
		}
		a.finish()
		return
	}
}

// readPhase is where a failed read stopped: in the head until that came,
// then in the body.
func (a *attempt) readPhase() phase {
	if a.gotHead {
		return phaseBody
	}
	return phaseHead
}
