package compare

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"

	"github.com/wptest/wptest/results"
)

// Differences says what differs between the setups of two runs, from
// their manifests: the experiment, its plan, variables, columns (and their
// variables), scenarios (field by field), repetitions, target, tool and
// server. Comparing a changed setting is the point, so none of it stops a
// comparison; it is said so that the reader knows what changed. The
// manifests hold sensitive values already redacted.
func Differences(a, b *results.Manifest) []string {
	var out []string
	str := func(what, x, y string) { out = append(out, change(what, x, y)...) }
	str("experiment", a.Experiment, b.Experiment)
	if a.PlanHash != b.PlanHash {
		out = append(out, fmt.Sprintf("plan: %s → %s", short(a.PlanHash), short(b.PlanHash)))
	}
	out = append(out, vars("var", a.Vars, b.Vars)...)
	out = append(out, matched("column", a.Columns, b.Columns, func(c results.Column) string { return c.ID }, columnChanges)...)
	out = append(out, matched("scenario", a.Scenarios, b.Scenarios, func(s results.Scenario) string { return s.Name },
		func(p, s results.Scenario) []string { return fields("scenario "+s.Name, p, s) })...)
	if a.Repetitions != b.Repetitions {
		out = append(out, fmt.Sprintf("repetitions: %d → %d", a.Repetitions, b.Repetitions))
	}
	str("target", a.Target, b.Target)
	// CPU per request is the whole machine's or the process groups' by
	// where each server ran: rows of two scopes are not like for like.
	str("server CPU per request (server_cpu_ms) counts", results.CPUScopeOf(a.Machine).Label, results.CPUScopeOf(b.Machine).Label)
	// Which points measured the load generator's link, and so which are
	// left out of the lines, follow the bandwidth each run states for it.
	str("the load generators' stated link (load_generator_link_mbps)", statedLink(a.Machine), statedLink(b.Machine))
	str("tool", a.Tool, b.Tool)
	str("server", machine(a.Machine), machine(b.Machine))
	return append(out, drift(a.Drift, b.Drift)...)
}

// change is the line saying that what went from x to y, if it did.
func change(what, x, y string) []string {
	if x == y {
		return nil
	}
	return []string{fmt.Sprintf("%s: %s → %s", what, quote(x), quote(y))}
}

// matched pairs a's and b's items (columns, scenarios) by name: first the
// names only A has ("what NAME: only in A"), then, in B's order, those
// only B has and what changed (same) in those both have.
func matched[T any](what string, a, b []T, name func(T) string, same func(x, y T) []string) []string {
	inA, inB := map[string]T{}, map[string]bool{}
	for _, x := range a {
		inA[name(x)] = x
	}
	for _, y := range b {
		inB[name(y)] = true
	}
	var out []string
	for _, x := range a {
		if !inB[name(x)] {
			out = append(out, what+" "+name(x)+": only in A")
		}
	}
	for _, y := range b {
		x, ok := inA[name(y)]
		if !ok {
			out = append(out, what+" "+name(y)+": only in B")
			continue
		}
		out = append(out, same(x, y)...)
	}
	return out
}

// columnChanges says what differs between two columns of one id.
func columnChanges(p, q results.Column) []string {
	out := change("column "+q.ID+" profile", p.Profile, q.Profile)
	out = append(out, change("column "+q.ID+" label", p.Label, q.Label)...)
	if p.Enabled != q.Enabled {
		out = append(out, fmt.Sprintf("column %s enabled: %v → %v", q.ID, p.Enabled, q.Enabled))
	}
	return append(out, vars("column "+q.ID+" var", p.Vars, q.Vars)...)
}

// drift names, per column, the hand edits one run measured with
// (--accept-drift) and the other did not.
func drift(a, b map[string][]string) []string {
	var out []string
	only := func(id, run string, x, y []string) {
		for _, l := range x {
			if !slices.Contains(y, l) {
				out = append(out, fmt.Sprintf("column %s drift (changed by hand since its apply, measured with --accept-drift) in %s only: %s", id, run, l))
			}
		}
	}
	for _, id := range unionKeys(a, b) {
		only(id, "A", a[id], b[id])
		only(id, "B", b[id], a[id])
	}
	return out
}

// unionKeys are the keys of a and b, sorted, each once.
func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.AppendSeq(slices.Collect(maps.Keys(a)), maps.Keys(b))
	slices.Sort(keys)
	return slices.Compact(keys)
}

func vars(what string, a, b map[string]string) []string {
	var out []string
	for _, k := range unionKeys(a, b) {
		x, inA := a[k]
		y, inB := b[k]
		switch {
		case !inA:
			out = append(out, fmt.Sprintf("%s %s: unset → %s", what, k, quote(y)))
		case !inB:
			out = append(out, fmt.Sprintf("%s %s: %s → unset", what, k, quote(x)))
		case x != y:
			out = append(out, fmt.Sprintf("%s %s: %s → %s", what, k, quote(x), quote(y)))
		}
	}
	return out
}

// fields names the fields of two values of one struct type that differ.
func fields(what string, a, b any) []string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	var out []string
	for i := range va.NumField() {
		x, y := va.Field(i).Interface(), vb.Field(i).Interface()
		if rx, ok := x.(json.RawMessage); ok {
			out = append(out, ownFields(what, rx, y.(json.RawMessage))...)
			continue
		}
		if !reflect.DeepEqual(x, y) {
			out = append(out, fmt.Sprintf("%s %s: %v → %v", what, va.Type().Field(i).Name, x, y))
		}
	}
	return out
}

// ownFields names the settings of a kind's own (results.Scenario.Own)
// that differ, by their names and values, whatever order they were
// written in.
func ownFields(what string, a, b json.RawMessage) []string {
	var ma, mb map[string]json.RawMessage
	_ = json.Unmarshal(a, &ma) // a manifest read checked them (results.CheckOwn)
	_ = json.Unmarshal(b, &mb)
	var out []string
	for _, k := range unionKeys(ma, mb) {
		x, inA := ma[k]
		y, inB := mb[k]
		switch {
		case !inA:
			out = append(out, fmt.Sprintf("%s %s: unset → %s", what, k, y))
		case !inB:
			out = append(out, fmt.Sprintf("%s %s: %s → unset", what, k, x))
		case !jsonEqual(x, y):
			out = append(out, fmt.Sprintf("%s %s: %s → %s", what, k, x, y))
		}
	}
	return out
}

// jsonEqual says whether two JSON values are the same value.
func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

func machine(m *results.MachineInfo) string {
	if m == nil {
		return ""
	}
	return fmt.Sprintf("%s, %d CPUs (%s)", m.Platform, m.CPUs, m.CPUModel)
}

// statedLink is the bandwidth a run stated for its load generators' link,
// "none stated", or "no link" where the load came from the server's own
// machine.
func statedLink(m *results.MachineInfo) string {
	switch {
	case m == nil || m.LoadGenLinkMbps == 0 && !m.LoadLocal:
		return "none stated"
	case m.LoadLocal:
		return "no link: the load came from the server's machine"
	}
	return fmt.Sprintf("%d Mbit/s", m.LoadGenLinkMbps)
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// quote shows a value so that an empty one and one with spaces read as
// what they are.
func quote(s string) string { return strconv.Quote(s) }
