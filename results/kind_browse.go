package results

import "time"

// BrowseSpec is what a browse scenario has beyond the common attributes:
// the most connections a visitor opens over h1 (h2, h2c and h3 use one,
// multiplexed), and the visitor's pause between page views.
type BrowseSpec struct {
	Conns int
	Think time.Duration
}
