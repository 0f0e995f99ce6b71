package experiment

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/wptest/wptest/bench/benchgen"
	"github.com/wptest/wptest/bench/result"
	"github.com/wptest/wptest/internal/suggest"
	"github.com/wptest/wptest/results"
)

// scenarioKind is the run half of a scenario kind as the loader and the
// runner call it: what its block holds beyond the common attributes and
// its defaults and checks, how long a data point takes, and the job a data
// point is for the load generators (benchgen's job kinds split, merge and
// move it between clocks). Each kind's package (kinds/...) registers a
// Kind (Register), which ownKind adapts.
type scenarioKind interface {
	// attrs are the block's attributes of this kind alone (nil: none).
	attrs() []hcl.AttributeSchema
	// decode applies the kind's defaults to s and checks them; sc is the
	// block as written (sc.Body: its attributes beyond the common ones,
	// attrs()'s among them).
	decode(l *loader, sc scenarioHCL, s *results.Scenario, r func(string) hcl.Range)
	// estimate is a data point's planned wall time.
	estimate(sc results.Scenario) time.Duration
	// job is point m's load; finish, if not nil, completes the record once
	// the load ran and the server's samples over its window were joined.
	job(ctx context.Context, r *runner, m point) (j benchgen.Job, finish func(*results.Record, *result.Server), err error)
}

// point is what a kind makes a data point's job from.
type point struct {
	ps  results.Column
	sc  results.Scenario
	p   results.Point
	cfg benchgen.Config // the scenario's base config at the point's visitors (runner.baseConfig)
}

// scenarioKinds are the kinds by name, as results.Kinds lists them.
var scenarioKinds = map[string]scenarioKind{}

// kindOf is sc's kind (the loader refused any other).
func kindOf(sc results.Scenario) scenarioKind {
	if k, ok := scenarioKinds[sc.Kind]; ok {
		return k
	}
	return ownKind{RunKind{}}
}

// kindAttrs are the attributes a block of kind may have beyond the common
// ones (an unknown kind: none).
func kindAttrs(kind string) []hcl.AttributeSchema {
	if k, ok := scenarioKinds[kind]; ok {
		return k.attrs()
	}
	return nil
}

// unsupported is the name in HCL's detail of an attribute a body does not
// take.
var unsupported = regexp.MustCompile(`^An argument named "([^"]+)" is not expected here\.`)

// whoseAttr says, in ds's errors on an attribute a scenario of kind does
// not take, which kinds take it: another kind's attribute is a mistake of
// kind, not of spelling.
func whoseAttr(ds hcl.Diagnostics, kind string) hcl.Diagnostics {
	for _, d := range ds {
		m := unsupported.FindStringSubmatch(d.Detail)
		if m == nil {
			continue
		}
		var kinds []string
		for _, k := range results.Kinds {
			if sk, ok := scenarioKinds[k]; ok && slices.ContainsFunc(sk.attrs(), func(a hcl.AttributeSchema) bool { return a.Name == m[1] }) {
				kinds = append(kinds, k)
			}
		}
		if len(kinds) > 0 {
			d.Summary = "Attribute of another kind"
			d.Detail = fmt.Sprintf("%s is an attribute of a scenario of kind %s, not %s.", m[1], strings.Join(kinds, " or "), kind)
		}
	}
	return ds
}

// checkKind reports a kind no scenarioKind is registered for.
func (l *loader) checkKind(s results.Scenario, r func(string) hcl.Range) {
	if _, ok := scenarioKinds[s.Kind]; !ok || !slices.Contains(results.Kinds, s.Kind) {
		detail := fmt.Sprintf("kind %q: want one of %s.", s.Kind, strings.Join(results.Kinds, ", "))
		if k, ok := suggest.Closest(s.Kind, results.Kinds); ok {
			detail += fmt.Sprintf(" Did you mean %q?", k)
		}
		l.bad(r("kind"), "Unknown scenario kind", detail)
	}
}

// estimateOverhead is a data point's time beyond its windows (the probe,
// the job's start, the samples' join).
const estimateOverhead = 800 * time.Millisecond

// sweepEstimate is the planned time of a step of a kind measured over a
// window (a request count's time is pointTime's: requests at a rate).
func sweepEstimate(sc results.Scenario) time.Duration {
	return sc.Warmup + sc.Duration + estimateOverhead
}
