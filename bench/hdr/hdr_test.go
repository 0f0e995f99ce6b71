package hdr

import (
	"encoding/json"
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

// Load generators each send their histograms as JSON; merging what arrives
// must give the histogram of all their samples in one, whatever the
// distribution and however the samples were split between them.
func TestMergeOfSerialisedPartsEqualsOneHistogram(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	cases := []struct {
		name  string
		parts int
		n     int
		value func(i int) int64
		part  func(i int) int // which generator saw sample i
	}{
		{"uniform 0-5s round robin", 2, 20000, func(int) int64 { return r.Int64N(int64(5 * time.Second)) }, func(i int) int { return i % 2 }},
		{"log-uniform 100ns-100s random split", 3, 30000,
			func(int) int64 { return int64(100 * float64(uint64(1)<<r.IntN(30)) * (1 + r.Float64())) }, func(int) int { return r.IntN(3) }},
		{"bimodal: fast on one, slow on the other", 2, 10000,
			func(i int) int64 {
				if i%2 == 0 {
					return 200*int64(time.Microsecond) + r.Int64N(1000)
				}
				return 3*int64(time.Second) + r.Int64N(int64(time.Millisecond))
			}, func(i int) int { return i % 2 }},
		{"uneven split, one part empty", 3, 5000, func(int) int64 { return r.Int64N(2048) }, func(i int) int { return min(i%10, 1) }},
		{"clamped values", 2, 1000, func(i int) int64 { return MaxValue - 500 + int64(i) }, func(i int) int { return i % 2 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			all := New()
			parts := make([]*Histogram, c.parts)
			for i := range parts {
				parts[i] = New()
			}
			for i := range c.n {
				v := time.Duration(c.value(i))
				all.Record(v)
				parts[c.part(i)].Record(v)
			}
			m := New()
			for _, p := range parts {
				b, err := json.Marshal(p)
				if err != nil {
					t.Fatal(err)
				}
				var got Histogram
				if err := json.Unmarshal(b, &got); err != nil {
					t.Fatalf("%s: %v", b, err)
				}
				m.Merge(&got)
			}
			for _, q := range []float64{0, 0.5, 0.9, 0.99, 0.999, 1} {
				if m.Quantile(q) != all.Quantile(q) {
					t.Errorf("q%v: merged %v, one histogram %v", q, m.Quantile(q), all.Quantile(q))
				}
			}
			if m.Count() != all.Count() || m.Max() != all.Max() || m.Min() != all.Min() || m.Mean() != all.Mean() || m.Clamped() != all.Clamped() {
				t.Errorf("count/min/max/mean/clamped %d/%v/%v/%v/%d, one histogram %d/%v/%v/%v/%d", m.Count(), m.Min(), m.Max(), m.Mean(), m.Clamped(),
					all.Count(), all.Min(), all.Max(), all.Mean(), all.Clamped())
			}
			if !slices.Equal(m.Buckets(), all.Buckets()) {
				t.Errorf("buckets differ")
			}
		})
	}
}

// An empty histogram survives JSON as an empty one (min not MaxInt64 on
// the wire, and Merge of it changes nothing).
func TestEmptyHistogramJSON(t *testing.T) {
	b, err := json.Marshal(New())
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"count":0,"sum_ns":0,"min_ns":0,"max_ns":0}` {
		t.Errorf("empty: %s", b)
	}
	var e Histogram
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	h := New()
	h.Record(5 * time.Millisecond)
	h.Merge(&e)
	if h.Min() != 5*time.Millisecond || h.Count() != 1 {
		t.Errorf("merging an empty histogram from JSON changed min %v count %d", h.Min(), h.Count())
	}
}

// Damaged JSON is an error, not a histogram with wrong percentiles.
func TestHistogramJSONRejectsDamage(t *testing.T) {
	for _, s := range []string{
		`{"count":2,"sum_ns":3,"min_ns":1,"max_ns":2,"levels":[{"level":0,"index":[1],"count":[1]}]}`,
		`{"count":1,"sum_ns":1,"min_ns":1,"max_ns":1,"levels":[{"level":0,"index":[4096],"count":[1]}]}`,
		`{"count":1,"sum_ns":1,"min_ns":1,"max_ns":1,"levels":[{"level":99,"index":[1],"count":[1]}]}`,
		`{"count":1,"sum_ns":1,"min_ns":1,"max_ns":1,"levels":[{"level":1,"index":[1,2],"count":[1]}]}`,
	} {
		var h Histogram
		if err := json.Unmarshal([]byte(s), &h); err == nil {
			t.Errorf("%s: accepted", s)
		}
	}
}
