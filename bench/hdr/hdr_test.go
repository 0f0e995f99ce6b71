package hdr

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The histogram's quantiles must agree with the exact quantiles of the same
// values to within the stated 0.1%, over values spread across many powers of two.
func TestQuantilesMatchExactWithinPrecision(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	h := New()
	var vals []int64
	for range 200000 {
		// log-uniform from 100 ns to ~100 s
		v := int64(100 * float64(uint64(1)<<r.IntN(30)) * (1 + r.Float64()))
		vals = append(vals, v)
		h.Record(time.Duration(v))
	}
	slices.Sort(vals)
	for _, q := range []float64{0.01, 0.5, 0.9, 0.95, 0.99, 0.999} {
		rank := int(float64(len(vals))*q+0.999999) - 1
		exact := vals[rank]
		got := int64(h.Quantile(q))
		if got < exact || float64(got-exact) > float64(exact)/1024+1 {
			t.Errorf("q%.3f: got %d, exact %d (off by %.4f%%)", q, got, exact, 100*float64(got-exact)/float64(exact))
		}
	}
	if h.Max() != time.Duration(vals[len(vals)-1]) || h.Min() != time.Duration(vals[0]) {
		t.Errorf("min/max %v/%v, want %v/%v", h.Min(), h.Max(), vals[0], vals[len(vals)-1])
	}
	if h.Count() != uint64(len(vals)) {
		t.Errorf("count %d", h.Count())
	}
}

// Merging per-visitor histograms must give the same histogram as recording
// everything in one.
func TestMergeEqualsSingle(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	all := New()
	parts := []*Histogram{New(), New(), New()}
	for i := range 30000 {
		v := time.Duration(r.Int64N(int64(5 * time.Second)))
		all.Record(v)
		parts[i%3].Record(v)
	}
	m := New()
	for _, p := range parts {
		m.Merge(p)
	}
	for _, q := range []float64{0.1, 0.5, 0.99, 1} {
		if m.Quantile(q) != all.Quantile(q) {
			t.Errorf("q%v: merged %v, single %v", q, m.Quantile(q), all.Quantile(q))
		}
	}
	if m.Count() != all.Count() || m.Mean() != all.Mean() {
		t.Errorf("count/mean %d/%v vs %d/%v", m.Count(), m.Mean(), all.Count(), all.Mean())
	}
}

func TestClampAndEdges(t *testing.T) {
	h := New()
	if h.Quantile(0.5) != 0 || h.Max() != 0 {
		t.Fatal("empty histogram must report 0")
	}
	h.Record(-5)
	h.Record(time.Duration(MaxValue) * 4)
	if h.Clamped() != 1 || h.Max() != time.Duration(MaxValue) || h.Min() != 0 {
		t.Errorf("clamped=%d max=%v min=%v", h.Clamped(), h.Max(), h.Min())
	}
	h2 := New()
	h2.Record(1500 * time.Millisecond)
	h2.Record(2 * time.Millisecond)
	if n := h2.CountAtOrAbove(time.Second); n != 1 {
		t.Errorf("CountAtOrAbove(1s) = %d, want 1", n)
	}
}

func BenchmarkRecord(b *testing.B) {
	h := New()
	for i := 0; b.Loop(); i++ {
		h.Record(time.Duration(50000 + i%100000))
	}
}
