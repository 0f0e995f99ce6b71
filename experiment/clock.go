package experiment

import "time"

// ClockOffset is how far a machine's clock is from the clock of the host
// running wptest, measured over SSH before the run (scale issue, point 2):
// the machine's time minus ours, within ±Uncertainty (half the round trip
// of the fastest exchange).
type ClockOffset struct {
	Host          string  `json:"host"`
	OffsetMs      float64 `json:"offset_ms"`
	UncertaintyMs float64 `json:"uncertainty_ms"`
	RoundTrips    int     `json:"round_trips"`
}

// Offset is OffsetMs as a duration.
func (c ClockOffset) Offset() time.Duration {
	return time.Duration(c.OffsetMs * float64(time.Millisecond))
}

// ourTime turns a time read on machine's clock into the controlling
// host's clock. A machine not measured (this process, the local driver)
// is taken as ours.
func (r *runner) ourTime(machine string, t time.Time) time.Time {
	for _, c := range r.man.Clocks {
		if c.Host == machine {
			return t.Add(-c.Offset())
		}
	}
	return t
}

// theirTime is ourTime's inverse: a time on our clock as machine reads it
// (an agreed start time sent to a load generator).
func (r *runner) theirTime(machine string, t time.Time) time.Time {
	for _, c := range r.man.Clocks {
		if c.Host == machine {
			return t.Add(c.Offset())
		}
	}
	return t
}
