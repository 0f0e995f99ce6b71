package experiment

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/wptest/wptest/provision/cloud"
	"github.com/wptest/wptest/results"
)

// The estimate of a run: its wall time from its parts (machines, applies,
// swaps, seeding, warm-ups, every point as its kind estimates it) and, for
// machines with prices, what they cost for that time. The defaults are
// times this project measured on its own 2-core bare hosts (Debian, in
// network namespaces) while it was written; each says what was measured,
// in words a user reads without the notes it was written in.
const measuredHere = "measured by wptest's developers on a 2-core bare host"

var (
	estMachines = estDefault{90 * time.Second, "a fresh host up and reachable ~90 s, " + measuredHere + ", not on a cloud"}
	estFirst    = estDefault{60 * time.Second, "`wptest up --profile cpanel` on a fresh host ~60 s, " + measuredHere}
	estNewProf  = estDefault{30 * time.Second, "a profile's packages over ssh ≈30 s, " + measuredHere}
	estSwap     = estDefault{5 * time.Second, "a re-apply 5 s, " + measuredHere}
	estSeed     = estDefault{10 * time.Second, "site setup < 10 s, " + measuredHere}
	// Rates of a request-count point before one is measured: a WordPress
	// page per visitor, and anything else.
	estPageRate   = estRate{1.65, "page c=4 6.6 req/s on cPanel's Apache, the slowest, " + measuredHere + " (per visitor)"}
	estStaticRate = estRate{749, "135 KB css gzip c=50 749 req/s, the slowest static figure, " + measuredHere}
)

type estDefault struct {
	d    time.Duration
	from string
}

type estRate struct {
	perSec float64 // page: per visitor
	from   string
}

// EstimatePart is one part of the estimate: N times Each.
type EstimatePart struct {
	What  string
	N     int
	Each  time.Duration
	Total time.Duration
	From  string // where the figure comes from
}

// Estimate is a run's expected wall time and, with prices, its cost.
type Estimate struct {
	Parts []EstimatePart
	Total time.Duration
	// Cost: the machines' hourly price (gross) times Total; Hourly ""
	// when the driver states no prices.
	Hourly, Currency, PriceSource string
	Machines                      int
	Cost                          float64
	PriceErr                      string // why there is no price where the driver has prices
	// ListPrice: Hourly is the provider's published list price (no API
	// asked: PriceErr says why), read on PriceDate.
	ListPrice bool
	PriceDate string
	// TTL is how long the machines live at most (their ttl: gc removes
	// them after it, a run that keeps them or dies leaves them that long);
	// TTLCost what they cost for it, the worst case. 0 when the driver
	// makes no machines.
	TTL     time.Duration
	TTLCost float64
	// Machines' driver and attributes, and what of the file's block the
	// command line's driver left (cloud.Machines.NotCarried), for the
	// run's first line when it left something.
	On, NotCarried string
}

// Rates are measured request rates per visitor by "column/scenario": the
// run's, so a request-count point's time follows what the server did.
type Rates map[string]float64

// pointTime is a data point's planned wall time: its kind's estimate (its
// windows), plus, for a point that counts requests, the requests at the
// measured rate of its column and scenario, else the default rate.
func pointTime(sc results.Scenario, p results.Point, rates Rates) time.Duration {
	d := kindOf(sc).estimate(sc)
	if sc.Duration != 0 || sc.Requests <= 0 {
		return d
	}
	rate, _ := requestRate(sc, p, rates)
	return d + time.Duration(float64(sc.Requests)/rate*float64(time.Second))
}

// requestRate is the rate a request-count point is planned at, and where it comes from.
func requestRate(sc results.Scenario, p results.Point, rates Rates) (float64, string) {
	v := max(p.Visitors, 1)
	if r := rates[p.Column+"/"+sc.Name]; r > 0 {
		return r * float64(v), "measured in this run"
	}
	if k, _ := results.KindOf(sc.Kind); k.PHP { // its requests run WordPress: a page's rate
		return estPageRate.perSec * float64(v), estPageRate.from
	}
	return estStaticRate.perSec, estStaticRate.from
}

// EstimateOf is sp's estimate before anything runs: nothing measured yet.
func EstimateOf(sp *Spec) Estimate {
	plan := sp.Plan()
	e := Estimate{On: sp.Machines.Describe(), NotCarried: sp.Machines.NotCarried}
	add := func(what string, n int, each time.Duration, from string) {
		e.add(EstimatePart{What: what, N: n, Each: each, Total: time.Duration(n) * each, From: from})
	}
	if d, err := cloud.Lookup(sp.Machines.Driver); err == nil && d.Capabilities.Creates {
		add("machines made and reachable", 1, estMachines.d, estMachines.from)
		e.TTL, _ = time.ParseDuration(sp.Machines.TTL) // checked when the file loaded
	}
	groups, profiles := 0, map[string]bool{}
	for i, p := range plan {
		if startsGroup(plan, i) {
			groups++
			profiles[p.Profile] = true
		}
	}
	if groups > 0 {
		add("first apply on the server", 1, estFirst.d, estFirst.from)
		add("first apply of each other profile", len(profiles)-1, estNewProf.d, estNewProf.from)
		add("swaps back to a profile applied before", groups-len(profiles), estSwap.d, estSwap.from)
		add("seed and verify the fixture", 1, estSeed.d, estSeed.from)
		add("warm-up after each swap", groups, sp.Warmup, "the experiment's warmup")
	}
	for _, sc := range sp.Scenarios {
		var n int
		var sum time.Duration
		from := "its kind's estimate of a point: warm-up, window, " + estimateOverhead.String()
		for _, p := range plan {
			if p.Scenario == sc.Name {
				n++
				sum += pointTime(sc, p, nil)
				if sc.Duration == 0 && sc.Requests > 0 {
					_, rf := requestRate(sc, p, nil)
					from = fmt.Sprintf("%d requests a point at the default rate (%s)", sc.Requests, rf)
				}
			}
		}
		if n > 0 {
			e.add(EstimatePart{What: "scenario " + sc.Name, N: n, Each: sum / time.Duration(n), Total: sum, From: from})
		}
	}
	return e
}

func (e *Estimate) add(p EstimatePart) {
	if p.N > 0 {
		e.Parts = append(e.Parts, p)
		e.Total += p.Total
	}
}

// Price adds the cost of the machines of plan (as the driver planned them,
// with its prices) for the estimated time.
func (e *Estimate) Price(plan *cloud.Plan) {
	if plan == nil || plan.HourlyGross == "" {
		return
	}
	h, err := strconv.ParseFloat(plan.HourlyGross, 64)
	if err != nil {
		e.PriceErr = fmt.Sprintf("the driver's hourly price %q: %v", plan.HourlyGross, err)
		return
	}
	e.Hourly, e.Currency, e.PriceSource, e.Machines = plan.HourlyGross, plan.Currency, plan.PriceSource, len(plan.Machines)
	e.Cost, e.TTLCost = h*e.Total.Hours(), h*e.TTL.Hours()
}

// PriceList adds the cost of n machines at the provider's list price p,
// for an estimate made without its API; why (PriceErr) stays said.
func (e *Estimate) PriceList(p cloud.ListPrice, n int) {
	each, err := strconv.ParseFloat(p.HourlyGross, 64)
	if err != nil {
		e.PriceErr = fmt.Sprintf("the list price %q of %s: %v", p.HourlyGross, p.ServerType, err)
		return
	}
	h := each * float64(n)
	e.Hourly, e.Currency, e.Machines, e.ListPrice, e.PriceDate = strconv.FormatFloat(h, 'f', 4, 64), p.Currency, n, true, p.Date
	e.PriceSource = fmt.Sprintf("list price of %s: %s %s per hour each, published at %s, read %s", p.ServerType, p.HourlyGross, p.Currency, p.Source, p.Date)
	e.Cost, e.TTLCost = h*e.Total.Hours(), h*e.TTL.Hours()
}

// Short is the estimate in one phrase, for the run's first line.
func (e Estimate) Short() string {
	s := "about " + roundDur(e.Total).String()
	if e.Hourly != "" {
		s += fmt.Sprintf(", ≈ %.4f %s for %d machines", e.Cost, e.Currency, e.Machines)
	}
	if e.NotCarried != "" {
		s += "; machines " + e.On + " (" + e.NotCarried + ")"
	}
	return s
}

// WriteText prints the estimate with its parts and where each figure comes from.
func (e Estimate) WriteText(w io.Writer) {
	fmt.Fprintf(w, "estimate %s\n", roundDur(e.Total))
	for _, p := range e.Parts {
		fmt.Fprintf(w, "  %-42s %3d × %-8s = %-8s (%s)\n", p.What, p.N, roundDur(p.Each), roundDur(p.Total), p.From)
	}
	switch {
	case e.Hourly != "":
		fmt.Fprintf(w, "cost ≈ %.4f %s: %s %s per hour for %d machines (gross; %s) for %s\n",
			e.Cost, e.Currency, e.Hourly, e.Currency, e.Machines, e.PriceSource, roundDur(e.Total))
		if e.TTL > 0 {
			fmt.Fprintf(w, "cost at worst ≈ %.4f %s: the machines living their whole ttl, %s (a run kept or cut off; gc removes them then)\n", e.TTLCost, e.Currency, e.TTL)
		}
		if e.ListPrice {
			fmt.Fprintf(w, "  list prices, not read from the provider's API (%s)\n", strings.TrimSpace(e.PriceErr))
		}
	case e.PriceErr != "":
		fmt.Fprintf(w, "cost: unknown: %s\n", strings.TrimSpace(e.PriceErr))
	}
}

func roundDur(d time.Duration) time.Duration {
	if d >= time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}
