// Package hdr is a small log-linear (HDR-style) histogram of durations.
//
// Values are nanoseconds. Below 2048 ns every value has its own bucket; above,
// each power of two is split into 1024 linear buckets, so any recorded value is
// known to within 1/1024 (about 0.1%, three significant digits), whatever its
// size. Buckets are allocated a power of two at a time, on first use, so a
// histogram that sees only a narrow range of values (a visitor on loopback)
// costs a few kilobytes, and thousands of them fit in memory.
//
// A Histogram is not safe for concurrent use: keep one per goroutine (visitor)
// and Merge them at the end, as HdrHistogram's users do.
package hdr

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"time"
)

const (
	subBits  = 11
	subCount = 1 << subBits // 2048: level 0 holds 0..2047 exactly
	halfSub  = subCount / 2 // 1024 buckets per level above 0
	// MaxValue is the largest value kept exactly to the bucket; larger values
	// are clamped to it (and counted in Clamped). 2^40 ns is about 18 minutes.
	maxBitLen = 40
	MaxValue  = int64(1)<<maxBitLen - 1
	levels    = maxBitLen - subBits + 1 // level 0 plus one per power of two above 2047
)

// Histogram counts durations.
type Histogram struct {
	lv      [levels][]uint64
	count   uint64
	sum     float64 // ns, for the mean
	min     int64
	max     int64
	clamped uint64
}

// New returns an empty histogram.
func New() *Histogram { return &Histogram{min: math.MaxInt64} }

// index returns the level and the bucket within it of v (0 <= v <= MaxValue).
func index(v int64) (int, int) {
	if v < subCount {
		return 0, int(v)
	}
	shift := bits.Len64(uint64(v)) - subBits // >= 1
	return shift, int(v>>uint(shift)) - halfSub
}

// bounds returns the lowest and highest value of a bucket.
func bounds(level, i int) (lo, hi int64) {
	if level == 0 {
		return int64(i), int64(i)
	}
	lo = int64(i+halfSub) << uint(level)
	return lo, lo + int64(1)<<uint(level) - 1
}

// Record adds one value (negative values count as 0).
func (h *Histogram) Record(d time.Duration) { h.RecordN(int64(d), 1) }

// RecordN adds n copies of v nanoseconds.
func (h *Histogram) RecordN(v int64, n uint64) {
	if n == 0 {
		return
	}
	if v < 0 {
		v = 0
	}
	if v > MaxValue {
		v = MaxValue
		h.clamped += n
	}
	l, i := index(v)
	if h.lv[l] == nil {
		size := halfSub
		if l == 0 {
			size = subCount
		}
		h.lv[l] = make([]uint64, size)
	}
	h.lv[l][i] += n
	h.count += n
	h.sum += float64(v) * float64(n)
	if v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
}

// Merge adds every count of o to h.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || o.count == 0 {
		return
	}
	for l := range o.lv {
		if o.lv[l] == nil {
			continue
		}
		if h.lv[l] == nil {
			h.lv[l] = make([]uint64, len(o.lv[l]))
		}
		for i, c := range o.lv[l] {
			h.lv[l][i] += c
		}
	}
	h.count += o.count
	h.sum += o.sum
	h.clamped += o.clamped
	if o.min < h.min {
		h.min = o.min
	}
	if o.max > h.max {
		h.max = o.max
	}
}

// Count is the number of recorded values.
func (h *Histogram) Count() uint64 { return h.count }

// Clamped is how many values were above MaxValue and recorded as MaxValue.
func (h *Histogram) Clamped() uint64 { return h.clamped }

// Max is the largest recorded value, exact.
func (h *Histogram) Max() time.Duration {
	if h.count == 0 {
		return 0
	}
	return time.Duration(h.max)
}

// Min is the smallest recorded value, exact.
func (h *Histogram) Min() time.Duration {
	if h.count == 0 {
		return 0
	}
	return time.Duration(h.min)
}

// Mean is the exact mean of the recorded values.
func (h *Histogram) Mean() time.Duration {
	if h.count == 0 {
		return 0
	}
	return time.Duration(h.sum / float64(h.count))
}

// Quantile returns the value at quantile q (0..1): the highest value of the
// bucket holding the ceil(q*count)-th smallest value, capped at Max (so it
// is never below the true value and at most 0.1% above it). Quantile(1) is Max.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.count == 0 {
		return 0
	}
	if q <= 0 {
		return time.Duration(h.min)
	}
	if q >= 1 {
		return time.Duration(h.max)
	}
	rank := uint64(math.Ceil(q * float64(h.count)))
	if rank == 0 {
		rank = 1
	}
	var seen uint64
	for l := range h.lv {
		for i, c := range h.lv[l] {
			if c == 0 {
				continue
			}
			seen += c
			if seen >= rank {
				_, hi := bounds(l, i)
				if hi > h.max {
					hi = h.max
				}
				if hi < h.min {
					hi = h.min
				}
				return time.Duration(hi)
			}
		}
	}
	return time.Duration(h.max)
}

// CountAtOrAbove returns how many recorded values are >= v (to bucket precision:
// a bucket counts when its lowest value is >= v).
func (h *Histogram) CountAtOrAbove(d time.Duration) uint64 {
	var n uint64
	for l := range h.lv {
		for i, c := range h.lv[l] {
			if c == 0 {
				continue
			}
			if lo, _ := bounds(l, i); lo >= int64(d) {
				n += c
			}
		}
	}
	return n
}

// Bucket is one non-empty bucket: values in [Lo, Hi] were seen Count times.
type Bucket struct {
	Lo, Hi time.Duration
	Count  uint64
}

// Buckets lists the non-empty buckets in increasing order.
func (h *Histogram) Buckets() []Bucket {
	var out []Bucket
	for l := range h.lv {
		for i, c := range h.lv[l] {
			if c == 0 {
				continue
			}
			lo, hi := bounds(l, i)
			out = append(out, Bucket{time.Duration(lo), time.Duration(hi), c})
		}
	}
	return out
}

// wire is a histogram as JSON: exact (every non-empty bucket's count, the
// exact sum, min and max), compact (empty buckets and levels left out), so
// a load generator's histograms can cross to the machine that merges them.
type wire struct {
	Count   uint64      `json:"count"`
	SumNs   float64     `json:"sum_ns"`
	MinNs   int64       `json:"min_ns"`
	MaxNs   int64       `json:"max_ns"`
	Clamped uint64      `json:"clamped,omitempty"`
	Levels  []wireLevel `json:"levels,omitempty"`
}

// wireLevel is one level's non-empty buckets: Index[k] was seen Count[k] times.
type wireLevel struct {
	Level int      `json:"level"`
	Index []int    `json:"index"`
	Count []uint64 `json:"count"`
}

// MarshalJSON writes h exactly (see wire); UnmarshalJSON reads it back.
func (h *Histogram) MarshalJSON() ([]byte, error) {
	w := wire{Count: h.count, SumNs: h.sum, MinNs: h.min, MaxNs: h.max, Clamped: h.clamped}
	if h.count == 0 {
		w.MinNs = 0
	}
	for l := range h.lv {
		var wl wireLevel
		for i, c := range h.lv[l] {
			if c != 0 {
				wl.Index, wl.Count = append(wl.Index, i), append(wl.Count, c)
			}
		}
		if len(wl.Index) > 0 {
			wl.Level = l
			w.Levels = append(w.Levels, wl)
		}
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads what MarshalJSON wrote; buckets out of range or
// counts that do not add up to Count are an error, never a wrong histogram.
func (h *Histogram) UnmarshalJSON(b []byte) error {
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	n := New()
	var total uint64
	for _, wl := range w.Levels {
		if wl.Level < 0 || wl.Level >= levels || len(wl.Index) != len(wl.Count) {
			return fmt.Errorf("hdr: level %d: bad level or %d indexes for %d counts", wl.Level, len(wl.Index), len(wl.Count))
		}
		size := halfSub
		if wl.Level == 0 {
			size = subCount
		}
		if n.lv[wl.Level] == nil {
			n.lv[wl.Level] = make([]uint64, size)
		}
		for k, i := range wl.Index {
			if i < 0 || i >= size {
				return fmt.Errorf("hdr: level %d: bucket %d out of range", wl.Level, i)
			}
			n.lv[wl.Level][i] += wl.Count[k]
			total += wl.Count[k]
		}
	}
	if total != w.Count {
		return fmt.Errorf("hdr: buckets hold %d values, count says %d", total, w.Count)
	}
	n.count, n.sum, n.clamped = w.Count, w.SumNs, w.Clamped
	if w.Count > 0 {
		n.min, n.max = w.MinNs, w.MaxNs
	}
	*h = *n
	return nil
}
