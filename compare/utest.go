package compare

import (
	"math"
	"sort"
)

// ExactLimit is the largest sample (per side) whose p-value is counted
// exactly, over every way of splitting the pooled values into two groups of
// the samples' sizes; above it the normal approximation is used.
const ExactLimit = 20

// UTest is a two-sided Mann–Whitney U test of a against b.
type UTest struct {
	NA, NB int
	// U is the statistic of a: the number of pairs (x from a, y from b)
	// with x > y, ties counting one half.
	U float64
	P float64
	// Exact says P was counted over the exact distribution (ties kept as
	// midranks) rather than the normal approximation.
	Exact bool
}

// MannWhitney tests whether a and b come from distributions with the same
// location. Samples of at most ExactLimit each get an exact p (ties
// included: the permutation distribution of the midrank sum); larger ones
// the normal approximation with tie and continuity correction (scipy's
// mannwhitneyu method="asymptotic", benchstat's). With an empty side P is 1.
func MannWhitney(a, b []float64) UTest {
	if len(a) <= ExactLimit && len(b) <= ExactLimit {
		return exactU(a, b)
	}
	return normalU(a, b)
}

// midranks ranks the pooled sample (1-based, ties their mean rank) and
// returns a's rank sum, every value's rank and the tie groups' sizes.
func midranks(a, b []float64) (ra float64, ranks []float64, ties []int) {
	type v struct {
		x float64
		a bool
	}
	all := make([]v, 0, len(a)+len(b))
	for _, x := range a {
		all = append(all, v{x, true})
	}
	for _, x := range b {
		all = append(all, v{x, false})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].x < all[j].x })
	ranks = make([]float64, len(all))
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].x == all[i].x {
			j++
		}
		r := float64(i+1+j) / 2 // mean of ranks i+1 .. j
		for k := i; k < j; k++ {
			ranks[k] = r
			if all[k].a {
				ra += r
			}
		}
		ties = append(ties, j-i)
		i = j
	}
	return ra, ranks, ties
}

func uOf(ra float64, na int) float64 { return ra - float64(na)*float64(na+1)/2 }

// exactU counts, for every choice of len(a) of the pooled values, the sum
// of their (doubled, so integer) midranks, and takes the share of choices
// at least as far out as a's on each side.
func exactU(a, b []float64) UTest {
	na, nb := len(a), len(b)
	t := UTest{NA: na, NB: nb, P: 1, Exact: true}
	if na == 0 || nb == 0 {
		return t
	}
	ra, ranks, _ := midranks(a, b)
	t.U = uOf(ra, na)
	t.P = rankSums(ranks, na).p(int(math.Round(2 * ra)))
	return t
}

// rankSumDist is the permutation distribution of a sample's doubled
// midrank sum: ways[s] of the choices of na of the pooled values sum to s.
type rankSumDist struct {
	ways  []uint64
	total uint64
}

// rankSums counts, for every choice of na of the pooled values with
// these midranks, the sum of their doubled (so integer) ranks.
func rankSums(ranks []float64, na int) rankSumDist {
	maxW := 0
	for _, r := range ranks {
		maxW += int(2 * r)
	}
	// ways[k][s]: subsets of k of the values seen so far with doubled rank sum s.
	ways := make([][]uint64, na+1)
	for k := range ways {
		ways[k] = make([]uint64, maxW+1)
	}
	ways[0][0] = 1
	for i, r := range ranks {
		d := int(2 * r)
		for k := min(i+1, na); k >= 1; k-- {
			for s := maxW; s >= d; s-- {
				ways[k][s] += ways[k-1][s-d]
			}
		}
	}
	dist := rankSumDist{ways: ways[na]}
	for _, c := range dist.ways {
		dist.total += c
	}
	return dist
}

// p is the two-sided p of the doubled rank sum w: twice the share of
// choices at least as far out on w's nearer side.
func (d rankSumDist) p(w int) float64 {
	var lo, hi uint64
	for s, c := range d.ways {
		if s <= w {
			lo += c
		}
		if s >= w {
			hi += c
		}
	}
	return math.Min(1, 2*float64(min(lo, hi))/float64(d.total))
}

// ChanceSignificant is the probability that a and b's test gives p <
// alpha when nothing differs between the two runs: the share of the ways
// of splitting their pooled values into samples of their sizes (ties as
// they are) that reach it. Two samples of 5 without ties: 0.032; any
// sample of one value throughout: 0. Above ExactLimit, alpha.
func ChanceSignificant(a, b []float64, alpha float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if len(a) > ExactLimit || len(b) > ExactLimit {
		return alpha
	}
	_, ranks, _ := midranks(a, b)
	d := rankSums(ranks, len(a))
	var below uint64
	for s, c := range d.ways {
		if c > 0 && d.p(s) < alpha {
			below += c
		}
	}
	return float64(below) / float64(d.total)
}

// normalU is the normal approximation with tie and continuity correction.
func normalU(a, b []float64) UTest {
	na, nb := len(a), len(b)
	t := UTest{NA: na, NB: nb, P: 1}
	if na == 0 || nb == 0 {
		return t
	}
	ra, _, ties := midranks(a, b)
	t.U = uOf(ra, na)
	n := float64(na + nb)
	var tc float64
	for _, k := range ties {
		tc += float64(k)*float64(k)*float64(k) - float64(k)
	}
	sigma := math.Sqrt(float64(na) * float64(nb) / 12 * ((n + 1) - tc/(n*(n-1))))
	if sigma == 0 { // every value the same
		return t
	}
	z := (math.Abs(t.U-float64(na)*float64(nb)/2) - 0.5) / sigma
	t.P = math.Min(1, math.Erfc(z/math.Sqrt2))
	return t
}

// MinP is the smallest two-sided p the exact test can give for samples of
// na and nb: both split apart, 2 / C(na+nb, na).
func MinP(na, nb int) float64 {
	if na == 0 || nb == 0 {
		return 1
	}
	c := 1.0
	for i := 1; i <= na; i++ {
		c = c * float64(nb+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// NeedReps is the fewest repetitions per run (the same in both) with which
// the test can reach p < alpha.
func NeedReps(alpha float64) int {
	n := 1
	for MinP(n, n) >= alpha {
		n++
	}
	return n
}
