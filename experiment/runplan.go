package experiment

import "github.com/wptest/wptest/results"

// runPlan is what a run measures: every data point in the order it
// measures them, and the columns it measures. Run computes it once,
// before its steps, which read it; `run --plan` prints the same
// (WritePlan). No step computes it as a side effect.
type runPlan struct {
	points  []results.Point  // sp.Plan()
	enabled []results.Column // the file's enabled columns, in its order
}

// planOf is sp's plan.
func planOf(sp *Spec) runPlan {
	p := runPlan{points: sp.Plan()}
	for _, c := range sp.Columns {
		if c.Enabled {
			p.enabled = append(p.enabled, c)
		}
	}
	return p
}

// first is the column the run applies first: the first enabled one on a
// fresh run (it readies the server for the site), else, on a run whose
// site was verified, the first column with points still to measure (done
// says which are measured).
func (p runPlan) first(sp *Spec, verified bool, done func(key string) bool) results.Column {
	if verified {
		for _, q := range p.points {
			if !done(q.Key) {
				return sp.column(q.Column)
			}
		}
	}
	return p.enabled[0]
}

// column is the column called id (a column of its own profile when the
// file has none so called).
func (sp *Spec) column(id string) results.Column {
	for _, c := range sp.Columns {
		if c.ID == id {
			return c
		}
	}
	return results.Column{ID: id, Profile: id}
}
