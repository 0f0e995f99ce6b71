package experiment

import "io"

// WritePlan prints what Run would measure, without touching any machine:
// the plan's hash, the fixture's root (generated here: it is a pure
// function of profile and seed), the columns with their profiles and
// variables, the matrix of points with its totals, and the estimate
// (PlanView). json: as JSON.
func WritePlan(w io.Writer, sp *Spec, est Estimate, json bool) error {
	v, err := PlanOf(sp, est)
	if err != nil {
		return err
	}
	if json {
		return v.WritePlanJSON(w)
	}
	v.WriteText(w)
	return nil
}
