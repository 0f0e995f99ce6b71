package compare

import (
	"math"
	"testing"
)

// Known p-values. The first row is scipy's documented example
// (scipy.stats.mannwhitneyu(males, females): exact 0.1111111111111111,
// method="asymptotic" 0.11134688653314041); the others were counted apart
// from this code, by enumerating every split of the pooled values
// (itertools.combinations) for exact, and scipy's asymptotic formula with
// tie and continuity correction for normal.
var known = []struct {
	name         string
	a, b         []float64
	u            float64
	exact, norml float64
}{
	{"scipy docs", []float64{19, 22, 16, 29, 24}, []float64{20, 11, 17, 12}, 17, 1.0 / 9, 0.11134688653314041},
	{"5 vs 5 apart", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 0, 2.0 / 252, 0.012185780355344818},
	{"2 vs 2 apart", []float64{1, 2}, []float64{3, 4}, 0, 1.0 / 3, 0.24527811680677286},
	{"3 vs 4 apart", []float64{1, 2, 3}, []float64{4, 5, 6, 7}, 0, 2.0 / 35, 0.051829927217909716},
	{"ties across", []float64{1, 2, 2, 3, 4}, []float64{2, 3, 3, 5, 6}, 6, 0.21428571428571427, 0.19882894401644238},
	{"ties 4 vs 4", []float64{1, 1, 2, 2}, []float64{2, 3, 3, 3}, 1, 0.08571428571428572, 0.04705744628217288},
	{"all equal", []float64{7, 7, 7}, []float64{7, 7, 7}, 4.5, 1, 1},
	{"identical sets", []float64{1000, 1010, 990, 1005, 995}, []float64{995, 1005, 1000, 990, 1010}, 12.5, 1, 1},
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestMannWhitneyKnown(t *testing.T) {
	for _, c := range known {
		e := exactU(c.a, c.b)
		if e.U != c.u || !close(e.P, c.exact) {
			t.Errorf("%s: exact U=%v p=%.17g, want U=%v p=%.17g", c.name, e.U, e.P, c.u, c.exact)
		}
		n := normalU(c.a, c.b)
		if n.U != c.u || !close(n.P, c.norml) {
			t.Errorf("%s: normal U=%v p=%.17g, want U=%v p=%.17g", c.name, n.U, n.P, c.u, c.norml)
		}
		// Small samples take the exact path; the test is symmetric.
		if m := MannWhitney(c.a, c.b); !m.Exact || m.P != e.P {
			t.Errorf("%s: MannWhitney = %+v, want the exact p %v", c.name, m, e.P)
		}
		if r := MannWhitney(c.b, c.a); !close(r.P, e.P) || r.U != float64(len(c.a)*len(c.b))-c.u {
			t.Errorf("%s: swapped: %+v, want p %v", c.name, r, e.P)
		}
	}
}

// Above ExactLimit per side the normal approximation is used (values
// from scipy's asymptotic formula, as above).
func TestMannWhitneyLarge(t *testing.T) {
	var a, b, c, d []float64
	for i := 1; i <= 21; i++ {
		a = append(a, float64(i))
		b = append(b, float64(i)+5.5)
	}
	for i := 0; i < 25; i++ {
		c = append(c, float64(i/3)) // ties of three
	}
	for i := 0; i < 22; i++ {
		d = append(d, float64(i/3+2))
	}
	for _, x := range []struct {
		a, b []float64
		u, p float64
	}{{a, b, 120, 0.011883872063715788}, {c, d, 181.5, 0.04593762863686585}} {
		got := MannWhitney(x.a, x.b)
		if got.Exact || got.U != x.u || !close(got.P, x.p) {
			t.Errorf("%d vs %d: %+v, want normal U=%v p=%.17g", len(x.a), len(x.b), got, x.u, x.p)
		}
	}
}

// The exact count agrees with enumerating every split, ties included, for
// every way of filling two small samples from a few values.
func TestExactMatchesEnumeration(t *testing.T) {
	vals := []float64{1, 2, 2, 3}
	for na := 1; na <= 4; na++ {
		for nb := 1; nb <= 3; nb++ {
			n := na + nb
			for code := 0; code < pow(len(vals), n); code++ {
				pool := make([]float64, n)
				c := code
				for i := range pool {
					pool[i] = vals[c%len(vals)]
					c /= len(vals)
				}
				a, b := pool[:na], pool[na:]
				want := enumerate(a, b)
				if got := exactU(a, b).P; !close(got, want) {
					t.Fatalf("%v vs %v: p=%v, enumeration %v", a, b, got, want)
				}
			}
		}
	}
}

func pow(b, e int) int {
	r := 1
	for range e {
		r *= b
	}
	return r
}

// enumerate is the two-sided p by brute force: U of a against b for every
// subset of the pool of a's size.
func enumerate(a, b []float64) float64 {
	pool := append(append([]float64{}, a...), b...)
	u := func(x, y []float64) float64 {
		var s float64
		for _, p := range x {
			for _, q := range y {
				switch {
				case p > q:
					s++
				case p == q:
					s += 0.5
				}
			}
		}
		return s
	}
	obs := u(a, b)
	var lo, hi, tot float64
	splits(pool, len(a), func(x, y []float64) {
		tot++
		if v := u(x, y); v <= obs {
			lo++
		}
		if v := u(x, y); v >= obs {
			hi++
		}
	})
	return math.Min(1, 2*math.Min(lo, hi)/tot)
}

// splits calls f with every split of pool into x of na values and y of the rest.
func splits(pool []float64, na int, f func(x, y []float64)) {
	for mask := 0; mask < 1<<len(pool); mask++ {
		var x, y []float64
		for i, v := range pool {
			if mask&(1<<i) != 0 {
				x = append(x, v)
			} else {
				y = append(y, v)
			}
		}
		if len(x) == na {
			f(x, y)
		}
	}
}

func TestMinPAndNeedReps(t *testing.T) {
	for _, c := range []struct {
		na, nb int
		p      float64
	}{{1, 1, 1}, {2, 2, 1.0 / 3}, {3, 3, 0.1}, {3, 4, 2.0 / 35}, {3, 5, 2.0 / 56}, {4, 4, 2.0 / 70}, {5, 5, 2.0 / 252}, {0, 5, 1}} {
		if got := MinP(c.na, c.nb); !close(got, c.p) {
			t.Errorf("MinP(%d, %d) = %v, want %v", c.na, c.nb, got, c.p)
		}
		// MinP is what the exact test gives two samples split apart.
		if c.na > 0 && c.nb > 0 {
			var a, b []float64
			for i := range c.na {
				a = append(a, float64(i))
			}
			for i := range c.nb {
				b = append(b, float64(100+i))
			}
			if got := exactU(a, b).P; !close(got, c.p) {
				t.Errorf("exact p of %d vs %d apart = %v, want %v", c.na, c.nb, got, c.p)
			}
		}
	}
	if n := NeedReps(0.05); n != 4 {
		t.Errorf("NeedReps(0.05) = %d, want 4 (3 vs 3 gives at best 0.1, 4 vs 4 0.029)", n)
	}
	if n := NeedReps(0.01); n != 5 {
		t.Errorf("NeedReps(0.01) = %d, want 5 (4 vs 4 gives at best 0.029, 5 vs 5 0.0079)", n)
	}
}

// ChanceSignificant is the share of all splits of the pooled values into
// samples of a's and b's sizes whose p (by brute force) is below alpha:
// for two samples of 5 apart, 8 of 252 splits (U of 0, 1 or 2 on either
// side); none for one value throughout or for samples too small to reach
// alpha; and it is the same whichever split the pool arrived in.
func TestChanceSignificantMatchesEnumeration(t *testing.T) {
	five := func(base float64) []float64 { return []float64{base, base + 1, base + 2, base + 3, base + 4} }
	for _, c := range []struct {
		a, b []float64
		want float64
	}{
		{five(0), five(100), 8.0 / 252},
		{five(0), five(0.5), 8.0 / 252},
		{[]float64{3, 3, 3, 3, 3}, []float64{3, 3, 3, 3, 3}, 0},
		{[]float64{1, 2}, []float64{3, 4}, 0},
		{[]float64{0, 0, 0, 1, 1}, []float64{0, 1, 1, 1, 2}, -1}, // ties: by enumeration only
	} {
		pool := append(append([]float64{}, c.a...), c.b...)
		var below, tot float64
		splits(pool, len(c.a), func(x, y []float64) {
			tot++
			if enumerate(x, y) < 0.05 {
				below++
			}
		})
		got := ChanceSignificant(c.a, c.b, 0.05)
		if !close(got, below/tot) || (c.want >= 0 && !close(got, c.want)) {
			t.Errorf("ChanceSignificant(%v, %v) = %v; enumeration %v, want %v", c.a, c.b, got, below/tot, c.want)
		}
	}
}
